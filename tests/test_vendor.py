"""`acp-codegen vendor`: the bindings inside a user's project under a dotted name, a prompt turn
through them, edits kept safe, and `--check` for the user's CI.

Vendors the shipped (canonical) schema into `<tmp>/proj/src/myproj/_vendor/acp`; the cwd is the
project, which has no `[tool.acp-codegen]` table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.config import load_settings
from acp_codegen.emit.render import wrapped_command
from acp_codegen.write.manifest import MANIFEST, sha256
from write_checks import file_states, render_once

PACKAGE = "myproj._vendor.acp"
INTO = "src/myproj/_vendor/acp"
VENDOR = ["vendor", "--into", INTO, "--package", PACKAGE]
COMMAND = f"acp-codegen vendor --into {INTO} --package {PACKAGE}"

AGENT = """\
from myproj._vendor.acp import Agent, AgentSession, Prompt, models


class Echo(Agent):
    info = models.Implementation(name="echo", version="1.0.0")

    async def on_prompt(self, session: AgentSession, prompt: Prompt) -> str | None:
        reply = session.agent_message()
        for block in prompt.content:
            await reply.append(block)
        return "end_turn"


if __name__ == "__main__":
    Echo().run()
"""

CLIENT = """\
import asyncio
import json
import sys

import myproj._vendor.acp as acp


async def main() -> None:
    client = acp.Client()
    agent = await client.spawn([sys.executable, "agent.py"])
    await client.lifecycle.initialize()
    session = await client.lifecycle.new_session(cwd=".")
    stop = await session.run_turn([{"type": "text", "text": "hello from the vendored client"}])
    messages = session.snapshot()["messages"]
    code = await agent.close()
    others = {"acp", "acp_bindings", "acp_codegen"}
    loaded = sorted(name for name in sys.modules if name.split(".")[0] in others)
    connection = "myproj._vendor.acp._runtime.rpc.connection"
    loaded += [connection] if connection in sys.modules else []
    print(json.dumps({"stop": stop, "messages": messages, "code": code, "loaded": loaded}))


asyncio.run(main())
"""


@pytest.fixture(autouse=True)
def _render_once(monkeypatch: pytest.MonkeyPatch) -> None:
    render_once(monkeypatch)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "myproj" / "_vendor").mkdir(parents=True)
    (root / "src" / "myproj" / "__init__.py").write_text("", encoding="utf-8")
    (root / "src" / "myproj" / "_vendor" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pyproject.toml").write_text('[project]\nname = "myproj"\n', encoding="utf-8")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def vendored(project: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(VENDOR) == 0
    capsys.readouterr()
    return project / INTO


def test_vendored_bindings_run_a_prompt_turn(vendored: Path, project: Path) -> None:
    (project / "agent.py").write_text(AGENT, encoding="utf-8")
    (project / "client.py").write_text(CLIENT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    proc = subprocess.run(
        [sys.executable, "client.py"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["stop"] == "end_turn" and result["code"] == 0
    assert [m["role"] for m in result["messages"]] == ["user", "agent"]
    _, answer = result["messages"]
    assert answer["content"] == [{"type": "text", "text": "hello from the vendored client"}]
    assert result["loaded"] == ["myproj._vendor.acp._runtime.rpc.connection"]


def test_the_vendored_copy_never_names_itself_and_says_how_to_refresh(vendored: Path) -> None:
    texts = {
        p.relative_to(vendored).as_posix(): p.read_text(encoding="utf-8")
        for p in vendored.rglob("*.py")
    }
    assert "models.py" in texts and "_runtime/rpc/connection.py" in texts
    for rel, text in texts.items():
        assert "acp_bindings" not in text, rel
        assert "myproj" not in text.replace(COMMAND, ""), rel
        assert f"# Regenerate with:\n#   {wrapped_command(COMMAND)}\n" in text, rel
    manifest = json.loads((vendored / MANIFEST).read_bytes())
    assert manifest["package"] == PACKAGE and manifest["regenerate"] == COMMAND
    assert manifest["files"] == {
        rel: sha256((vendored / rel).read_bytes()) for rel in manifest["files"]
    }
    assert set(manifest["files"]) == {
        p.relative_to(vendored).as_posix() for p in vendored.rglob("*") if p.is_file()
    } - {MANIFEST}


def test_an_edited_file_is_refused_then_restored_with_force(
    vendored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = vendored / "client.py"
    pristine = client.read_bytes()
    client.write_bytes(pristine + b"# local patch\n")
    assert main(VENDOR) == 1
    err = capsys.readouterr().err
    assert f"{INTO}/client.py (edited since generated)" in err
    assert client.read_bytes().endswith(b"# local patch\n")
    assert main([*VENDOR, "--force"]) == 0
    assert client.read_bytes() == pristine


def test_check_shows_the_diff_until_re_vendored(
    vendored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*VENDOR, "--check"]) == 0
    assert "up to date" in capsys.readouterr().out
    (vendored / "state.py").write_text("# replaced\n", encoding="utf-8")
    (vendored / "methods.py").unlink()
    assert main([*VENDOR, "--check"]) == 1
    captured = capsys.readouterr()
    assert f"--- a/{INTO}/state.py" in captured.out and "+# replaced" not in captured.out
    assert "-# replaced" in captured.out
    assert f"+++ b/{INTO}/methods.py" in captured.out
    assert f"Fix it with: {COMMAND} --force" in captured.err
    assert (vendored / "state.py").read_text(encoding="utf-8") == "# replaced\n", "check writes"
    assert main([*VENDOR, "--force"]) == 0
    assert main([*VENDOR, "--check"]) == 0


def test_re_vendoring_updates_untouched_files(
    vendored: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new schema reaches every untouched file; the user's own files next to DIR stay."""
    (project / "src" / "myproj" / "_vendor" / "NOTES.md").write_text("mine\n", encoding="utf-8")
    schema = project / "acp.schema.json"
    doc = json.loads(load_settings(project).schema.read_text(encoding="utf-8"))
    doc["title"] = "ACP with a new title"
    schema.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    before = (vendored / "__init__.py").read_text(encoding="utf-8")
    assert main([*VENDOR, "--schema", "acp.schema.json"]) == 0
    after = (vendored / "__init__.py").read_text(encoding="utf-8")
    assert after != before and sha256(schema.read_bytes()) in after
    assert wrapped_command(f"{COMMAND} --schema acp.schema.json") in after
    assert main([*VENDOR, "--schema", "acp.schema.json", "--check"]) == 0
    notes = project / "src" / "myproj" / "_vendor" / "NOTES.md"
    assert notes.read_text(encoding="utf-8") == "mine\n"


