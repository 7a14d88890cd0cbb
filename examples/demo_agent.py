"""A small ACP agent built on the generated bindings; it runs on stdio and serves v1 clients
(today's editors) and v2 clients alike, from the one turn below.

Each turn it thinks, posts a plan, runs one pretend tool call (asking permission first),
streams the prompt's text back as its answer and reports usage.

    python examples/demo_agent.py            # serve on stdin/stdout
    python examples/demo_agent.py --slow 0.5 # pause 0.5 s between steps, so a client has
                                             # time to cancel a turn by hand
    python examples/demo_agent.py --http 127.0.0.1:8000  # serve over HTTP and WebSocket
    python examples/demo_agent.py --session-store sqlite:///sessions.db  # sessions survive
                                             # a restart (session/list, session/resume)

Logs go to stderr; stdout carries protocol messages only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

# The example uses the committed bindings; a real agent vendors or installs them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generated"))

from acp_bindings import Agent, Prompt, Session, models, selected_option
from acp_bindings._runtime.serving.http_options import (
    NEEDS_AIOHTTP,
    Access,
    add_http_arguments,
    host_port,
    http_settings,
)
from acp_bindings._runtime.store.durable import DurableStore
from acp_bindings._runtime.store.store_url import add_store_arguments, store_setting

ALLOW, REJECT = "allow", "reject"


class DemoAgent(Agent):
    info = models.Implementation(name="acp-codegen-demo-agent", version="1.0.0")

    def __init__(self, pause: float = 0.0, session_store: DurableStore | None = None) -> None:
        super().__init__(session_store=session_store)
        self.pause = pause

    async def step(self) -> None:
        """The pause between steps that `--slow` asks for (none by default)."""
        if self.pause:
            await asyncio.sleep(self.pause)

    async def on_prompt(self, session: Session, prompt: Prompt) -> str | None:
        text = prompt.text
        if session.title is None:  # the client and session/list show it
            await session.set_title(text[:40] or "(empty prompt)")
        thought = session.thought()
        await thought.append("Reading the prompt.")
        await self.step()
        await thought.append(" Planning one tool call.")
        inspect = models.PlanEntry(
            content="Inspect the prompt", priority="high", status="in_progress"
        )
        answer_step = models.PlanEntry(content="Answer", priority="medium", status="pending")
        plan_id = await session.update_plan([inspect, answer_step])
        call = await session.start_tool_call("Inspect the prompt", kind="read", status="pending")
        outcome = await session.request_permission(
            "Inspect the prompt?",
            [
                models.PermissionOption(option_id=ALLOW, name="Allow", kind="allow_once"),
                models.PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
            ],
            subject=models.ToolCallPermissionSubject(
                type="tool_call", tool_call=models.ToolCallUpdate(tool_call_id=call.tool_call_id)
            ),
        )
        if selected_option(outcome) != ALLOW:
            await call.update(status="failed")
            await session.say("I was not allowed to look, so I stop here.")
            return "refusal"
        await call.update(status="in_progress")
        await self.step()
        await call.append_text(counted(len(text), "character"))
        await self.step()
        await call.append_text(", " + counted(len(text.split()), "word"))
        await call.update(status="completed")
        inspect.status, answer_step.status = "completed", "in_progress"
        await session.update_plan([inspect, answer_step], plan_id=plan_id)
        answer = session.agent_message()
        for word in text.split() or ["(empty prompt)"]:
            await answer.append(word + " ")
            await self.step()
        answer_step.status = "completed"
        await session.update_plan([inspect, answer_step], plan_id=plan_id)
        await session.report_usage(used=len(text), size=200_000)
        return "end_turn"


def web_app(argv: list[str]) -> Any:
    """The example agent as an aiohttp application, for a production server:

        ACP_TOKEN=... python -m aiohttp.web -H 127.0.0.1 -P 8000 demo_agent:web_app
        ACP_TOKEN=... gunicorn 'demo_agent:web_app(["--public", "127.0.0.1:8000"])' \
            --worker-class aiohttp.GunicornWebWorker --bind 127.0.0.1:8000

    (run from examples/; `--public HOST:PORT` names the address clients use, when it is not
    127.0.0.1:8000). The token is required: the app cannot see where it is bound."""
    parser = argparse.ArgumentParser(prog="demo_agent:web_app")
    parser.add_argument("--public", metavar="HOST:PORT", default="127.0.0.1:8000")
    host, port = host_port(parser.parse_args(argv).public)
    access = Access(token=os.environ.get("ACP_TOKEN"))
    return DemoAgent().web_app(host=host, port=port, access=access)


def counted(number: int, noun: str) -> str:
    """`1 word`, `2 words`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--slow",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="pause between the steps of a turn, to leave time for cancelling it",
    )
    add_http_arguments(parser)
    add_store_arguments(parser)
    args = parser.parse_args()
    remote = http_settings(parser, args)
    store = store_setting(parser, args)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    agent = DemoAgent(pause=args.slow, session_store=store)
    if remote is None:
        agent.run()
        return
    try:
        agent.run_http(remote.host, remote.port, access=remote.access, limits=remote.limits)
    except ImportError:
        parser.exit(2, f"{parser.prog}: {NEEDS_AIOHTTP}\n")
    except (ValueError, OSError) as problem:  # refused address, port in use
        parser.exit(2, f"{parser.prog}: {problem}\n")
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
