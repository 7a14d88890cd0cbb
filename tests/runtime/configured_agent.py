"""An agent that serves logins and per-session options (a mode, a boolean), recording every
call: tests/runtime/test_v1_renamed.py drives it on the v1 wire, and
tests/interop/test_v1_interop.py runs it as a process (`python configured_agent.py`, stdio)
for the official Python SDK's v1 client. `GatedAgent` (`python configured_agent.py --gated`)
also offers a terminal login and sends a notice and a compaction each turn: what a client gets
only when it advertised it (tests/runtime/test_client_gates.py)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

import acp_bindings as acp
from acp_bindings import models

MODE: dict[str, Any] = {
    "configId": "mode",
    "name": "Mode",
    "category": "mode",
    "type": "select",
    "currentValue": "ask",
    "options": [
        {"value": "ask", "name": "Ask"},
        {"value": "code", "name": "Code", "description": "Edits files"},
    ],
}
VERBOSE: dict[str, Any] = {
    "configId": "verbose",
    "name": "Verbose",
    "type": "boolean",
    "currentValue": False,
}
LOGIN = models.AuthMethodAgent(type="agent", method_id="browser", name="Log in with a browser")
TERMINAL = models.AuthMethodTerminal(type="terminal", method_id="tty", name="Log in here")
NOTICE = {"sessionUpdate": "notice", "severity": "info", "title": "Indexing the workspace"}
COMPACTED = {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"}


class ConfiguredAgent(acp.Agent):
    """Serves logins and a mode and a boolean option per session, recording every call."""

    auth_methods: ClassVar[list[models.AuthMethod]] = [LOGIN]

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.options: dict[str, list[dict[str, Any]]] = {}

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        """Any prompt turns the boolean option over, "code" switches to that mode too; the
        client is told so."""
        options = self.options[session.session_id]
        options[1]["currentValue"] = not options[1]["currentValue"]
        if prompt.text == "code":
            options[0]["currentValue"] = "code"
        update = {"sessionUpdate": "config_option_update", "configOptions": options}
        await session.send_update(models.ConfigOptionUpdate.model_validate(update))
        return None

    async def on_new_session(self, session: acp.Session) -> dict[str, Any]:
        self.options[session.session_id] = [copy.deepcopy(MODE), copy.deepcopy(VERBOSE)]
        return {"configOptions": self.options[session.session_id]}

    async def auth_login(self, *, params: models.LoginAuthRequest) -> models.LoginAuthResponse:
        self.calls.append(("auth/login", params.method_id))
        return models.LoginAuthResponse()

    async def auth_logout(self, *, params: models.LogoutAuthRequest) -> models.LogoutAuthResponse:
        self.calls.append(("auth/logout", None))
        return models.LogoutAuthResponse()

    async def session_set_config_option(
        self, *, params: models.SetSessionConfigOptionRequest
    ) -> models.SetSessionConfigOptionResponse:
        wire = params.model_dump(by_alias=True, exclude={"meta"})
        self.calls.append(("session/set_config_option", wire))
        options = self.options[wire["sessionId"]]
        for option in options:
            if option["configId"] == wire["configId"]:
                option["currentValue"] = wire["value"]
        return models.SetSessionConfigOptionResponse.model_validate({"configOptions": options})


class GatedAgent(ConfiguredAgent):
    """The configured agent with a terminal login, whose turns send a notice and a compaction
    before turning the boolean over."""

    auth_methods: ClassVar[list[models.AuthMethod]] = [LOGIN, TERMINAL]

    async def on_prompt(self, session: acp.Session, prompt: acp.Prompt) -> str | None:
        await session.engine.send_update(NOTICE)
        await session.engine.send_update(COMPACTED)
        return await super().on_prompt(session, prompt)


if __name__ == "__main__":
    (GatedAgent if "--gated" in sys.argv[1:] else ConfiguredAgent)().run()
