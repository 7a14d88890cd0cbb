"""Who may use the inspector: requests without the URL's token, with a wrong one, from another
site (Origin) or by another name (Host) are refused before anything happens; Ctrl-C stops the
server and the agent with exit 0."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from .conftest import DEMO, Inspector, StartInspector


def call(
    inspector: Inspector,
    path: str,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    body: Any = None,
) -> tuple[int, str]:
    """(status, body text) of one request to the inspector."""
    url = inspector.base + path + (f"?token={token}" if token is not None else "")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read(4096).decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def inspector(start_inspector: StartInspector) -> Inspector:
    return start_inspector("--", *DEMO)


@pytest.mark.parametrize("path", ["/", "/api/view", "/api/events", "/api/export/trace"])
def test_without_the_token_nothing_is_served(inspector: Inspector, path: str) -> None:
    assert call(inspector, path)[0] == 403
    assert call(inspector, path, token="not-the-token")[0] == 403
    wrong = {"Authorization": "Bearer not-the-token"}
    assert call(inspector, path, headers=wrong)[0] == 403


def test_the_token_opens_the_page_and_its_api(inspector: Inspector) -> None:
    status, page = call(inspector, "/", token=inspector.token)
    assert status == 200 and "acp-codegen inspect" in page
    bearer = {"Authorization": f"Bearer {inspector.token}"}
    status, text = call(inspector, "/api/view", headers=bearer)
    assert status == 200 and json.loads(text)["agent"]["name"] == "acp-codegen-demo-agent"


def test_another_site_cannot_drive_the_agent(inspector: Inspector) -> None:
    port = inspector.base.rsplit(":", 1)[1]
    for headers in (
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Host": f"evil.example:{port}"},  # a rebound DNS name pointing at 127.0.0.1
        {"Host": "127.0.0.1:1"},
    ):
        status, _ = call(
            inspector, "/api/prompt", token=inspector.token, headers=headers, body={"text": "hi"}
        )
        assert status == 403, headers
    bearer = {"Authorization": f"Bearer {inspector.token}"}
    view = json.loads(call(inspector, "/api/view", headers=bearer)[1])
    assert view["session"]["messages"] == [] and not view["running"]  # nothing was sent


def test_the_page_only_drives_the_agent_it_started(inspector: Inspector) -> None:
    bearer = {"Authorization": f"Bearer {inspector.token}"}
    for path, body in (("/api/prompt", {"text": 1}), ("/api/permission", {"id": "x"})):
        assert call(inspector, path, headers=bearer, body=body)[0] == 400
    # No route takes a command; a permission answer for nothing asked is refused.
    assert call(inspector, "/api/run", headers=bearer, body={"argv": ["sh"]})[0] == 404
    answer = {"id": 1, "optionId": "allow"}
    assert call(inspector, "/api/permission", headers=bearer, body=answer)[0] == 409


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_ctrl_c_stops_the_server_and_the_agent(start_inspector: StartInspector) -> None:
    marker = f"ACP_INSPECT_TEST={uuid.uuid4()}"
    name, value = marker.split("=")
    inspector = start_inspector("--", *DEMO, "--slow", "600", env={name: value})
    bearer = {"Authorization": f"Bearer {inspector.token}"}
    assert call(inspector, "/api/prompt", headers=bearer, body={"text": "slow"})[0] == 200
    agents = [pid for pid in _processes_with(marker) if pid != inspector.process.pid]
    assert agents, "the agent process was not found"
    assert inspector.interrupt() == 0
    assert _processes_with(marker) == []
