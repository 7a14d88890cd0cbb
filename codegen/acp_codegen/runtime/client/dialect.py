"""How `ClientSide` reads and writes a protocol version's wire: the `ClientDialect` seam.

The client lifecycle keeps the sessions, their states and the permission requests whatever
version the agent speaks; it says everything version-specific through one dialect object,
the one of the version `initialize` negotiated: `V2ClientWire` (here) until then and on v2,
v1's `v1.client_wire.V1ClientWire` on a v1 connection. The dependency points up: this floor
names the seam, the v1 floor implements it, and the generated `Client` hands `ClientSide` the
dialect's tables (`DialectTables`), so this floor never imports v1. The agent side is built
the same way (`agent.agent_side.AgentDialect`).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from ..core.client_setup import hello_fallback, hello_misfit
from ..core.versions import UNSUPPORTED_PROTOCOL_VERSION
from ..rpc.connection import Connection
from ..rpc.dispatch import Dispatcher, MethodTable, index_methods
from ..wire.checks import Check, wire_check
from ..wire.errors import ProtocolUsageError, RpcError, UnsupportedProtocolVersion
from ..wire.jsonvalue import JsonObject, JsonValue
from ..wire.protocol import INITIALIZE, SESSION_LOAD, SESSION_NEW, SESSION_PROMPT, SESSION_RESUME
from ..wire.tolerant import ParamsRepair

if TYPE_CHECKING:
    from .client_session import ClientSession

logger = logging.getLogger(__name__)
SETUP_METHODS = (SESSION_NEW, SESSION_LOAD, SESSION_RESUME)


class ClientDialect(Protocol):
    """One version's wire, as `ClientSide` speaks it (`V2ClientWire` says what v2 does)."""

    @property
    def loads_sessions(self) -> bool:
        """Whether this wire has `session/load` (v2 resumes with `replayFrom` instead)."""
        ...

    def agent_hello(self, result: JsonObject) -> tuple[JsonValue, JsonValue]:
        """The agent's info and capabilities, read from its `initialize` answer."""
        ...

    def initialize_misfit(self, result: JsonObject) -> str | None:
        """Why an `initialize` answer's body is not this version's (None: it is, or this
        wire has no types to tell)."""
        ...

    def check_request(self, method: str, params: JsonValue) -> None: ...
    def check_notification(self, method: str, params: JsonValue) -> None: ...
    def setup_params(self, method: str, params: JsonObject) -> JsonObject: ...
    def setup_answer(self, method: str, session_id: str, result: JsonValue) -> JsonValue:
        """A session setup answer in v2's shape, without what its type refuses (its
        state-bearing members then fold as v2's do: `core.client_setup.setup_updates`)."""
        ...

    def replay_begins(self, session_id: str) -> None:
        """A setup that replays the session's whole history is about to be sent: what was
        read of the session so far no longer continues."""
        ...

    def loads_instead(
        self, session_id: str, params: JsonObject, agent_capabilities: JsonValue
    ) -> bool: ...
    async def prompt(
        self, session: ClientSession[Any], blocks: list[JsonValue], key: str | None = None
    ) -> str | None:
        """One `session/prompt` (with `idempotencyKey` `key` where the wire has one); the id
        of the user message it became, when told."""
        ...

    def prompt_capabilities(self, agent_capabilities: JsonValue) -> JsonValue:
        """The agent's capabilities in v2's form, for the one check of prompt content."""
        ...


class VersionDialect(ClientDialect, Protocol):
    """The dialect of a version other than v2's, which the client also accepts: it adds its
    own fields to `initialize` and reads that version's incoming messages itself."""

    @property
    def version(self) -> int:
        """The protocol version it speaks."""
        ...

    @property
    def capabilities(self) -> JsonObject:
        """The client capabilities that version's agents read."""
        ...

    def hello(self, params: JsonObject, info: JsonObject) -> None:
        """Add this version's names for the client's info and capabilities to `initialize`'s
        params (an agent of another version ignores unknown members)."""
        ...

    def checked(self) -> Dispatcher:
        """This dialect behind that version's checks of incoming messages."""
        ...


class DialectTables(Protocol):
    """What the generated bindings of that version give `ClientSide` (`v1=V1Tables(...)`)."""

    def dialect(
        self, client: Any, *, services: Dispatcher | None, handled: Collection[str]
    ) -> VersionDialect:
        """The dialect of `client` (a `ClientSide`); `services` answers that version's client
        requests, `handled` names the ones it answers."""
        ...


