"""`acp-codegen diff` on real pairs of schemas: upstream's published files and our own.

Every expectation was checked by hand against the files with jq (the comments say what the
files contain). The files are kept in tests/fixtures/upstream/ (see SOURCE.md there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from acp_codegen.commands.cli import main
from acp_codegen.commands.diff import CATEGORIES, Change, diff_files
from conftest import REPO, UPSTREAM
from test_schema_subagents import SUBAGENT_ITEMS

OURS = REPO / "schema" / "acp.schema.json"
V1 = UPSTREAM / "v1" / "schema.json"
SEED = UPSTREAM / "seed-source" / "v2-schema.json"
ALPHA3 = UPSTREAM / "v2" / "schema.json"
V240 = UPSTREAM / "sdk-2.4.0" / "schema.json"
OURS_V1 = REPO / "schema" / "acp.v1.schema.json"
V1_240 = UPSTREAM / "v1-2.4.0" / "schema.json"


def _need(*paths: Path) -> None:
    for path in paths:
        if not path.is_file():
            pytest.skip(f"{path} is absent")


def _find(changes: list[Change], category: str, subject: str, change: str) -> Change:
    found = [c for c in changes if (c.category, c.subject, c.change) == (category, subject, change)]
    assert len(found) == 1, f"{category} {subject} {change}: {found}"
    return found[0]


def test_v1_to_v2_drops_session_load_which_breaks_its_callers() -> None:
    _need(V1, ALPHA3)
    changes = diff_files(V1, ALPHA3)
    # v1: LoadSessionRequest/Response carry x-method session/load, x-side agent; v2 has neither.
    load = _find(changes, "methods", "session/load", "removed")
    assert load.breaks == ("client",)
    assert load.old == "agent request: LoadSessionRequest -> LoadSessionResponse"
    # fs/read_text_file was handled by the client: an agent built on v1 calls it.
    assert _find(changes, "methods", "fs/read_text_file", "removed").breaks == ("agent",)
    # v1 PromptResponse requires stopReason; v2's has only _meta: a v1 client expects it.
    stop = _find(changes, "fields", "PromptResponse.stopReason", "removed")
    assert stop.breaks == ("client",)
    # v1 SessionUpdate is a closed oneOf; v2 adds state_update and an `other` fallback.
    assert _find(changes, "session-updates", "state_update", "added").breaks == ("client",)
    assert _find(changes, "session-updates", "SessionUpdate", "became-open").breaking
    # v1 ToolCallStatus: closed oneOf of 4 consts; v2 adds "cancelled".
    assert _find(changes, "enum-values", "ToolCallStatus", "added").new == "cancelled"
    # session/cancel: CancelNotification renamed CancelSessionNotification, same shape.
    cancel = _find(changes, "methods", "session/cancel", "params-changed")
    assert (cancel.old, cancel.new, cancel.breaking) == (
        "CancelNotification",
        "CancelSessionNotification",
        False,
    )


def test_seed_page_v2_to_alpha3() -> None:
    _need(SEED, ALPHA3)
    changes = diff_files(SEED, ALPHA3)
    # alpha.3 adds the elicitation methods, handled by the client.
    create = _find(changes, "methods", "elicitation/create", "added")
    assert (create.new, create.breaking) == (
        "client request: CreateElicitationRequest -> CreateElicitationResponse",
        False,
    )
    # DiffPatch: required [format, diff] became [format, text]. The agent writes it.
    assert _find(changes, "fields", "DiffPatch.diff", "removed").breaks == ("client",)
    assert _find(changes, "fields", "DiffPatch.text", "added-required").breaks == ("agent",)
    # NewSessionRequest.cwd: {"type": "string"} became a ref to AbsolutePath, itself a string.
    cwd = _find(changes, "fields", "NewSessionRequest.cwd", "type-renamed")
    assert (cwd.old, cwd.new, cwd.breaking) == ("string", "AbsolutePath", False)
    assert not [c for c in changes if c.category == "types" and c.change == "removed"]
    breaking = sorted(c.subject for c in changes if c.breaking)
    assert breaking == ["DiffPatch.diff", "DiffPatch.text"]


def test_alpha3_to_2_4_0_prompt_response_gains_a_required_message_id() -> None:
    _need(ALPHA3, V240)
    changes = diff_files(ALPHA3, V240)
    # 2.4.0 PromptResponse: required ["messageId"]; alpha.3 has only _meta. The agent sends it.
    message_id = _find(changes, "fields", "PromptResponse.messageId", "added-required")
    assert (message_id.new, message_id.breaks) == ("MessageId", ("agent",))
    # ToolCallStatus gains "paused"; it is an open enum (fallback branch), so compatible.
    paused = _find(changes, "enum-values", "ToolCallStatus", "added")
    assert (paused.new, paused.breaking) == ("paused", False)
    assert not _find(changes, "methods", "terminal/cancel", "added").breaking
    assert not _find(changes, "session-updates", "notice", "added").breaking
    # StopReason (an open enum of strings) is gone; IdleStateUpdate.stopReason is a string now.
    assert not _find(changes, "fields", "IdleStateUpdate.stopReason", "type-renamed").breaking
    assert not _find(changes, "types", "StopReason", "removed").breaking


# What the canonical schema has beyond SDK 2.4.0: upstream's v2 items published after it (each
# cited in docs/design.md, section 5, "Beyond 2.4.0"), as `acp-codegen diff 2.4.0 OURS` lists
# them: (category, subject, change). Add a row here with each item brought in.
POST_2_4_0: frozenset[tuple[str, str, str]] = frozenset(
    {
        # idempotent prompts
        ("types", "IdempotencyKey", "added"),
        ("fields", "PromptRequest.idempotencyKey", "added"),
        # the end of a resume's replay
        ("types", "ReplayComplete", "added"),
        ("session-updates", "replay_complete", "added"),
    }
    # subagents, messages between sessions, plan removal (tests/test_schema_subagents.py)
    | SUBAGENT_ITEMS
)


def test_our_schema_is_upstreams_v2_2_4_0_plus_what_upstream_added_since() -> None:
    """The canonical schema follows upstream's v2 as SDK 2.4.0 publishes it plus exactly the
    items upstream added after it (`POST_2_4_0`), none of them breaking: what else we add is
    ours (x- keywords, titles, descriptions; the structural differences that are not protocol
    changes are listed in docs/design.md, section 5)."""
    _need(V240)
    forward = diff_files(V240, OURS)
    assert {(c.category, c.subject, c.change) for c in forward} == POST_2_4_0
    assert len(forward) == len(POST_2_4_0)
    assert not any(c.breaking for c in forward)
    # Back to 2.4.0, the same items are the ones missing, and nothing else differs.
    back = {(c.category, c.subject) for c in diff_files(OURS, V240)}
    assert back == {(category, subject) for category, subject, _ in POST_2_4_0}
    # ...and the draft it started from is behind by breaking changes: the prompt receipt and
    # the required elicitation schema fields (typed error data is not one: its open branch
    # accepts anything).
    breaking = {c.subject for c in diff_files(ALPHA3, OURS) if c.breaking}
    assert breaking == {
        "PromptResponse.messageId",
        "ElicitationSchema.properties",
        "ElicitationSchema.type",
    }


def test_cli_exit_codes_on_real_pairs(capsys: pytest.CaptureFixture[str]) -> None:
    _need(V1, ALPHA3, V240)
    assert main(["diff", str(V1), str(ALPHA3)]) == 1
    assert "session/load" in capsys.readouterr().out
    assert main(["diff", str(V240), str(V240)]) == 0
    assert capsys.readouterr().out == f"no changes from {V240} to {V240}\n"
    assert main(["diff", str(V240), str(OURS)]) == 0
    capsys.readouterr()


def test_our_v1_schema_is_upstreams_v1_as_2_4_0_ships_it() -> None:
    """schema/acp.v1.schema.json is upstream's v1 with our words: no field is lost on the way,
    not even one named like the keyword whose text is replaced (`description`: fifteen types
    carry one, and `AvailableCommand` requires it)."""
    _need(V1_240)
    assert diff_files(V1_240, OURS_V1) == []
    assert diff_files(OURS_V1, V1_240) == []
    command = json.loads(OURS_V1.read_text(encoding="utf-8"))["$defs"]["AvailableCommand"]
    assert command["properties"]["description"]["type"] == "string"
    assert "description" in command["required"]


def test_cli_finds_no_change_from_2_4_0_in_v1_and_only_the_later_items_in_v2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _need(V1_240, V240)
    assert main(["diff", str(V1_240), str(OURS_V1)]) == 0
    assert capsys.readouterr().out == f"no changes from {V1_240} to {OURS_V1}\n"
    assert main(["diff", str(V240), str(OURS)]) == 0  # nothing breaking
    out = capsys.readouterr().out
    assert out.endswith(
        f"{len(POST_2_4_0)} change(s) from {V240} to {OURS}: 0 breaking, "
        f"{len(POST_2_4_0)} compatible\n"
    )
    for _, subject, _ in POST_2_4_0:
        assert subject in out


# One process per hash seed renders both formats from one diff, with the renderers `diff --format`
# prints through:
# loading the two schemas is nearly all of a diff's time, and what the seed could reorder
# (loading, comparing, rendering) runs in each.
_BOTH_FORMATS = """
import sys
from pathlib import Path
from acp_codegen.commands.diff import diff_files
from acp_codegen.commands.diff.render import as_json, as_text
old, new = sys.argv[1:3]
changes = diff_files(Path(old), Path(new))
sys.stdout.write(as_text(changes, old, new) + "\\0" + as_json(changes, old, new))
"""


def test_output_is_the_same_bytes_whatever_the_hash_seed() -> None:
    _need(ALPHA3, V240)
    outputs = set()
    for seed in ("0", "1", "12345"):
        proc = subprocess.run(
            [sys.executable, "-c", _BOTH_FORMATS, str(ALPHA3), str(V240)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
        )
        outputs.add(proc.stdout)
    assert len(outputs) == 1
    text, json_text = outputs.pop().split("\0")
    assert "PromptResponse.messageId" in text
    doc = json.loads(json_text)
    order = list(CATEGORIES)
    keys = [
        (order.index(c["category"]), c["subject"], c["change"], c["old"] or "", c["new"] or "")
        for c in doc["changes"]
    ]
    assert keys == sorted(set(keys))  # grouped, sorted, no duplicates
    assert len(keys) == doc["breaking"] + doc["compatible"] > 0


def _sdk(version: str) -> Path:
    return UPSTREAM / f"sdk-{version}" / "schema.json"


def test_2_1_0_to_2_2_0_error_data_is_not_narrowed_by_its_open_branch() -> None:
    # 2.1.0: Error.data has no schema (any value). 2.2.0: `ErrorData|null`, where ErrorData is
    # anyOf [UnsupportedProtocolVersion, SessionNotFound, {"title": "Other"}]: the last branch
    # accepts any value, so both accept the same.
    _need(_sdk("2.1.0"), _sdk("2.2.0"))
    changes = diff_files(_sdk("2.1.0"), _sdk("2.2.0"))
    data = _find(changes, "fields", "Error.data", "type-renamed")
    assert (data.old, data.new, data.breaks) == ("any", "ErrorData|null", ())
    # What does break: 2.1.0 let an agent omit the elicitation schema's `type` ("omitted means
    # object") and `properties` (default {}); 2.2.0 requires both. Agents send that schema.
    for prop in ("type", "properties"):
        assert _find(changes, "fields", f"ElicitationSchema.{prop}", "became-required").breaks == (
            "agent",
        )
    assert sorted(c.subject for c in changes if c.breaking) == [
        "ElicitationSchema.properties",
        "ElicitationSchema.type",
    ]


def test_a_change_to_the_error_object_breaks_both_sides(tmp_path: Path) -> None:
    # Both sides answer requests, so both send errors (the envelopes AgentResponse and
    # ClientResponse name Error), though only the agent sends it inside a message too.
    _need(_sdk("2.2.0"))
    doc = json.loads(_sdk("2.2.0").read_text(encoding="utf-8"))
    doc["$defs"]["Error"]["properties"]["data"] = {"type": "string"}
    narrowed = tmp_path / "narrowed.json"
    narrowed.write_text(json.dumps(doc), encoding="utf-8")
    changes = diff_files(_sdk("2.2.0"), narrowed)
    assert _find(changes, "fields", "Error.data", "type-narrowed").breaks == ("agent", "client")


@pytest.mark.parametrize(
    ("old", "new", "breaking"),
    [
        ("2.0.1", "2.0.2", None),
        ("2.0.2", "2.1.0", []),
        ("2.2.0", "2.3.0", []),
        ("2.3.0", "2.4.0", None),
    ],
)
def test_consecutive_releases(old: str, new: str, breaking: list[str] | None) -> None:
    # None: the two releases ship the same file. The rest add methods, types and optional
    # fields only (checked by hand), none of which breaks a peer built on the older one.
    _need(_sdk(old), _sdk(new))
    changes = diff_files(_sdk(old), _sdk(new))
    if breaking is None:
        assert changes == []
    else:
        assert changes and [c.subject for c in changes if c.breaking] == breaking
