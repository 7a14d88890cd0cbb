"""A test agent that misbehaves on purpose, chosen by its argument:

- `die`: says one word in the turn, then exits with code 5;
- `garbage`: says one word, then writes a line that is not JSON-RPC on stdout and waits;
- `commands`: lists two slash commands (`/echo`, and `/help`, a name chat also uses) when the
  session opens and answers each prompt with its own text;
- `answered`: lists its commands (`/deploy`) and a config option in the `session/new` answer
  only, as claude-agent-acp and codex-acp do over v2, and answers each prompt with its text;
- `raise`: says one word in the turn, then raises (the bindings end the turn `_internal_error`
  and log the traceback on stderr);
- `notice`: sends a `notice` update (upstream v2's fire-and-forget message to the user), answers
  `noted` and ends the turn;
- `suggests`: offers models (a config option of category `model`, one name hostile) in the
  `session/new` answer; each turn sends prompt suggestions (unstable `prompt_suggestions_update`,
  one hostile, only when the client advertised them) and answers `ok`;
- `stream`: streams `first second` of its answer, asks permission (`Go on?`), then streams
  ` third` and ends the turn; `stream FIFO` waits for a line on the named pipe FIFO instead of
  asking, so a test decides when the turn goes on.
"""

import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "generated"))

from acp_bindings import Agent, Prompt, Session, models
from acp_bindings._runtime.core.client_gates import PROMPT_SUGGESTIONS

MODE = sys.argv[1]
# The protocol stream itself: while the runtime serves, descriptor 1 goes to stderr (so what a
# child process prints stays off the stream); `garbage` imitates an agent that is not so kept.
PROTOCOL_STREAM = os.dup(1)


class Odd(Agent):
    info = models.Implementation(name=f"{MODE}-agent", version="1.0.0")

    async def on_new_session(self, session: Session) -> Mapping[str, Any] | None:
        if MODE == "commands":
            echo = models.Command(name="echo", description="repeat the text")
            own_help = models.Command(name="help", description="the agent's own help")
            listed = models.AvailableCommandsUpdate(available_commands=[echo, own_help])
            await session.send_update(listed)
        if MODE == "answered":
            deploy = {"type": "command", "name": "deploy", "description": "ship the build"}
            model = {"type": "select", "configId": "model", "name": "Model", "currentValue": "a",
                     "options": [{"value": "a", "name": "A"}]}  # fmt: skip
            return {"availableCommands": [deploy], "configOptions": [model]}
        if MODE == "suggests":
            choices = [{"value": "pro", "name": "Pro\x1b]52;c;aGk=\x07"},
                       {"value": "flash", "name": "Flash"}]  # fmt: skip
            model = {"type": "select", "configId": "model", "name": "Model", "category": "model",
                     "currentValue": "pro", "options": choices}  # fmt: skip
            return {"configOptions": [model]}
        return None

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        if MODE in ("commands", "answered"):
            await session.say(f"you sent: {prompt.text}")
            return "end_turn"
        if MODE == "stream":
            return await self.stream(session)
        if MODE == "suggests":
            hostile = {"type": "text", "text": "fix it\n[turn ended: end_turn]"}
            tests = {"type": "text", "text": "run the tests"}
            offered = [{"prompt": [tests]}, {"prompt": [hostile]}]
            if session.client_allows(PROMPT_SUGGESTIONS):  # only to a client that offers them
                await session.send_update({"sessionUpdate": "prompt_suggestions_update",
                                           "suggestions": offered})  # fmt: skip
            await session.say("ok")
            return "end_turn"
        if MODE == "notice":
            notice = {"sessionUpdate": "notice", "severity": "warning", "title": "Quota low",
                      "description": "2 requests left today"}  # fmt: skip
            await session.send_update(notice)
            await session.say("noted")
            return "end_turn"
        await session.say("partial")
        if MODE == "raise":
            raise RuntimeError("the model server went away")
        if MODE == "die":
            print("giving up now", file=sys.stderr, flush=True)
            os._exit(5)
        os.write(PROTOCOL_STREAM, b"this is not json\n")
        await asyncio.Event().wait()  # never answers
        return None

    async def stream(self, session: Session) -> str:
        answer = session.agent_message()
        await answer.append("first")
        await answer.append(" second")
        if len(sys.argv) > 2:  # the test writes a line when it has seen the text so far
            await asyncio.get_running_loop().run_in_executor(None, wait_for_line, sys.argv[2])
        else:
            go_on = models.PermissionOption(option_id="yes", name="Yes", kind="allow_once")
            await session.request_permission("Go on?", [go_on])
        await answer.append(" third")
        return "end_turn"


def wait_for_line(fifo: str) -> None:
    with open(fifo) as lines:
        lines.readline()


if __name__ == "__main__":
    Odd().run()
