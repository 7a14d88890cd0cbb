"""A hostile v1 agent's `terminal/create` through `acp-codegen inspect`, driven by the page's
HTTP API: a variable that makes another program run is refused before the page is asked
(the agent answered -32602, the page told why), unless `--allow-env` lets it through; then
the page's question shows every variable, and allowing it runs the command."""

from __future__ import annotations

import json
import shlex
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from command_attacks import ATTACKS, Attack

from .conftest import HANG_GUARD, Inspector, StartInspector
from .test_inspect_safety import call

View = dict[str, Any]


def bearer(inspector: Inspector) -> dict[str, str]:
    return {"Authorization": f"Bearer {inspector.token}"}


def view_of(inspector: Inspector) -> View:
    request = urllib.request.Request(inspector.base + "/api/view", headers=bearer(inspector))
    with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
        view: View = json.load(response)
    return view


def wait_for(inspector: Inspector, done: Callable[[View], bool]) -> View:
    """The view once `done` holds: read again at each `changed` event the page would get."""
    request = urllib.request.Request(inspector.base + "/api/events", headers=bearer(inspector))
    with urllib.request.urlopen(request, timeout=HANG_GUARD) as events:
        while True:
            view = view_of(inspector)
            if done(view):
                return view
            while not (line := events.readline()).startswith(b"event: changed"):
                assert line, "the event stream ended"


def said(view: View) -> str:
    messages = [m for m in view["session"]["messages"] if m["role"] == "agent"]
    return "".join(block["text"] for message in messages for block in message["blocks"])


def turn_ended(view: View) -> bool:
    return not view["running"] and ("refused: " in said(view) or "ran: " in said(view))


def prompt(inspector: Inspector) -> None:
    assert call(inspector, "/api/prompt", headers=bearer(inspector), body={"text": "go"})[0] == 200


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_variable_that_runs_another_program_is_refused_without_asking_the_page(
    start_inspector: StartInspector, project: Path, tmp_path: Path, attack: str
) -> None:
    hidden: Attack = ATTACKS[attack](project, tmp_path / "ran")
    inspector = start_inspector("--cwd", str(project), "--", *hidden.agent())
    prompt(inspector)
    view = wait_for(inspector, turn_ended)
    assert not hidden.marker.exists()
    assert view["permission"] is None
    assert said(view).startswith("refused: -32602\n")
    assert f"data: {json.dumps({'env': hidden.names})}" in said(view)
    for name in hidden.names:
        assert f"--allow-env {name}" in view["refused"]


def test_with_allow_env_the_page_is_asked_with_every_variable_and_it_runs(
    start_inspector: StartInspector, project: Path, tmp_path: Path
) -> None:
    hidden = ATTACKS["git-fsmonitor"](project, tmp_path / "ran")
    allowing = [f"--allow-env={name}" for name in hidden.allow]
    inspector = start_inspector("--cwd", str(project), *allowing, "--", *hidden.agent())
    prompt(inspector)
    asked = wait_for(inspector, lambda view: view["permission"] is not None)["permission"]
    assert asked["title"] == f"The agent asks to run git status --short in {project.resolve()}"
    command, program, folder, *env = asked["description"].split("\n")
    assert command == "command: git status --short" and program.endswith("/git")
    assert folder == f"in: {project.resolve()}"
    assert env == [
        f"env: {variable['name']}={shlex.quote(variable['value'])}  [let through by --allow-env]"
        for variable in hidden.params["env"]
    ]
    assert not hidden.marker.exists()  # nothing runs before the answer
    answer = {"id": asked["id"], "optionId": "allow"}
    assert call(inspector, "/api/permission", headers=bearer(inspector), body=answer)[0] == 200
    assert said(wait_for(inspector, turn_ended)).startswith("ran: exit")
    assert hidden.marker.exists()


def test_the_page_shows_the_question_and_the_refusal(
    start_inspector: StartInspector, page: Any, project: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    hidden = ATTACKS["bash-env"](project, tmp_path / "ran")
    inspector = start_inspector(
        "--cwd", str(project), "--allow-env=BASH_ENV", "--", *hidden.agent()
    )
    page.goto(inspector.url)
    page.fill("#prompt-text", "go")
    page.click("#send")
    expect(page.locator("#permission-title")).to_have_text(
        f"The agent asks to run bash -c true in {project.resolve()}"
    )
    details = page.locator("#permission-details")
    expect(details).to_contain_text("command: bash -c true\nprogram: /")
    expect(details).to_contain_text(
        f"env: BASH_ENV={project / 'setup.sh'}  [let through by --allow-env]"
    )
    page.click('#permission-options button[data-option="reject"]')
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    assert not hidden.marker.exists()

    refusing = start_inspector("--cwd", str(project), "--", *hidden.agent())
    page.goto(refusing.url)
    page.fill("#prompt-text", "go")
    page.click("#send")
    expect(page.locator("#state")).to_have_text("idle · end_turn")
    expect(page.locator("#refused")).to_contain_text("--allow-env BASH_ENV")
    expect(page.locator("#permission")).to_be_hidden()
    assert not hidden.marker.exists()
