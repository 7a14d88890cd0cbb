"""A package generated with `--unstable`: the unstable methods typed and marked on both sides and
in PROTOCOL.md, the session ones served by the runtime; and without the option (the committed
package) nothing of it generated or advertised. Generates the canonical pair once (slow)."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from acp_codegen.commands import pipeline
from acp_codegen.commands.cli import main
from acp_codegen.commands.exits import EXIT_OK
from acp_codegen.write.manifest import MANIFEST
from conftest import REPO, _import_from
from runtime.streams import RawPeer, guard, run, stream_pair

PACKAGE = "acp_unstable_test_pkg"
COMMITTED = REPO / "generated" / "acp_bindings"
MARK = "Unstable (generated with `--unstable`; may change or go away)."
CWD = "/work"
# Unstable methods by the side that sends them (the other side's typed proxy has a call).
SENT_BY_CLIENT = {
    "session_fork": "session/fork",
    "session_set_title": "session/set_title",
    "session_archive": "session/archive",
    "session_unarchive": "session/unarchive",
    "session_status": "session/status",
    "providers_list": "providers/list",
    "providers_set": "providers/set",
    "providers_disable": "providers/disable",
    "auth_status": "auth/status",
    "mcp_message_notification": "mcp/message",
}
SENT_BY_AGENT = {"auth_status_update": "auth/status_update", "mcp_message": "mcp/message"}
MODELS_IGNORES = 'lint.per-file-ignores = {"**/models.py" = ["E501", "RUF036", "I001"]}'


@pytest.fixture(scope="module")
def unstable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ModuleType]]:
    """The project's schemas generated with `--unstable` by the command, as a user would."""
    out = tmp_path_factory.mktemp("unstable")
    with working_in(REPO):
        assert main(["generate", "--unstable", *target(out), "-q"]) == EXIT_OK
    yield out, _import_from(out, PACKAGE)


def target(out: Path) -> list[str]:
    return ["--out", str(out), "--package", PACKAGE]


