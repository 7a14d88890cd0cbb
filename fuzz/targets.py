"""Coverage-guided fuzz targets (atheris): the frame parser, the connection with its dispatcher,
and the schema loader. Run one with `python fuzz/targets.py TARGET [libFuzzer flags]`, or all
of them for a time budget with `python fuzz/run.py`.

A target fails (and libFuzzer saves the input) only on a real bug: an exception other than the
documented error for bad input, a reply that is not JSON-RPC, or two replies to one request.
"""

from __future__ import annotations

import ast
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import atheris
from pydantic import BaseModel

# Only our own code is instrumented: instrumented pydantic crashes the interpreter (a segfault
# inside atheris' bytecode rewriting, not in anything this project controls).
with atheris.instrument_imports(include=["acp_codegen"]):
    from acp_codegen.commands.pipeline import load_protocol, render_tree
    from acp_codegen.emit.render import Target
    from acp_codegen.model.errors import SchemaError
    from acp_codegen.runtime.rpc.connection import Connection
    from acp_codegen.runtime.rpc.dispatch import TableDispatcher
    from acp_codegen.runtime.rpc.messages import Invalid, Notification, Request, Response, classify
    from acp_codegen.runtime.wire.line_framing import (
        LineReader,
        LineTooLong,
        decode_line,
        encode_json,
    )
    from acp_codegen.runtime.wire.tables import MethodSpec

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = [
    REPO / "tests" / "fixtures" / "schemas" / n for n in ("request.json", "tagged_union.json")
]

# -- frames -------------------------------------------------------------------------------------


def frames(data: bytes) -> None:
    """Bytes -> lines -> JSON -> message kinds; encoding what decoded gives it back."""

    async def read_all() -> None:
        reader = asyncio.StreamReader()
        for start in range(0, len(data), 7):  # odd chunk size: lines split across reads
            reader.feed_data(data[start : start + 7])
        reader.feed_eof()
        lines = LineReader(reader, max_line_bytes=256)
        while True:
            try:
                line = await lines.read_line()
            except LineTooLong:
                continue
            if line is None:
                return
            try:
                payload = decode_line(line)
            except ValueError:
                continue
            assert decode_line(encode_json(payload)) == payload
            for item in payload if isinstance(payload, list) else [payload]:
                kind = classify(item)
                assert isinstance(kind, Request | Notification | Response | Invalid)

    asyncio.run(read_all())


# -- dispatch -----------------------------------------------------------------------------------


class Text(BaseModel):
    text: str
    count: int = 1


class Handler:
    async def echo(self, *, params: Text) -> dict[str, Any]:
        return {"text": params.text * min(params.count, 3)}

    async def boom(self, *, params: Text) -> None:
        raise RuntimeError("boom")

    async def note(self, *, params: Text) -> None:
        return None


METHODS = {
    name: MethodSpec(name, "agent", kind, Text, None, name)  # type: ignore[arg-type]
    for name, kind in (("echo", "request"), ("boom", "request"), ("note", "notification"))
}


class Sink:
    def __init__(self) -> None:
        self.data = bytearray()
        self.closed = False

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def _served(data: bytes) -> list[Any]:
    """Serve `data` to a connection; its answers (ids), each checked to be JSON-RPC in UTF-8.
    No exception may escape."""

    async def serve() -> list[Any]:
        escaped: list[Any] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: escaped.append(ctx))
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        sink = Sink()
        connection = Connection(reader, sink, TableDispatcher(METHODS, Handler()))
        await connection.run()
        assert not escaped, escaped
        return [json.loads(line.decode("utf-8")) for line in sink.data.splitlines()]

    answered: list[Any] = []
    for reply in asyncio.run(serve()):
        for item in reply if isinstance(reply, list) else [reply]:
            assert item["jsonrpc"] == "2.0" and ("result" in item) != ("error" in item), item
            answered.append(item["id"])
    return answered


def dispatch(data: bytes) -> None:
    """Whatever arrives: no exception escapes, every line out is a JSON-RPC message, no request
    id is answered twice (ids the input reuses excepted)."""
    answered = [json.dumps(i) for i in _served(data) if i is not None]
    repeated = {i for i in answered if answered.count(i) > 1}
    sent = _ids_sent(data)
    assert all(sent.count(i) > 1 for i in repeated), repeated


def _ids_sent(data: bytes) -> list[str]:
    """The ids of the messages in `data`, as JSON reads them (`"\\udC00"` is `"\\udc00"`)."""
    ids: list[str] = []
    for line in data.split(b"\n"):
        try:
            payload = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        for item in payload if isinstance(payload, list) else [payload]:
            if isinstance(item, dict) and "id" in item:
                ids.append(json.dumps(item["id"]))
    return ids


# -- messages: well-formed frames whose text is any JSON string -----------------------------------

# Lone surrogates, NUL, beyond the BMP, JSON's escapes: what breaks encoders, drawn often.
AWKWARD = ["\ud800", "\udfff", "\udc00\ud800", "\x00", "\U0001f600", "\U0010ffff", '"', "\\"]


def _text(fdp: atheris.FuzzedDataProvider) -> str:
    """Any JSON string (`ConsumeUnicode` yields lone surrogates too)."""
    head = fdp.PickValueInList(AWKWARD) if fdp.ConsumeBool() else ""
    return head + fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 8))


