"""Exceptions the runtime raises and the JSON-RPC error codes it answers with."""

from __future__ import annotations

from enum import IntEnum
from typing import TypedDict


class ErrorCode(IntEnum):
    """JSON-RPC 2.0 codes plus the ones ACP defines (protocol inventory, section 4.11)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    REQUEST_CANCELLED = -32800
    AUTH_REQUIRED = -32000
    RESOURCE_NOT_FOUND = -32002


class Problem(TypedDict):
    """One entry of -32602's `data`, as pydantic reports a validation error: where (`loc`),
    what (`msg`) and which check failed (`type`)."""

    loc: list[str | int]
    msg: str
    type: str


class RpcError(Exception):
    """A JSON-RPC error: raised by `Connection.request` on an error response, and raised by
    handlers to answer a request with exactly this error."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        # None means "no data member". Anything `json.dumps` writes: a peer's error carries
        # JSON here, a local one what its raiser put (problems, ids).
        self.data = data

    def to_json(self) -> dict[str, object]:
        """The error object of a response (`data` only when there is some)."""
        error: dict[str, object] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def from_json(cls, error: object) -> RpcError:
        """Lenient: a peer's malformed error object still becomes an `RpcError`."""
        if not isinstance(error, dict):
            return cls(ErrorCode.INTERNAL_ERROR, f"malformed error object: {error!r}")
        code = error.get("code")
        message = error.get("message")
        if not isinstance(code, int) or isinstance(code, bool):
            code = ErrorCode.INTERNAL_ERROR
        return cls(
            code,
            message if isinstance(message, str) else "",
            error.get("data"),
        )

    @classmethod
    def parse_error(cls, detail: str) -> RpcError:
        return cls(ErrorCode.PARSE_ERROR, "Parse error", {"details": detail})

    @classmethod
    def invalid_request(cls, detail: str) -> RpcError:
        return cls(ErrorCode.INVALID_REQUEST, "Invalid request", {"details": detail})

    @classmethod
    def method_not_found(cls, method: str) -> RpcError:
        return cls(ErrorCode.METHOD_NOT_FOUND, "Method not found", {"method": method})

    @classmethod
    def invalid_params(cls, problems: list[Problem]) -> RpcError:
        return cls(ErrorCode.INVALID_PARAMS, "Invalid params", problems)

    @classmethod
    def internal_error(cls, detail: str) -> RpcError:
        return cls(ErrorCode.INTERNAL_ERROR, "Internal error", {"details": detail})

    @classmethod
    def request_cancelled(cls) -> RpcError:
        return cls(ErrorCode.REQUEST_CANCELLED, "Request cancelled")


class ConnectionClosed(RuntimeError):
    """The connection ended (end of stream, dead peer or `close()`) before an answer arrived."""


class MalformedUpdateError(ValueError):
    """A `session/update` payload with a known tag does not have the shape its merge rule needs."""

    def __init__(self, tag: str | None, problem: str) -> None:
        where = f"session update {tag!r}" if tag is not None else "session update"
        super().__init__(f"malformed {where}: {problem}")
        self.tag = tag
        self.problem = problem


class ProtocolUsageError(RuntimeError):
    """The local side tried something the protocol forbids in the current state
    (for example a prompt before initialization); nothing was sent."""


class UnsupportedProtocolVersion(ProtocolUsageError):
    """The peer answered `initialize` with a protocol version this side cannot use."""

    def __init__(self, answered: object, supported: tuple[int, ...], served: object = None) -> None:
        """`answered`: the version the agent answered (None when it refused with -32022, then
        `served` lists the versions it serves, as its error said)."""
        if answered is None and served is not None:
            message = (
                f"the agent serves protocol versions {served}, none of which this client "
                f"speaks ({list(supported)})"
            )
        else:
            message = (
                f"agent answered protocol version {answered!r}; this client supports "
                f"{list(supported)}"
            )
        super().__init__(message)
        self.answered = answered
        self.supported = supported
        self.served = served
