"""Where a `/` line goes: the agent's listed commands win over chat's own names (`/help`,
`/quit`, `/exit`), `/?` always reaches chat's help, and the help says which name does what."""

from __future__ import annotations

from acp_codegen.commands.chat.slash import help_text, route

ECHO = ("echo", "repeat the text")


def test_chat_answers_its_own_names_when_the_agent_leaves_them_free() -> None:
    agent = [ECHO]
    assert [route(line, agent) for line in ("/help", "/?", "/quit", "/exit now")] == [
        "help", "help", "quit", "quit",
    ]  # fmt: skip
    assert route("/echo a b", agent) == "agent"
    assert route("/nonsense", agent) == "unknown" and route("/", agent) == "unknown"


def test_the_agents_command_wins_and_question_mark_is_always_the_help() -> None:
    agent = [ECHO, ("help", "the agent's help"), ("exit", "leave plan mode"), ("?", "odd")]
    assert [route(line, agent) for line in ("/help", "/exit", "/quit", "/?")] == [
        "agent", "agent", "quit", "help",
    ]  # fmt: skip


def test_the_help_lists_the_agents_commands_then_the_names_that_reach_chats_own() -> None:
    assert help_text([]).splitlines() == [
        "(the agent lists no commands)",
        "/?, /help  this list",
        "/quit, /exit, Ctrl-D  stop the agent and leave",
    ]
    shadowing = [("help", "the agent's help"), ECHO, ("quit", "end the task")]
    assert help_text(shadowing).splitlines() == [
        "/help  the agent's help",
        "/echo  repeat the text",
        "/quit  end the task",
        "/?  this list",
        "/exit, Ctrl-D  stop the agent and leave",
        "(/help, /quit: the agent's command wins; /? is always this list)",
    ]
