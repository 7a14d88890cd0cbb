"""The Python versions the project claims, and where each one's interpreter is on this machine.

    python3 scripts/pythons.py          # the claimed versions, one a line (pyproject's classifiers)
    python3 scripts/pythons.py 3.12     # that interpreter's path; exit 1 saying where it looked

The classifiers `Programming Language :: Python :: 3.X` in pyproject.toml are the one list:
CI (.ci/run) and tests/test_every_python.py both read it here. An interpreter is `python3.X`
on PATH when it runs and says it is 3.X (a pyenv shim for a version that is not selected fails),
else the newest pyenv build of 3.X (under $PYENV_ROOT, `pyenv root`, ~/.pyenv or /root/.pyenv).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLASSIFIER = "Programming Language :: Python :: "
ASK_VERSION = "import sys; print('%d.%d' % sys.version_info[:2])"


def claimed(pyproject: Path = REPO / "pyproject.toml") -> list[str]:
    """The `3.X` versions pyproject.toml's classifiers claim, in its order."""
    with pyproject.open("rb") as handle:
        classifiers = tomllib.load(handle)["project"].get("classifiers", [])
    found = (str(entry).removeprefix(CLASSIFIER) for entry in classifiers)
    return [version for version in found if re.fullmatch(r"3\.\d+", version)]


def pyenv_roots() -> list[Path]:
    """Where pyenv may keep its builds, most specific first, each once."""
    roots = [os.environ.get("PYENV_ROOT", "")]
    if shutil.which("pyenv"):
        try:
            asked = subprocess.run(
                ["pyenv", "root"], capture_output=True, text=True, timeout=60, check=False
            )
            roots.append(asked.stdout.strip() if asked.returncode == 0 else "")
        except (OSError, subprocess.SubprocessError):
            pass
    roots += [str(Path.home() / ".pyenv"), "/root/.pyenv"]
    unique: dict[Path, None] = {Path(root): None for root in roots if root}
    return list(unique)


def _builds(versions: Path, version: str) -> list[Path]:
    """pyenv's builds of `version` (`3.12`, `3.12.1`; not `3.12-dev` or `3.12.1t`), newest first."""
    if not versions.is_dir():
        return []
    pattern = re.compile(re.escape(version) + r"(?:\.(\d+))?")
    found = [(pattern.fullmatch(build.name), build) for build in versions.iterdir()]
    ordered = sorted((int(match.group(1) or 0), build) for match, build in found if match)
    return [build for _, build in reversed(ordered)]


def candidates(version: str) -> list[Path]:
    """Interpreters that may be `version`, in the order they are tried."""
    name = f"python{version}"
    found = [Path(on_path)] if (on_path := shutil.which(name)) else []
    for root in pyenv_roots():
        found += [build / "bin" / name for build in _builds(root / "versions", version)]
    return list(dict.fromkeys(found))


def answers(interpreter: Path, version: str) -> str | None:
    """None when `interpreter` runs and is `version`, else what went wrong."""
    try:
        asked = subprocess.run(
            [str(interpreter), "-c", ASK_VERSION],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot run: {exc}"
    if asked.returncode != 0:
        first = (asked.stderr.strip().splitlines() or ["no output"])[0]
        return f"exit {asked.returncode}: {first}"
    said = asked.stdout.strip()
    return None if said == version else f"is {said}, not {version}"


def find(version: str) -> tuple[Path | None, list[str]]:
    """The interpreter for `version` (or None) and a line for each place that did not do."""
    tried: list[str] = []
    for interpreter in candidates(version):
        why = answers(interpreter, version)
        if why is None:
            return interpreter, tried
        tried.append(f"{interpreter}: {why}")
    if not tried:
        roots = ", ".join(str(root / "versions" / f"{version}*") for root in pyenv_roots())
        tried.append(f"no python{version} on PATH and no build under {roots}")
    return None, tried


def main(argv: list[str]) -> int:
    if not argv:
        print("\n".join(claimed()))
        return 0
    interpreter, tried = find(argv[0])
    if interpreter is None:
        print(f"python{argv[0]} not found:", *tried, sep="\n  ", file=sys.stderr)
        return 1
    print(interpreter)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
