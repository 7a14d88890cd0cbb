"""The files of a new agent project, and writing them all or nothing.

The project's own files come from the scaffold templates (`templates/scaffold/`); its
bindings are rendered and written by the same code as `acp-codegen vendor`, with the same
regenerate command, so `acp-codegen vendor ... --check` in the new project finds them up to
date.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2

from ...emit.dcg import PYDANTIC_MINIMUM
from ...emit.target import Target
from ...paths import BUNDLED_SCHEMA, BUNDLED_V1_SCHEMA, SCAFFOLD_TEMPLATE_DIR
from ...write.writer import write
from ..config import Settings
from ..targets import UsageError
from ..where import Where, command_line
from .names import ProjectName

# Template -> path in the project ({package} is the package's folder name).
TEMPLATES = {
    "pyproject.toml.j2": "pyproject.toml",
    "README.md.j2": "README.md",
    "gitignore.j2": ".gitignore",
    "package_init.py.j2": "src/{package}/__init__.py",
    "package_main.py.j2": "src/{package}/__main__.py",
    "agent.py.j2": "src/{package}/agent.py",
    "py.typed.j2": "src/{package}/py.typed",
    "agent_client.py.j2": "tests/agent_client.py",
    "test_agent.py.j2": "tests/test_agent.py",
}


@dataclass(frozen=True, slots=True)
class Layout:
    project: ProjectName
    unstable: bool = False  # `--unstable`: the bindings carry the unstable surface

    @property
    def bindings_dir(self) -> str:
        return f"src/{self.project.package}/acp"

    @property
    def bindings_package(self) -> str:
        return f"{self.project.package}.acp"

    @property
    def vendor_command(self) -> str:
        """The command (run in the project folder) that regenerates the bindings."""
        return command_line(
            ["acp-codegen", "vendor", "--into", self.bindings_dir],
            ["--package", self.bindings_package],
            ["--unstable"] if self.unstable else [],
        )


def project_files(layout: Layout) -> dict[str, bytes]:
    """The project's own files (not the bindings), by path inside the project."""
    folder = SCAFFOLD_TEMPLATE_DIR
    env = jinja2.Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    context = {
        "name": layout.project.name,
        "package": layout.project.package,
        "class_name": layout.project.class_name,
        "pydantic_minimum": PYDANTIC_MINIMUM,
        "vendor_command": layout.vendor_command,
        "bindings_dir": layout.bindings_dir,
        "unstable": layout.unstable,
    }
    files = {}
    for template, path in TEMPLATES.items():
        source = (folder / template).read_text(encoding="utf-8")
        text = env.from_string(source).render(context)
        files[path.format(package=layout.project.package)] = text.encode("utf-8")
    return files


def bindings_files(layout: Layout, project_dir: Path) -> dict[str, bytes]:
    """The vendored bindings exactly as `vendor_command`, run in `project_dir`, renders them:
    the schema shipped with acp-codegen (the new project has no `[tool.acp-codegen]` table)."""
    settings = Settings(
        schema=BUNDLED_SCHEMA,
        out=project_dir,
        package=layout.bindings_package,
        bundled_schema=True,
        v1_schema=BUNDLED_V1_SCHEMA,
    )
    where = Where(
        project_dir.resolve(),
        settings,
        BUNDLED_SCHEMA,
        bundled=True,
        v1_schema=BUNDLED_V1_SCHEMA,
        v1_bundled=True,
        unstable=layout.unstable,
    )
    target = Target(package=layout.bindings_package, command=layout.vendor_command)
    return where.render(target)


def create(layout: Layout, project_dir: Path) -> list[str]:
    """Write the whole project to `project_dir` (absent or empty) or nothing at all; returns the
    project's own files' paths. Everything is built in a folder beside it and renamed into place."""
    if project_dir.exists() and (not project_dir.is_dir() or any(project_dir.iterdir())):
        raise UsageError(f"--dir {project_dir}: exists and is not an empty folder; nothing written")
    bindings = bindings_files(layout, project_dir)
    own = project_files(layout)
    created = _missing_parents(project_dir.parent)
    project_dir.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=project_dir.parent, prefix=f".{project_dir.name}.new-"))
    try:
        os.chmod(stage, 0o777 & ~_umask())
        for rel, data in own.items():
            target = stage / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        write(stage / layout.bindings_dir, bindings)
        os.rename(stage, project_dir)  # onto an empty folder too (POSIX rename replaces it)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        for parent in created:  # deepest first, only what this run created
            if parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
        raise
    return sorted(own)


def _missing_parents(path: Path) -> list[Path]:
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    return missing


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
