"""Protocol names -> Python identifiers; every name that reaches generated code passes here."""

from __future__ import annotations

import builtins
import keyword
import re

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# JSON may carry a lone surrogate (`"\ud800"`); json.loads pairs the ones that make a character.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# Names the generated models module binds itself (imports, the root alias `JsonValue`) or uses
# from builtins: a schema type of the same name would shadow them.
RESERVED_NAMES = frozenset(
    {
        "Annotated",
        "Any",
        "BaseModel",
        "ConfigDict",
        "Discriminator",
        "Field",
        "Literal",
        "JsonValue",
        "MISSING",
        "RootModel",
        "Tag",
        "TypeAdapter",
        "TypeAliasType",
        "annotations",
        *dir(builtins),
    }
)


# Members the generated `Agent`, `Client` and proxy classes define for themselves: a method
# whose handler name is one of these would silently replace it (tests check this list against
# the generated classes).
RESERVED_HANDLER_NAMES = frozenset(
    {
        "agent",
        "auth_methods",
        "capabilities",
        "client",
        "connect",
        "connection_dispatcher",
        "dispatcher",
        "durable_sessions",
        "ext_method",
        "ext_notification",
        "history_limit",
        "info",
        "lifecycle",
        "load_session",
        "on_close_session",
        "on_delete_session",
        "on_fork_session",
        "on_new_session",
        "on_permission",
        "on_prompt",
        "on_resume_session",
        "peer",
        "protocol_versions",
        "reconnect",
        "run",
        "run_http",
        "serve_http",
        "serve_stdio",
        "served_sessions",
        "session_store",
        "spawn",
        "stored_sessions",
        "strict",
        "web_app",
    }
)


def is_class_name(name: str) -> bool:
    """An identifier that may name a generated model without shadowing anything."""
    return is_identifier(name) and not name.startswith("_") and name not in RESERVED_NAMES


def docstring_text(text: str) -> str:
    """Schema text made safe inside a triple-quoted docstring (no escapes, no closing quotes)."""
    escaped = surrogates_named(text).encode("unicode_escape").decode("ascii")
    return escaped.replace('"', '\\"')


def surrogates_named(text: str, backslash: str = "\\") -> str:
    """`text` with each lone surrogate written as its escape, as text (`backslash` + `ud800`).

    One cannot stand in a source file (UTF-8 cannot encode it), and Python 3.13 refuses to
    compile a docstring whose value holds one even as an escape: generated docstrings show it
    as the schema wrote it instead. String constants keep the character itself (an escape)."""
    return LONE_SURROGATE.sub(lambda found: f"{backslash}u{ord(found.group()):04x}", text)


def is_identifier(name: str) -> bool:
    """True when `name` is a plain ASCII Python identifier that is not a keyword."""
    return bool(_IDENTIFIER.match(name)) and not keyword.iskeyword(name)


def pascal(text: str) -> str:
    """`tool_call_update` -> `ToolCallUpdate`; `AgentMessage` stays as it is."""
    words = []
    for word in _WORD.findall(text):
        for part in _CAMEL_BOUNDARY.split(word):
            words.append(part[:1].upper() + part[1:])
    name = "".join(words)
    return name if name and not name[0].isdigit() else "N" + name


def snake(text: str) -> str:
    """`session/set_config_option` -> `session_set_config_option`; `$/x_y` -> `x_y`."""
    words: list[str] = []
    for word in _WORD.findall(text):
        words.extend(part.lower() for part in _CAMEL_BOUNDARY.split(word))
    name = "_".join(words)
    if not name or name[0].isdigit():
        name = "m_" + name
    return name + "_" if keyword.iskeyword(name) else name


def method_handler(wire: str, kind: str, requests: set[str]) -> str:
    """The Python name of a method: a notification that shares its wire name with a request
    (upstream's `mcp/message`, one each way) gets `_notification` after it."""
    twin = kind == "notification" and wire in requests
    return snake(wire) + ("_notification" if twin else "")
