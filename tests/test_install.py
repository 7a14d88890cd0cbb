"""The tool as users get it: a real wheel installed (not editable) in a fresh venv generates from
its shipped schema in an empty directory, and the result imports.

Offline and quick: the venv borrows this environment's packages through a `.pth` line (nested
`.pth` files such as the editable install's finder are not processed there, so the checkout is
not importable), and pip builds the wheel without build isolation or an index.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest
from acp_codegen.emit.models_cache import CACHE_DIR_VARIABLE
from conftest import REPO, run_folder


def _release(distribution: str) -> tuple[int, int]:
    """The installed (major, minor) of a distribution; (0, 0) when absent."""
    try:
        major, minor = metadata.version(distribution).split(".")[:2]
    except (metadata.PackageNotFoundError, ValueError):
        return (0, 0)
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def _can_build_wheels() -> bool:
    """setuptools from 70.1 builds wheels by itself (no `wheel` package needed); pip from 22.3
    installs into another interpreter (`--python`)."""
    wheels = _release("setuptools") >= (70, 1) or _release("wheel") > (0, 0)
    return wheels and _release("pip") >= (22, 3)


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding a non-editable install of this checkout; returns its bin folder. Under
    xdist the workers of one run share it: the first worker installs under a lock, the others
    reuse it (the tests only run what it holds)."""
    if not _can_build_wheels():
        pytest.skip("cannot build a wheel offline here (needs setuptools>=70.1 and pip>=22.3)")
    root = run_folder(tmp_path_factory, "installed-tool")
    with (root / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
        done = root / "installed"
        if not done.exists():
            _install(root)
            done.touch()
    return root / "venv" / "bin"


def _source_copy(root: Path) -> Path:
    """The checkout's files as a clone would have them (tracked, and new ones not ignored),
    copied under `root`: built in place, setuptools would pack whatever an old build left in
    the checkout's `build/` (modules since moved or deleted) into the wheel."""
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], REPO)
    assert listed.returncode == 0, listed.stderr
    source = root / "source"
    for name in filter(None, listed.stdout.split("\0")):
        path = REPO / name
        if path.is_file() and not path.is_symlink():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, source / name)
        elif path.is_symlink():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).symlink_to(os.readlink(path))
    return source


def _install(root: Path) -> None:
    venv = root / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    assert made.returncode == 0, f"cannot create a venv: {made.stderr.strip()}"
    python = venv / "bin" / "python"
    site = run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root
    )
    Path(site.stdout.strip(), "borrowed.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps"]
    proc = run([*pip, "--no-build-isolation", "--no-index", "-q", str(_source_copy(root))], root)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_installed_tool_is_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    code = (
        "import acp_codegen, acp_codegen.paths as p; "
        "print(acp_codegen.__file__, p.BUNDLED_SCHEMA, p.TEMPLATES_DIR, p.META_SCHEMA)"
    )
    proc = run([str(installed / "python"), "-c", code], tmp_path)
    assert proc.returncode == 0, proc.stderr
    module, schema, templates, meta = proc.stdout.split()
    assert not Path(module).is_relative_to(REPO)
    # the top-level templates/ of the checkout travel inside the package
    assert Path(templates) == Path(module).parent / "templates"
    assert {p.name for p in Path(templates).iterdir()} >= {"package", "scaffold"}
    assert Path(meta).is_file() and not Path(meta).is_relative_to(REPO)
    assert Path(schema).name == "acp.schema.json" and Path(schema).parent.name == "bundled"
    assert Path(schema).read_bytes() == (REPO / "schema" / "acp.schema.json").read_bytes()
    # `--unstable`'s overlays ship beside it
    overlays = (
        "import acp_codegen.paths as p; "
        "print(p.BUNDLED_UNSTABLE_SCHEMA, p.BUNDLED_V1_UNSTABLE_SCHEMA)"
    )
    proc = run([str(installed / "python"), "-c", overlays], tmp_path)
    assert proc.returncode == 0, proc.stderr
    for shipped in map(Path, proc.stdout.split()):
        assert shipped.parent == Path(schema).parent, shipped
        assert shipped.read_bytes() == (REPO / "schema" / shipped.name).read_bytes()


