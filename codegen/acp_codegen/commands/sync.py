"""Bring one package folder up to date (or report how it differs): shared by generate, check
and vendor, so all three follow the writer's safety rules and print the same way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..write.diffstat import stat
from ..write.manifest import Legacy, read_owned
from ..write.writer import Plan, Refused, diff, file_diffs, plan, write
from .console import Console
from .exits import EXIT_DIFFERS, EXIT_OK


@dataclass(frozen=True, slots=True)
class Job:
    folder: Path  # the package folder
    files: dict[str, bytes]  # its new contents, paths inside it
    shown: str  # the folder as messages show it
    label: str  # prefix of the paths in a diff
    command: str  # the command that regenerates the folder
    legacy: Legacy | None = None


def report_current(
    shown: str, count: int, *, checking: bool, console: Console | None = None
) -> int:
    """What `check` or a write prints when the folder is already current (nothing rendered)."""
    console = console or Console()
    if checking:
        console.info(f"{shown}: up to date")
    else:
        console.info(f"{shown}: 0 file(s) changed, {count} unchanged (0 written, 0 removed)")
    return EXIT_OK


def check(job: Job, *, console: Console | None = None, summary: bool = False) -> int:
    """Exit 0 when the folder holds exactly `job.files`; else print a diff (or with `summary`
    a `--stat` table), the fix, exit 1."""
    console = console or Console()
    todo = plan(job.folder, job.files, read_owned(job.folder, job.legacy))
    if todo.clean:
        console.info(f"{job.shown}: up to date")
        return EXIT_OK
    if summary:
        states = {_shown(job, rel): "missing" for rel in todo.missing}
        states.update({_shown(job, rel): "extra" for rel in todo.extra})
        console.stat(stat(file_diffs(job.folder, job.files, todo, job.label), states))
    else:
        console.diff(diff(job.folder, job.files, todo, job.label))
    fix = job.command + (" --force" if todo.blockers else "")
    lines = [
        f"\n{job.shown} is out of date: {len(todo.changed)} changed, "
        f"{len(todo.missing)} missing, {len(todo.extra)} extra file(s).",
        *_blocker_lines(job, todo),
        f"Fix it with: {fix}",
    ]
    console.explain("\n".join(lines))
    return EXIT_DIFFERS


def _shown(job: Job, rel: str) -> str:
    return f"{job.label}/{rel}" if job.label else rel


def _blocker_lines(job: Job, todo: Plan) -> list[str]:
    if not todo.blockers:
        return []
    return [
        f"{len(todo.blockers)} of them were not written by acp-codegen or were edited since; "
        "the fix overwrites or deletes them:",
        *(f"  {job.shown}/{rel}" for rel in todo.blockers),
    ]


def apply(job: Job, *, force: bool, console: Console | None = None) -> int:
    """Write the folder; exit 1 (nothing written) when that would destroy the user's files."""
    console = console or Console()
    try:
        done = write(job.folder, job.files, force=force, legacy=job.legacy, report=console.note)
    except Refused as refused:
        _report_refusal(job, refused, console)
        return EXIT_DIFFERS
    written = len(done.changed) + len(done.missing)
    unchanged = len(job.files) - written
    _report_files(job, done, console)
    console.info(
        f"{job.shown}: {written + len(done.extra)} file(s) changed, {unchanged} unchanged "
        f"({written} written, {len(done.extra)} removed)"
    )
    return EXIT_OK


def _report_files(job: Job, done: Plan, console: Console) -> None:
    """With --verbose: every file of the package, one per line, and what happened to it."""
    if not console.verbose:
        return
    fate = {rel: "written" for rel in (*done.changed, *done.missing)}
    fate.update({rel: "removed" for rel in done.extra})
    for rel in sorted({*job.files, *done.extra}):
        console.step(f"  {fate.get(rel, 'unchanged'):<9} {job.shown}/{rel}")


def _report_refusal(job: Job, refused: Refused, console: Console) -> None:
    console.error(
        f"{job.shown} holds {len(refused.files)} file(s) that acp-codegen did not write "
        "or that were edited since it wrote them:"
    )
    for rel in refused.files:
        why = "edited since generated" if rel in refused.edited else "not written by acp-codegen"
        console.explain(f"  {job.shown}/{rel} ({why})")
    if refused.forceable:
        hint = "move them out of the folder, or run again with --force to overwrite/delete them"
    else:
        hint = (
            "the folder has no acp-codegen manifest, so it is not taken over even with --force: "
            "move it away or write somewhere else"
        )
    console.explain(f"Nothing was written; {hint}.")
