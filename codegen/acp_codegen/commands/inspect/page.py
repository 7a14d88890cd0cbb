"""The page: one HTML file with its stylesheet and script inlined (package data, no build step,
nothing fetched from elsewhere), under a content security policy that lets only that script run.
The same page, with the data embedded instead of a server behind it, is the HTML report."""

from __future__ import annotations

import json
import secrets
from importlib import resources
from typing import Any

PAGE, STYLE, SCRIPT = "page.html", "page.css", "page.js"


def _asset(name: str) -> str:
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


def content_policy(nonce: str) -> str:
    """Only our inline script and style; requests only to this server; no frames, no forms
    posting elsewhere, no plugins. Agent text that somehow became markup still could not run."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
        "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def script_json(data: Any) -> str:
    """JSON safe inside a `<script type="application/json">` element: nothing in it can close
    the element or open a comment (`<`, `>`, `&` are escaped), and all of it is ASCII, so even a
    lone surrogate the agent sent survives the page's encoding as its escape."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(*, nonce: str, report: Any | None = None) -> str:
    """The page; with `report` (the data of an exported session), a page that needs no server."""
    embedded = "" if report is None else script_json(report)
    return (
        _asset(PAGE)
        .replace("{{NONCE}}", nonce)
        .replace("{{STYLE}}", _asset(STYLE))
        .replace("{{SCRIPT}}", _asset(SCRIPT))
        .replace("{{REPORT}}", embedded)
    )


def report_page(report: Any) -> tuple[str, str]:
    """A self-contained HTML report and the policy that goes in its own `<meta>` tag."""
    nonce = secrets.token_urlsafe(16)
    html = render_page(nonce=nonce, report=report)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{content_policy(nonce)}">'
    return html.replace("<!--POLICY-->", meta, 1), nonce