def _call(fdp: atheris.FuzzedDataProvider, number: int) -> tuple[dict[str, Any], Any]:
    """A request (or, for id None, a notification) and the id its answer must carry."""
    method = fdp.PickValueInList(sorted(METHODS)) if fdp.ConsumeBool() else _text(fdp)
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    shape = fdp.ConsumeIntInRange(0, 3)
    if shape == 1:
        message["params"] = {"text": _text(fdp)}
    elif shape == 2:
        message["params"] = {_text(fdp): _text(fdp), "text": _text(fdp), "count": 2}
    elif shape == 3:
        message["params"] = [_text(fdp)]
    if fdp.ConsumeIntInRange(0, 4) == 0:
        return message, None
    # Unique ids: the number ends at the first colon. JSON reads an escaped high and low
    # surrogate pair back as one character, so the expected id is what JSON reads.
    request_id = number if fdp.ConsumeBool() else json.loads(json.dumps(f"{number}:{_text(fdp)}"))
    message["id"] = request_id
    return message, request_id


def _line(fdp: atheris.FuzzedDataProvider, message: Any) -> bytes:
    if fdp.ConsumeBool():
        return json.dumps(message).encode()  # every non-ASCII character escaped
    try:
        return json.dumps(message, ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 for it, so escaped it is
        return json.dumps(message).encode()


def messages(data: bytes) -> None:
    """Requests, notifications and batches of them, with any text in ids, method names and
    params: every request is answered exactly once, in valid UTF-8."""
    fdp = atheris.FuzzedDataProvider(data)
    lines: list[bytes] = []
    owed: list[str] = []
    for number in range(fdp.ConsumeIntInRange(1, 6)):
        calls = [_call(fdp, number * 10 + i) for i in range(fdp.ConsumeIntInRange(1, 3))]
        owed += [json.dumps(request_id) for _, request_id in calls if request_id is not None]
        batch = len(calls) > 1 or fdp.ConsumeBool()
        lines.append(_line(fdp, [m for m, _ in calls] if batch else calls[0][0]))
    answered = [json.dumps(i) for i in _served(b"".join(line + b"\n" for line in lines))]
    assert sorted(answered) == sorted(owed), (answered, owed)


# -- schema -------------------------------------------------------------------------------------

HOSTILE = ['"""', "'''", "\\", "\n", "#", "\x00", "\u202e", "class", "__init__", "_meta", "a-b"]


def _value(fdp: atheris.FuzzedDataProvider, depth: int = 0) -> Any:
    kind = fdp.ConsumeIntInRange(0, 9 if depth < 3 else 4)
    if kind == 0:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    if kind == 1:
        return fdp.PickValueInList(HOSTILE) + fdp.ConsumeUnicodeNoSurrogates(4)
    if kind == 2:
        return fdp.ConsumeIntInRange(-3, 3)
    if kind == 3:
        return fdp.PickValueInList([None, True, False, 1.5])
    if kind == 4:
        return {"type": fdp.PickValueInList(["string", "object", "array", "null", "integer"])}
    if kind == 5:
        name = fdp.PickValueInList(["SessionId", "Shape", "Circle", "Nope", "RenameSessionRequest"])
        return {"$ref": f"#/$defs/{name}"}
    if kind == 6:
        return [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))]
    if kind == 7:
        key = fdp.PickValueInList(["anyOf", "allOf", "oneOf"])
        return {key: [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(1, 3))]}
    if kind == 8:
        props = {_key(fdp): _value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))}
        return {"type": "object", "properties": props}
    return {_key(fdp): _value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))}


def _key(fdp: atheris.FuzzedDataProvider) -> str:
    keys = ["title", "description", "const", "enum", "type", "properties", "required", "$ref"]
    keys += ["x-union", "x-merge", "x-method", "x-side", "default", "items", "$id", "format"]
    if fdp.ConsumeBool():
        return str(fdp.PickValueInList(keys))
    return fdp.PickValueInList(HOSTILE) + fdp.ConsumeUnicodeNoSurrogates(6)


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            found += _places(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            found += _places(v, (*path, i))
    return found


def _mutated(fdp: atheris.FuzzedDataProvider) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(fdp.PickValueInList(SCHEMAS).read_text(encoding="utf-8"))
    for _ in range(fdp.ConsumeIntInRange(1, 4)):
        places = _places(doc)
        path = places[fdp.ConsumeIntInRange(0, len(places) - 1)]
        if not path:
            continue
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        op = fdp.ConsumeIntInRange(0, 2)
        if op == 0:
            parent[path[-1]] = _value(fdp)
        elif op == 1 and isinstance(parent, dict):
            del parent[path[-1]]
        elif op == 2 and isinstance(parent, dict):
            parent[_key(fdp)] = _value(fdp)
    return doc


def schema(data: bytes) -> None:
    """A mutated fixture schema: SchemaError or a tree of Python files that parse."""
    fdp = atheris.FuzzedDataProvider(data)
    doc = _mutated(fdp)
    render = fdp.ConsumeIntInRange(0, 15) == 0  # rendering takes a second: one input in 16
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "schema.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        try:
            protocol = load_protocol(path)
            if render:
                files = render_tree(protocol, Target(package="fuzzed", command="x"))
                for rel, text in files.items():
                    if rel.endswith(".py"):
                        ast.parse(text)
        except SchemaError:
            pass


TARGETS = {"frames": frames, "dispatch": dispatch, "messages": messages, "schema": schema}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(f"usage: {sys.argv[0]} {{{','.join(TARGETS)}}} [libFuzzer flags]")
    target = TARGETS[sys.argv.pop(1)]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