@contextmanager
def working_in(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def test_a_second_unstable_run_renders_nothing(
    unstable: tuple[Path, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fingerprint covers the overlays: a no-op `check --unstable` skips rendering, and
    the regenerate command the package records carries the option."""
    out, _ = unstable

    def forbidden(*args: Any, **kwargs: Any) -> dict[str, bytes]:
        raise AssertionError("rendered although nothing changed")

    monkeypatch.setattr(pipeline, "render_files", forbidden)
    with working_in(REPO):
        assert main(["check", "--unstable", *target(out), "-q"]) == EXIT_OK
    manifest = json.loads((out / PACKAGE / MANIFEST).read_text(encoding="utf-8"))
    assert "--unstable" in manifest["regenerate"].split()


def docstring(owner: type, name: str) -> str:
    return getattr(owner, name).__doc__ or ""


def test_with_the_option_both_sides_get_typed_unstable_methods_marked_and_not_without(
    unstable: tuple[Path, ModuleType],
) -> None:
    nothing_unstable_in_the_committed_package()
    out, package = unstable
    agent, client = package.agent, package.client
    for name in SENT_BY_CLIENT:
        assert MARK.split(" (")[0] in docstring(client.AgentProxy, name), name
    for name in SENT_BY_AGENT:
        assert "Unstable" in docstring(agent.ClientProxy, name), name
        assert "Unstable" in docstring(client.Client, name), name
    # Handlers the agent's author writes; the session ones are the runtime's (a hook for fork).
    for name in ("providers_list", "auth_status", "mcp_message_notification"):
        assert "Unstable" in docstring(agent.Agent, name), name
    assert not hasattr(agent.Agent, "session_fork")
    assert "fork" in docstring(agent.Agent, "on_fork_session")
    assert package.models.ForkSessionRequest.__doc__.strip().startswith(MARK)
    fields = package.models.SessionCapabilities.model_fields  # annotations not yet resolved
    assert f"description='{MARK}" in str(fields["fork"].annotation)
    assert "Unstable" not in str(fields["delete"].annotation)
    protocol = (out / PACKAGE / "PROTOCOL.md").read_text(encoding="utf-8")
    assert "[`session/fork`](#method-session-fork): agent request (unstable)" in protocol
    assert "| agent | request, unstable |" in protocol
    assert "[`session/new`](#method-session-new): agent request\n" in protocol
    # v1 carries its own unstable surface, typed with v1's models.
    v1_client = importlib.import_module(f"{PACKAGE}.v1.client")
    assert "Unstable" in docstring(v1_client.AgentProxy, "session_fork")
    assert hasattr(package.v1.models, "SetSessionTitleRequest")


def nothing_unstable_in_the_committed_package() -> None:
    """The committed package (made without the option): no unstable method, model, field or
    mark outside the runtime copy (whose unstable session code is dormant there)."""
    for path in COMMITTED.rglob("*"):
        if path.is_dir() or "_runtime" in path.parts or path.suffix not in {".py", ".md"}:
            continue
        text = path.read_text(encoding="utf-8")
        for word in (
            "session/fork",
            "session/set_title",
            "providers/",
            "auth/status",
            "Unstable (",
        ):
            assert word not in text, (path, word)
        assert "ForkSessionRequest" not in text, path


def nothing_unstable_served_or_advertised_by_the_committed_package() -> None:
    from acp_codegen import _bindings as committed

    calls = [("session/fork", {"sessionId": "$new", "cwd": CWD})]
    capabilities, (fork,) = agent_talk(committed, Forks(committed).agent, calls)
    assert not {"fork", "title", "archive", "status"} & set(capabilities["session"])
    assert fork == ("error", -32601)


class Forks:
    """An agent that records the forks its hook saw and refuses forks of refused sessions."""

    def __init__(self, package: ModuleType) -> None:
        self.seen: list[tuple[str, str, int]] = []
        forks = self

        class Agent(package.Agent):  # type: ignore[misc,name-defined]
            async def on_prompt(self, session: Any, prompt: Any) -> str | None:
                await session.say("hello there")
                return None

            async def on_fork_session(self, parent: Any, child: Any) -> Mapping[str, Any] | None:
                forks.seen.append((parent.session_id, child.session_id, len(child.engine.history)))
                if parent.title == "refuse":
                    raise package._runtime.wire.errors.RpcError(-32602, "no forks of this one")
                return {"configOptions": []}

        self.agent = Agent


def agent_talk(
    package: ModuleType,
    agent_class: type,
    calls: list[tuple[str, dict[str, Any]]],
    prompt_first: bool = False,
) -> tuple[Any, list[Any]]:
    """(the agent's advertised capabilities, each call's answer or ("error", code)) over a
    linked pair; `sessionId` "$new" in a call's params is the session made first."""
    connection_type = importlib.import_module(f"{package.__name__}._runtime.rpc.connection")
    errors = importlib.import_module(f"{package.__name__}._runtime.wire.errors")

    async def main() -> tuple[Any, list[Any]]:
        (ra, wa), (rb, wb) = await stream_pair()
        near, far = connection_type.Connection(ra, wa), connection_type.Connection(rb, wb)
        client = package.Client()
        near.dispatcher = client.dispatcher(near)
        far.dispatcher = agent_class().dispatcher(far)
        near.start()
        far.start()
        try:
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(cwd=CWD)
            if prompt_first:
                await session.run_turn([{"type": "text", "text": "hi"}])
            answers: list[Any] = []
            for method, params in calls:
                named = {k: (session.session_id if v == "$new" else v) for k, v in params.items()}
                try:
                    answers.append(await near.request(method, named))
                except errors.RpcError as error:
                    answers.append(("error", error.code))
            return client.lifecycle.agent_capabilities, answers
        finally:
            await near.close()
            await far.close()

    return run(main())


def test_the_runtime_serves_fork_with_history_and_the_authors_hook_only_with_the_option(
    unstable: tuple[Path, ModuleType],
) -> None:
    nothing_unstable_served_or_advertised_by_the_committed_package()
    _, package = unstable
    forks = Forks(package)
    capabilities, answers = agent_talk(
        package,
        forks.agent,
        [
            ("session/fork", {"sessionId": "$new", "cwd": CWD}),
            ("session/set_title", {"sessionId": "$new", "title": "refuse"}),
            ("session/fork", {"sessionId": "$new", "cwd": CWD}),
            ("session/fork", {"sessionId": "nobody", "cwd": CWD}),
            ("session/list", {}),
        ],
        prompt_first=True,
    )
    assert {"fork", "title", "archive", "status"} <= set(capabilities["session"])
    fork, titled, refused, unknown, listed = answers
    assert set(fork) == {"sessionId", "configOptions"}
    (parent, child, copied), *_ = forks.seen
    assert child == fork["sessionId"] and copied >= 1  # the parent's turn, copied
    assert titled == {"title": "refuse"}
    assert refused == ("error", -32602) and unknown == ("error", -32002)
    # The refused fork left no session behind: the parent and the first fork are listed.
    assert {info["sessionId"] for info in listed["sessions"]} == {parent, child}


def test_titles_archive_and_status_follow_the_session_registry(
    unstable: tuple[Path, ModuleType],
) -> None:
    _, package = unstable
    _, answers = agent_talk(
        package,
        Forks(package).agent,
        [
            ("session/set_title", {"sessionId": "$new", "title": "   "}),
            ("session/set_title", {"sessionId": "$new", "title": "  Named  "}),
            ("session/status", {"sessionId": "$new"}),
            ("session/archive", {"sessionId": "$new"}),
            ("session/archive", {"sessionId": "$new"}),
            ("session/list", {}),
            ("session/list", {"archived": "only"}),
            ("session/status", {"sessionId": "$new"}),
            ("session/unarchive", {"sessionId": "$new"}),
            ("session/list", {}),
            ("session/status", {"sessionId": "nobody"}),
            ("session/archive", {"sessionId": "nobody"}),
        ],
        prompt_first=True,
    )
    blank, named, open_, archived, again, hidden, only, saved, _, back, *unknown = answers
    assert blank == ("error", -32602)
    assert named == {"title": "Named"}
    assert open_["status"] == "open" and open_["state"]["state"] == "idle"
    assert archived == {} and again == {}
    assert hidden == {"sessions": []}
    (info,) = only["sessions"]
    assert info["archived"] is True and info["title"] == "Named"
    assert saved == {"status": "saved"}  # archiving closed it
    (info,) = back["sessions"]
    assert "archived" not in info
    assert unknown == [("error", -32002), ("error", -32002)]


def test_the_unstable_package_passes_mypy_strict_and_ruff(
    unstable: tuple[Path, ModuleType], mypy_cache: Path
) -> None:
    out, _ = unstable
    mypy = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(mypy_cache), PACKAGE]
    checked = subprocess.run(mypy, cwd=out, capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # The project's ruff settings, with the ignores it keeps for generated models.
    ruff = [sys.executable, "-m", "ruff", "check", "--no-cache"]
    ruff += ["--config", str(REPO / "pyproject.toml"), "--config", MODELS_IGNORES]
    linted = subprocess.run([*ruff, str(out)], capture_output=True, text=True, check=False)
    assert linted.returncode == 0, linted.stdout + linted.stderr


def suggestions_talk(
    package: ModuleType, advertise: bool, versions: tuple[int, ...] = (1, 2)
) -> tuple[list[bool], Any]:
    """(what `suggest_prompts` returned in the agent's turn, the client's session snapshot)
    after one turn; `advertise` False: the client leaves `session.promptSuggestions` out;
    `versions`: the protocol versions the client offers ((1,): a v1 connection)."""
    connection_type = importlib.import_module(f"{package.__name__}._runtime.rpc.connection")
    returned: list[bool] = []

    class Agent(package.Agent):  # type: ignore[misc,name-defined]
        async def on_prompt(self, session: Any, prompt: Any) -> str | None:
            raw = [{"prompt": [{"type": "text", "text": "sent raw"}]}]
            await session.send_update(
                {"sessionUpdate": "prompt_suggestions_update", "suggestions": raw}
            )
            returned.append(await session.suggest_prompts(["run the tests", ["fix", "it"]]))
            return None

    async def main() -> tuple[list[bool], Any]:
        (ra, wa), (rb, wb) = await stream_pair()
        near, far = connection_type.Connection(ra, wa), connection_type.Connection(rb, wb)
        client = package.Client()
        client.protocol_versions = versions
        if not advertise:
            client.capabilities = package.models.ClientCapabilities()
        near.dispatcher = client.dispatcher(near)
        far.dispatcher = Agent().dispatcher(far)
        near.start()
        far.start()
        try:
            await client.lifecycle.initialize()
            session = await client.lifecycle.new_session(cwd=CWD)
            await session.run_turn([{"type": "text", "text": "hi"}])
            return returned, session.snapshot()
        finally:
            await near.close()
            await far.close()

    return run(main())


def test_prompt_suggestions_are_typed_folded_and_sent_only_to_a_client_that_asked(
    unstable: tuple[Path, ModuleType],
) -> None:
    """`Session.suggest_prompts` (only with `--unstable`) sends a `prompt_suggestions_update`
    to a client that advertised `session.promptSuggestions` (ours does, with the option); the
    client folds the list into its state; a client that did not advertise it gets nothing."""
    _, package = unstable
    advertised = package.client.Client.capabilities.model_dump(by_alias=True)
    assert advertised["session"]["promptSuggestions"] is not None
    assert package.models.PromptSuggestionsUpdate.__doc__.strip().startswith(MARK)
    returned, snapshot = suggestions_talk(package, advertise=True)
    assert returned == [True]
    assert snapshot["promptSuggestions"] == [
        {"prompt": [{"type": "text", "text": "run the tests"}]},
        {"prompt": [{"type": "text", "text": "fix"}, {"type": "text", "text": "it"}]},
    ]
    returned, snapshot = suggestions_talk(package, advertise=False)
    assert returned == [False] and snapshot["promptSuggestions"] is None
    # On a v1 connection: advertised in v1's clientCapabilities.session, sent, folded alike.
    returned, snapshot = suggestions_talk(package, advertise=True, versions=(1,))
    assert returned == [True] and len(snapshot["promptSuggestions"]) == 2
    returned, snapshot = suggestions_talk(package, advertise=False, versions=(1,))
    assert returned == [False] and snapshot["promptSuggestions"] is None
    from acp_codegen import _bindings as committed

    assert not hasattr(committed.session.Session, "suggest_prompts")
    assert "promptSuggestions" not in json.dumps(committed.client.Client.capabilities.model_dump())


def test_the_v1_package_types_the_model_selection(unstable: tuple[Path, ModuleType]) -> None:
    """v1 with `--unstable`: `models` on the session setup answers, `session/set_model` typed
    for the agent's author and on the client's proxy."""
    _, package = unstable
    v1 = package.v1
    answer = v1.models.NewSessionResponse.model_validate(
        {
            "sessionId": "s",
            "models": {
                "availableModels": [{"modelId": "gemini-2.5-pro", "name": "Pro"}],
                "currentModelId": "gemini-2.5-pro",
            },
        }
    )
    assert answer.models is not None and answer.models.current_model_id == "gemini-2.5-pro"
    assert v1.models.SetSessionModelRequest.__doc__.strip().startswith(MARK)
    assert "Unstable" in docstring(v1.client.AgentProxy, "session_set_model")
    assert "Unstable" in docstring(v1.agent.Agent, "session_set_model")


def test_a_client_switches_a_gemini_style_v1_agents_model(
    unstable: tuple[Path, ModuleType],
) -> None:
    """Against a fake v1 agent that answers `session/new` with `models` (as gemini-cli and
    qwen-code do): the model option is in the session state; `Client.set_model` (only with
    `--unstable`) sends `session/set_model` and shows the new model as current."""
    _, package = unstable
    connection_type = importlib.import_module(f"{package.__name__}._runtime.rpc.connection")
    models = {
        "currentModelId": "pro",
        "availableModels": [{"modelId": "pro", "name": "Pro"}, {"modelId": "flash", "name": "F"}],
    }

    async def answer(peer: RawPeer, method: str, result: Any) -> dict[str, Any]:
        message: dict[str, Any] = await peer.recv()
        assert message["method"] == method, message
        await peer.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        return message

    async def main() -> tuple[Any, dict[str, Any], Any]:
        (ra, wa), (rb, wb) = await stream_pair()
        near = connection_type.Connection(ra, wa)
        peer = RawPeer(rb, wb)
        client = package.Client()
        near.dispatcher = client.dispatcher(near)
        near.start()
        try:
            hello = asyncio.create_task(client.lifecycle.initialize())
            await answer(peer, "initialize", {"protocolVersion": 1})
            await guard(hello)
            setup = asyncio.create_task(client.lifecycle.new_session(cwd=CWD))
            await answer(peer, "session/new", {"sessionId": "s1", "models": models})
            session = await guard(setup)
            before = session.snapshot()["configOptions"]
            switch = asyncio.create_task(client.set_model(session, "flash"))
            sent = await answer(peer, "session/set_model", {})
            await guard(switch)
            return before, sent, session.snapshot()["configOptions"]
        finally:
            await near.close()

    before, sent, after = run(main())
    (option,), (switched,) = before, after
    assert (option["category"], option["currentValue"]) == ("model", "pro")
    assert [choice["value"] for choice in option["options"]] == ["pro", "flash"]
    assert sent["params"] == {"sessionId": "s1", "modelId": "flash"}
    assert switched["currentValue"] == "flash"
    from acp_codegen import _bindings as committed

    assert not hasattr(committed.client.Client, "set_model")


def test_an_agent_with_a_model_option_serves_v1s_model_selection(
    unstable: tuple[Path, ModuleType],
) -> None:
    """A v1 client (here raw, as gemini-style editors speak) of an agent generated with
    `--unstable` whose session has a config option of category `model`: the setup answer
    carries `models` from it, and `session/set_model` reaches the author's
    `session_set_config_option` on that option. The committed package sends no `models`."""
    _, package = unstable
    seen: list[tuple[str, str]] = []
    choices = [{"value": "pro", "name": "Pro"}, {"value": "flash", "name": "Flash"}]
    option = {"type": "select", "configId": "llm", "name": "Model", "category": "model"}

    def agent_class(bindings: ModuleType) -> type:
        class Agent(bindings.Agent):  # type: ignore[misc,name-defined]
            async def on_new_session(self, session: Any) -> Mapping[str, Any] | None:
                return {"configOptions": [{**option, "currentValue": "pro", "options": choices}]}

            async def session_set_config_option(self, *, params: Any) -> Any:
                seen.append((params.config_id, params.value))
                current = {**option, "currentValue": params.value, "options": choices}
                return {"configOptions": [current]}

        return Agent

    async def talk(bindings: ModuleType) -> tuple[dict[str, Any], Any]:
        connection_type = importlib.import_module(f"{bindings.__name__}._runtime.rpc.connection")
        (ra, wa), (rb, wb) = await stream_pair()
        far = connection_type.Connection(ra, wa)
        far.dispatcher = agent_class(bindings)().dispatcher(far)
        far.start()
        peer = RawPeer(rb, wb)

        async def call(request_id: int, method: str, params: dict[str, Any]) -> Any:
            await peer.send(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )
            return await peer.recv()

        try:
            await call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
            new = (await call(2, "session/new", {"cwd": CWD, "mcpServers": []}))["result"]
            chosen = await call(
                3, "session/set_model", {"sessionId": new["sessionId"], "modelId": "flash"}
            )
            return new, chosen
        finally:
            await far.close()

    new, chosen = run(talk(package))
    assert new["models"] == {
        "currentModelId": "pro",
        "availableModels": [
            {"modelId": "pro", "name": "Pro"},
            {"modelId": "flash", "name": "Flash"},
        ],
    }
    assert chosen["result"] == {} and seen == [("llm", "flash")]
    from acp_codegen import _bindings as committed

    new, chosen = run(talk(committed))
    assert "models" not in new and chosen["error"]["code"] == -32601
