"""The inspector's web server (aiohttp): the page, its JSON API and its event stream. Every
request passes the shared `WebGuard` (Host, Origin, token) first; the handlers only read views
and call the source's actions, no protocol logic here."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import secrets
import time
from typing import Any, Protocol

from aiohttp import web

from ..._bindings._runtime.guard.web_guard import TOKEN_QUERY_PARAMETER, WebGuard
from .live import ActionError, LiveInspector
from .page import content_policy, render_page, report_page
from .traffic_log import TrafficLog, trace_pieces

DRAW_SECONDS = 0.1  # the most often the page is told of changes: only a drawing rate
RESENT_LINES = 8
MAX_BODY_BYTES = 12 * 1024 * 1024  # a prompt with an attachment, base64-encoded
NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
BATCH_LINES = 4096  # list entries encoded at a time
MAX_REPORT_LINES = 50_000  # an HTML report holds every record: a longer log is refused


class Source(Protocol):
    """What the page shows: a live agent or a replayed trace."""

    mode: str
    name: str
    log: TrafficLog

    def view(self, at: int | None = None, session_id: str | None = None) -> dict[str, Any]: ...


class Changes:
    """A counter the event streams wait on; bumped whenever the source may look different."""

    def __init__(self) -> None:
        self.version = 0
        self.closing = False
        self._event = asyncio.Event()

    def bump(self) -> None:
        self.version += 1
        self._event.set()

    async def wait(self, seen: int) -> None:
        while self.version == seen and not self.closing:
            self._event.clear()
            await self._event.wait()

    def close(self) -> None:
        self.closing = True
        self._event.set()


def make_app(source: Source, guard: WebGuard, changes: Changes) -> web.Application:
    @web.middleware
    async def guarded(request: web.Request, handler: Any) -> web.StreamResponse:
        refusal = guard.refusal(request.headers, request.query.get(TOKEN_QUERY_PARAMETER))
        if refusal is not None:
            return web.Response(status=refusal.status, text=refusal.reason + "\n", headers=NO_STORE)
        response: web.StreamResponse = await handler(request)
        return response

    app = web.Application(middlewares=[guarded], client_max_size=MAX_BODY_BYTES)
    handlers = Handlers(source, changes)
    app.router.add_get("/", handlers.page)
    app.router.add_get("/api/view", handlers.view)
    app.router.add_get("/api/traffic", handlers.traffic)
    app.router.add_get("/api/line", handlers.line)
    app.router.add_get("/api/events", handlers.events)
    app.router.add_get("/api/export/trace", handlers.export_trace)
    app.router.add_get("/api/export/html", handlers.export_html)
    app.router.add_post("/api/prompt", handlers.prompt)
    app.router.add_post("/api/cancel", handlers.cancel)
    app.router.add_post("/api/permission", handlers.permission)
    app.router.add_post("/api/session", handlers.session)
    return app


def _int(request: web.Request, name: str) -> int | None:
    value = request.query.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise web.HTTPBadRequest(text=f"{name} must be an integer") from None


class Handlers:
    def __init__(self, source: Source, changes: Changes) -> None:
        self.source = source
        self.changes = changes
        self.view_seconds = 0.0  # how long the last view took to build and encode

    async def page(self, request: web.Request) -> web.Response:
        nonce = secrets.token_urlsafe(16)
        headers = {**NO_STORE, "Content-Security-Policy": content_policy(nonce)}
        html = render_page(nonce=nonce)
        return web.Response(text=html, content_type="text/html", headers=headers)

    async def view(self, request: web.Request) -> web.Response:
        began = time.perf_counter()
        view = self.source.view(_int(request, "at"), request.query.get("session"))
        response = web.json_response(view, headers=NO_STORE)
        self.view_seconds = time.perf_counter() - began
        return response

    async def traffic(self, request: web.Request) -> web.StreamResponse:
        """The list's entries from `from` on, as one JSON array written in batches: a long
        trace's list is never built whole in memory."""
        start = max(0, _int(request, "from") or 0)
        response = web.StreamResponse(headers={**NO_STORE, "Content-Type": "application/json"})
        await response.prepare(request)
        lines = self.source.log.lines
        await response.write(b"[")
        for at in range(start, len(lines), BATCH_LINES):
            batch = [line.summary for line in lines[at : at + BATCH_LINES]]
            text = json.dumps(batch, separators=(",", ":"))[1:-1]  # ASCII: escapes kept
            await response.write(("," if at > start else "").encode() + text.encode())
        await response.write(b"]")
        await response.write_eof()
        return response

    async def line(self, request: web.Request) -> web.Response:
        index = _int(request, "n")
        lines = self.source.log.lines
        if index is None or not 0 <= index < len(lines):
            raise web.HTTPNotFound(text="no such line")
        line = lines[index]
        body = {"record": line.record, "summary": line.summary, "touches": touches(line.record)}
        return web.json_response(body, headers=NO_STORE)

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: `traffic` (new list entries) and `changed` (the state moved on;
        the page fetches the view when it is ready for one, so a slow page is sent fewer
        views, never a backlog), at most one of each per drawing interval."""
        response = web.StreamResponse(
            headers={**NO_STORE, "Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
        )
        await response.prepare(request)
        sent_lines, seen = _int(request, "from") or 0, -1
        with contextlib.suppress(ConnectionResetError, asyncio.CancelledError):
            while not self.changes.closing:
                await self.changes.wait(seen)
                seen = self.changes.version
                # The last few lines again: the runtime may have marked them since.
                start = max(0, sent_lines - RESENT_LINES)
                summaries = self.source.log.summaries(start)
                sent_lines = start + len(summaries)
                if summaries:
                    await _send(response, "traffic", summaries)
                await _send(response, "changed", seen)
                # A long session's view takes long to build: tell of changes less often, so
                # building views takes at most a third of the server's time.
                await asyncio.sleep(max(DRAW_SECONDS, 2 * self.view_seconds))
        return response

    async def export_trace(self, request: web.Request) -> web.StreamResponse:
        headers = {**NO_STORE, "Content-Disposition": 'attachment; filename="session.trace.jsonl"'}
        response = web.StreamResponse(headers={**headers, "Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        for piece in trace_pieces(self.source.log):  # a line at a time: never held whole
            await response.write(piece)
        await response.write_eof()
        return response

    async def export_html(self, request: web.Request) -> web.Response:
        if len(self.source.log) > MAX_REPORT_LINES:  # the page embeds every record
            raise web.HTTPRequestEntityTooLarge(
                max_size=MAX_REPORT_LINES,
                actual_size=len(self.source.log),
                text=f"over {MAX_REPORT_LINES} lines: too long for a page; export the trace",
            )
        at = _int(request, "at")
        report = {
            "view": self.source.view(at, request.query.get("session")),
            "traffic": self.source.log.summaries(),
            "records": [line.record for line in self.source.log.lines],
            # what each line changed, as `/api/line` says it: the report has no server to ask
            "touches": [touches(line.record) for line in self.source.log.lines],
        }
        html, _nonce = report_page(report)
        headers = {**NO_STORE, "Content-Disposition": 'attachment; filename="session.html"'}
        return web.Response(text=html, content_type="text/html", headers=headers)

    def _live(self) -> LiveInspector:
        if not isinstance(self.source, LiveInspector):
            raise web.HTTPConflict(text="a recorded trace cannot be driven")
        return self.source

    async def prompt(self, request: web.Request) -> web.Response:
        body = await _body(request)
        text, attachment = body.get("text"), body.get("attachment")
        if not isinstance(text, str) or not (attachment is None or isinstance(attachment, dict)):
            raise web.HTTPBadRequest(text="expected {text: string, attachment?: object}")
        return await self._act(lambda: self._live().prompt(text, attachment))

    async def cancel(self, request: web.Request) -> web.Response:
        return await self._act(self._live().cancel)

    async def permission(self, request: web.Request) -> web.Response:
        body = await _body(request)
        key, option = body.get("id"), body.get("optionId")
        if not isinstance(key, int) or not (option is None or isinstance(option, str)):
            raise web.HTTPBadRequest(text="expected {id: integer, optionId: string | null}")
        return await self._act(lambda: self._live().answer(key, option))

    async def session(self, request: web.Request) -> web.Response:
        """`{"new": true}`, `{"list": true}`, or one of use / resume / close / delete / fork
        with a session id."""
        body = await _body(request)
        live = self._live()
        if body.get("new") is True:
            return await self._act(live.new_session)
        if body.get("list") is True:
            return await self._act(live.list_sessions)
        actions: dict[str, Any] = {"use": live.use, "resume": live.resume}
        actions |= {"close": live.close, "delete": live.delete, "fork": live.fork}
        for name, action in actions.items():
            chosen = body.get(name)
            if isinstance(chosen, str):
                return await self._act(functools.partial(action, chosen))
        raise web.HTTPBadRequest(text="expected new, list, use, resume, close, delete or fork")

    async def _act(self, action: Any) -> web.Response:
        try:
            result = action()
            if asyncio.iscoroutine(result):
                await result
        except (ActionError, ValueError) as error:
            raise web.HTTPConflict(text=str(error)) from None
        self.changes.bump()
        return web.json_response({"ok": True}, headers=NO_STORE)


async def _body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise web.HTTPUnsupportedMediaType(text="send application/json")
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="the body is not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="the body must be a JSON object")
    return body


async def _send(response: web.StreamResponse, event: str, data: Any) -> None:
    text = json.dumps(data, separators=(",", ":"))  # ASCII: a lone surrogate stays an escape
    payload = f"event: {event}\ndata: {text}\n\n".encode("ascii")
    await response.write(payload)


def touches(record: dict[str, Any]) -> dict[str, Any] | None:
    """Which part of the state a `session/update` changes: the entity its merge rule names and
    the key it is filed under (read from the runtime's rule table; a v1 agent's tags that v2
    lacks from v1's, and v1's single plan is the plan `V1UpdateReader` files it under)."""
    from ..._bindings import merge_rules
    from ..._bindings._runtime.v1.constants import V1_PLAN, V1_PLAN_ID
    from ..._bindings._runtime.wire.jsonvalue import parse_pointer, resolve

    message = record.get("message")
    params = message.get("params") if isinstance(message, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    tag = update.get(merge_rules.UPDATE_TAG) if isinstance(update, dict) else None
    if not isinstance(tag, str):
        return None
    tables = [merge_rules.MERGE_RULES]
    with contextlib.suppress(ImportError):  # bindings generated without v1 have no such module
        from ..._bindings.v1 import merge_rules as v1_rules

        tables.append(v1_rules.MERGE_RULES)
    rule = next((table[tag] for table in tables if tag in table), None)
    if rule is None:
        return {"tag": tag, "entity": "plan", "key": V1_PLAN_ID} if tag == V1_PLAN else None
    key = resolve(update, parse_pointer(rule.key)) if rule.key else None
    return {"tag": tag, "entity": rule.entity, "key": key if isinstance(key, str) else None}
