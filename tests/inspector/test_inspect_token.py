"""`inspect --url` takes the agent's bearer token from `ACP_TOKEN`: the inspector's command line
(readable by every local user in /proc/PID/cmdline) holds no secret, and the token is in none
of what the inspector serves or records (the page's view, its traffic, the `--record` trace,
its export)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from tests.chat import test_chat_token
from tests.chat.test_chat_token import TOKEN

from .conftest import Inspector, StartInspector

# The example agent served with --http, wanting TOKEN.
demo_url = test_chat_token.demo_url


def fetch(inspector: Inspector, path: str) -> bytes:
    request = urllib.request.Request(
        inspector.base + path, headers={"Authorization": f"Bearer {inspector.token}"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        body: bytes = response.read()
        return body


def test_inspect_url_reaches_the_agent_with_the_token_of_the_environment(
    demo_url: str, start_inspector: StartInspector, tmp_path: Path
) -> None:
    record = tmp_path / "inspect.trace.jsonl"
    inspector = start_inspector(
        "--record", str(record), "--url", demo_url, env={"ACP_TOKEN": TOKEN}
    )
    cmdline = Path(f"/proc/{inspector.process.pid}/cmdline").read_bytes()
    assert demo_url.encode() in cmdline and TOKEN.encode() not in cmdline
    view = json.loads(fetch(inspector, "/api/view"))
    assert view["agent"]["name"] == "acp-codegen-demo-agent"
    served = [fetch(inspector, path) for path in ("/api/view", "/api/traffic", "/api/line?n=0")]
    served.append(fetch(inspector, "/api/export/trace"))
    assert all(TOKEN.encode() not in body for body in served)
    assert inspector.interrupt() == 0
    recorded = record.read_text()
    assert '"method":"initialize"' in recorded and TOKEN not in recorded