def test_vendoring_into_a_folder_of_user_code_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = project / "src" / "myproj"
    before = {p: p.read_bytes() for p in mine.rglob("*") if p.is_file()}
    assert main(["vendor", "--into", "src/myproj", "--package", "myproj", "--force"]) == 1
    err = capsys.readouterr().err
    assert "src/myproj/__init__.py (not written by acp-codegen)" in err
    assert {p: p.read_bytes() for p in mine.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("package", "message"),
    [
        ("myproj..acp", "an empty part (two dots in a row"),
        ("myproj.my-acp", "'-' cannot appear in a Python name; try 'my_acp'"),
        ("json.acp", "would shadow the module 'json'"),
        ("acp", "would shadow the module 'acp'"),
        ("pydantic.vendored", "would shadow the module 'pydantic'"),
    ],
)
def test_bad_dotted_names_are_refused(
    project: Path, capsys: pytest.CaptureFixture[str], package: str, message: str
) -> None:
    assert main(["vendor", "--into", INTO, "--package", package]) == 2
    assert message in capsys.readouterr().err
    assert not (project / INTO).exists()


def test_a_folder_not_matching_the_name_gets_a_note(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vendor", "--into", "src/elsewhere", "--package", PACKAGE, "--check"]) == 1
    assert "does not end in myproj/_vendor/acp" in capsys.readouterr().err
    assert not (project / "src" / "elsewhere").exists()


def test_vendor_help_names_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["vendor", "--help"])
    out = capsys.readouterr().out
    for option in ("--into", "--package", "--schema", "--force", "--check"):
        assert option in out
    assert "manifest" in out


def test_a_vendored_copy_left_renamed_away_by_a_killed_run_is_restored(
    vendored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = file_states(vendored)
    backup = vendored.with_name(f".{vendored.name}.old-k1ll3d00")
    vendored.rename(backup)  # killed between the two renames of the swap
    assert main(VENDOR) == 0
    assert f"restored {INTO} from {backup.name}" in capsys.readouterr().err
    assert not backup.exists()
    assert file_states(vendored) == before  # put back, already current: nothing rewritten