class AnswerChecks:
    """Checks of the answers the client reads into its own state, by the answering side's
    table (`specs`): the `initialize` body and the session setup answers, which `repairs`
    (method -> tolerant repair of its result; none: strict) may repair."""

    def __init__(
        self, specs: MethodTable, version: int, repairs: Mapping[str, ParamsRepair] | None = None
    ) -> None:
        rows = index_methods(specs)
        self.version = version
        self._repairs = repairs or {}
        self._checks: dict[str, Check] = {}
        for method in (INITIALIZE, *SETUP_METHODS):
            spec = rows.get((method, "request"))
            if spec is not None and spec.result_type is not None:
                self._checks[method] = wire_check(spec.result_type)

    def hello_misfit(self, result: JsonObject) -> str | None:
        """Why `result` is not this version's `initialize` answer (None: it is, or no type)."""
        check = self._checks.get(INITIALIZE)
        try:
            if check is not None:
                check(result)
        except ValidationError as error:
            return hello_misfit(self.version, error.errors())
        return None

    def kept(self, method: str, result: JsonValue) -> JsonValue:
        """A setup answer as its type allows it: repaired where the schema lets a reader
        recover (a bad item dropped), else without the members its type refuses (logged)."""
        check = self._checks.get(method)
        if check is None or not isinstance(result, dict):
            return result
        if len(result) == ("sessionId" in result):  # the common answer: nothing to fold
            return result
        try:
            check(result)
        except ValidationError as error:
            repair = self._repairs.get(method)
            repaired = None if repair is None else repair(result, error)
            if repaired is not None:
                return repaired
            bad = {str(problem["loc"][0]) for problem in error.errors() if problem["loc"]}
            logger.warning("%s answer: %s left out (not as the type says)", method, sorted(bad))
            return {name: value for name, value in result.items() if name not in bad}
        return result


def spoken_version(
    result: JsonValue, accepted: tuple[int, ...], v2: ClientDialect, v1: VersionDialect | None
) -> tuple[int, str]:
    """The version to speak to an agent that answered `initialize` with `result`, and what to
    log: the version it names when the body is that version's answer; v1 (with a warning
    naming the agent's fault) when the body is v1's and v1 was offered (`v1` given). Raises
    `UnsupportedProtocolVersion` for a version not `accepted`, `ProtocolUsageError` for a
    body that fits neither."""
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    if not isinstance(version, int) or isinstance(version, bool) or version not in accepted:
        raise UnsupportedProtocolVersion(version, accepted)
    assert isinstance(result, dict)
    misfit = (v1 if v1 is not None and version == v1.version else v2).initialize_misfit(result)
    if misfit is None:
        return version, ""
    fallback = None if v1 is None else v1.version
    fallback_misfit = None if v1 is None else v1.initialize_misfit(result)
    spoken, said = hello_fallback(version, misfit, fallback, fallback_misfit)
    if spoken is None:
        raise ProtocolUsageError(said)
    return spoken, said


def initialize_refused(error: Exception, accepted: tuple[int, ...]) -> ProtocolUsageError | None:
    """What `initialize` raises (once the connection is closed) for `error`: the agent refused
    every version offered (-32022), or its answer was not usable (`spoken_version`); None for
    any other error, raised as it is."""
    if isinstance(error, ProtocolUsageError):
        return error
    if isinstance(error, RpcError) and error.code == UNSUPPORTED_PROTOCOL_VERSION:
        data = error.data if isinstance(error.data, dict) else {}
        return UnsupportedProtocolVersion(None, accepted, data.get("supported"))
    return None


class V2ClientWire:
    """v2's wire: the lifecycle's own words, nothing to translate. `agent_specs`: v2's agent
    table, whose answer types tell a v2 `initialize` body and check setup answers (repaired
    by `answer_repairs`) before they are folded."""

    loads_sessions = False
    version = 2

    def __init__(
        self,
        connection: Connection,
        agent_specs: MethodTable = (),
        answer_repairs: Mapping[str, ParamsRepair] | None = None,
    ) -> None:
        self._connection = connection
        self._answers = AnswerChecks(agent_specs, self.version, answer_repairs)

    def agent_hello(self, result: JsonObject) -> tuple[JsonValue, JsonValue]:
        return result.get("info"), result.get("capabilities")

    def initialize_misfit(self, result: JsonObject) -> str | None:
        return self._answers.hello_misfit(result)

    def check_request(self, method: str, params: JsonValue) -> None:
        """Nothing: on v2 `ClientSide` sends what it is given."""

    def check_notification(self, method: str, params: JsonValue) -> None:
        """Nothing, as `check_request`."""

    def setup_params(self, method: str, params: JsonObject) -> JsonObject:
        return params

    def setup_answer(self, method: str, session_id: str, result: JsonValue) -> JsonValue:
        return self._answers.kept(method, result)  # already v2's

    def replay_begins(self, session_id: str) -> None:
        """Nothing: v2 updates carry their message ids, nothing is continued."""

    def loads_instead(
        self, session_id: str, params: JsonObject, agent_capabilities: JsonValue
    ) -> bool:
        return False  # v2's resume replays (`replayFrom`) itself

    async def prompt(
        self, session: ClientSession[Any], blocks: list[JsonValue], key: str | None = None
    ) -> str | None:
        """The answer is v2's insertion receipt: its `messageId` names the user message."""
        params: JsonObject = {"sessionId": session.session_id, "prompt": blocks}
        if key is not None:
            params["idempotencyKey"] = key
        answer = await self._connection.request(SESSION_PROMPT, params)
        message_id = answer.get("messageId") if isinstance(answer, dict) else None
        return message_id if isinstance(message_id, str) else None

    def prompt_capabilities(self, agent_capabilities: JsonValue) -> JsonValue:
        return agent_capabilities