def test_generate_from_the_shipped_schema_in_an_empty_directory(
    installed: Path, tmp_path: Path
) -> None:
    proc = run(
        [str(installed / "acp-codegen"), "generate", "--out", "src", "--package", "myproj_acp"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    pkg = tmp_path / "src" / "myproj_acp"
    header = (pkg / "models.py").read_text(encoding="utf-8").splitlines()[:3]
    assert header[2] == "#   acp-codegen generate --out src --package myproj_acp", header
    code = "import myproj_acp as m; print(m.PROTOCOL_VERSION, m.Client.__name__, m.SCHEMA_SHA256)"
    imported = run([str(installed / "python"), "-c", code], tmp_path / "src")
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.split()[:2] == ["2", "Client"]
    again = run(
        [str(installed / "acp-codegen"), "check", "--out", "src", "--package", "myproj_acp"],
        tmp_path,
    )
    assert again.returncode == 0, again.stdout + again.stderr


def test_python_dash_m_runs_the_installed_tool(installed: Path, tmp_path: Path) -> None:
    proc = run([str(installed / "python"), "-m", "acp_codegen", "--version"], tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("acp-codegen "), proc.stderr


def test_the_installed_chat_runs_on_its_shipped_bindings(installed: Path, tmp_path: Path) -> None:
    """`chat` needs `acp_codegen._bindings` inside the wheel (not `generated/`)."""
    demo = [sys.executable, str(REPO / "examples" / "demo_agent.py")]
    proc = run([str(installed / "acp-codegen"), "chat", "-q", "--prompt", "hi there", "--approve",
                "--", *demo], tmp_path)  # fmt: skip
    assert (proc.returncode, proc.stdout) == (0, "hi there\n"), proc.stderr
    where = "import acp_codegen._bindings as b; print(b.__file__)"
    module = run([str(installed / "python"), "-c", where], tmp_path).stdout.strip()
    assert not Path(module).is_relative_to(REPO)


def test_the_installed_tool_scaffolds_an_agent_from_its_shipped_templates(
    installed: Path, tmp_path: Path
) -> None:
    proc = run([str(installed / "acp-codegen"), "new", "agent", "wheel-agent", "-q"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    project = tmp_path / "wheel-agent"
    assert (project / "src" / "wheel_agent" / "agent.py").is_file()
    assert (project / "src" / "wheel_agent" / "acp" / "__init__.py").is_file()
    check = [
        str(installed / "acp-codegen"),
        *("vendor", "--into", "src/wheel_agent/acp", "--package", "wheel_agent.acp", "--check"),
    ]
    current = run(check, project)
    assert current.returncode == 0, current.stdout + current.stderr


_OWN_FILES = (
    "from acp_codegen.write import fingerprint as f; "
    "print(f.generator_digest()); print(*(rel for rel, _ in f._own_files()), sep=chr(10))"
)


def test_the_generator_fingerprint_is_the_same_installed_as_in_the_checkout(
    installed: Path, tmp_path: Path
) -> None:
    """The manifest's fingerprint hashes the generator's own files: a file the wheel carries
    inside the package but the checkout keeps outside it (the example agent) would make every
    committed manifest stale for a pip-installed tool, so `check` never takes its fast path."""
    proc = run([str(installed / "python"), "-c", _OWN_FILES], tmp_path)
    assert proc.returncode == 0, proc.stderr
    here = run([sys.executable, "-c", _OWN_FILES], tmp_path)
    assert here.returncode == 0, here.stderr
    wheel_digest, *wheel_files = proc.stdout.splitlines()
    checkout_digest, *checkout_files = here.stdout.splitlines()
    assert set(wheel_files) ^ set(checkout_files) == set()
    assert wheel_digest == checkout_digest


def test_the_installed_check_of_the_committed_tree_is_current_without_rendering(
    installed: Path, tmp_path: Path
) -> None:
    """The checkout's committed generated/ is current for the installed tool too: a no-op
    generate leaves its manifest's bytes alone."""
    tree = tmp_path / "clone"
    tree.mkdir()
    (tree / "pyproject.toml").write_bytes((REPO / "pyproject.toml").read_bytes())
    for folder in ("schema", "generated"):
        copied = run(["cp", "-r", str(REPO / folder), str(tree / folder)], tmp_path)
        assert copied.returncode == 0, copied.stderr
    manifest = tree / "generated" / "acp_bindings" / ".acp-codegen-manifest.json"
    before = manifest.read_bytes()
    proc = run([str(installed / "acp-codegen"), "generate"], tree)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert manifest.read_bytes() == before


# ------------------------------------------------------------------ the README, as a stranger

README_EXAMPLE = re.compile(r"<!-- example: (\w+) -->\n```(\w+)\n(.*?)```", re.DOTALL)
KINDS = {"run", "clone", "install", "network", "interactive"}


def readme_examples() -> list[tuple[str, str, str]]:
    """(kind, language, text) of each marked code block: `run` blocks must work as written
    after a plain install; the others say why they cannot run here."""
    return README_EXAMPLE.findall((REPO / "README.md").read_text(encoding="utf-8"))


def test_every_readme_command_and_program_is_marked() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    fences = len(re.findall(r"^```(?:sh|python)\n", text, flags=re.MULTILINE))
    marked = [(kind, lang) for kind, lang, _ in readme_examples() if lang in ("sh", "python")]
    assert len(marked) == fences and {kind for kind, _ in marked} <= KINDS, marked


def test_the_readme_examples_run_as_written_from_an_empty_folder(
    installed: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    env = {
        "PATH": f"{installed}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
        # The suite's models and formatted modules (conftest.py): the same bytes, less time.
        CACHE_DIR_VARIABLE: os.environ[CACHE_DIR_VARIABLE],
    }
    ran = 0
    for number, (kind, lang, text) in enumerate(readme_examples()):
        if kind != "run":
            continue
        if lang == "python":
            program = folder / f"readme_example_{number}.py"
            program.write_text(text, encoding="utf-8")
            commands = [("python " + program.name, 0, {"PYTHONPATH": "generated"})]
        else:
            commands = [
                (line, _expected_exit(line), {})
                for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("#")
            ]
        for command, expected, extra in commands:
            proc = subprocess.run(
                ["bash", "-c", command],
                cwd=folder,
                env={**env, **extra},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert proc.returncode == expected, f"{command}\n{proc.stdout}{proc.stderr}"
            ran += 1
    assert ran >= 15


def _expected_exit(line: str) -> int:
    """A README command ends with `# exit N` where it is meant to fail."""
    found = re.search(r"#\s*exit (\d+)", line)
    return int(found.group(1)) if found else 0
