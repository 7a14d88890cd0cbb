"""The unstable overlays (schema/acp.unstable.schema.json, schema/acp.v1.unstable.schema.json):
current with their build script, exactly upstream's unstable difference, in our own words, and
merged only when asked (`--unstable`, `unstable = true`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp_codegen.commands.config import load_settings
from acp_codegen.commands.pipeline import load_protocol, loading
from acp_codegen.commands.targets import UsageError
from acp_codegen.commands.where import Where
from acp_codegen.load.unstable import MARK, merge_unstable
from acp_codegen.model.errors import SchemaError
from conftest import REPO, UPSTREAM, load_script

SCHEMAS = {2: REPO / "schema" / "acp.schema.json", 1: REPO / "schema" / "acp.v1.schema.json"}
OVERLAYS = {
    2: REPO / "schema" / "acp.unstable.schema.json",
    1: REPO / "schema" / "acp.v1.unstable.schema.json",
}
UPSTREAM_FILES = {2: UPSTREAM / "sdk-2.4.0", 1: UPSTREAM / "v1-2.4.0"}
# Left to the stable v2 work (their merge rules come with it): the session-update variants,
# but for v1's subagent ones (`V1_SUBAGENT_TAGS`), which only v1's overlay carries.
V1_SUBAGENT_TAGS = {"subagent_update", "session_message", "session_message_chunk"}
LEFT_OUT = {"plan_update", "plan_removed"} | V1_SUBAGENT_TAGS


def read(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def upstream_methods(defs: dict[str, Any]) -> set[tuple[str, str]]:
    """(wire name, kind) of every method a definition names."""
    return {
        (d["x-method"], "notification" if name.endswith("Notification") else "request")
        for name, d in defs.items()
        if isinstance(d, dict) and "x-method" in d
    }


def tag_of(branch: Any) -> tuple[str, str] | None:
    """(tag property, value) of a tagged union branch, else None."""
    for name, sub in (branch.get("properties") or {}).items():
        if isinstance(sub, dict) and isinstance(sub.get("const"), str):
            return name, sub["const"]
    return None


def descriptions(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                found.append(value)
            else:
                found += descriptions(value)
    elif isinstance(node, list):
        for value in node:
            found += descriptions(value)
    return found


def test_the_overlays_are_what_the_build_script_writes() -> None:
    script = load_script("build_unstable_schema")
    for version, path in OVERLAYS.items():
        assert script.build(version) == path.read_bytes(), "run scripts/build_unstable_schema.py"


@pytest.mark.parametrize("version", [2, 1])
def test_merged_the_schema_has_every_unstable_method_of_upstream(version: int) -> None:
    """Canonical + overlay offers exactly the methods upstream's unstable file does."""
    merged, _ = merge_unstable(read(SCHEMAS[version]), OVERLAYS[version], "schema")
    stable = read(UPSTREAM_FILES[version] / "schema.json")["$defs"]
    unstable = read(UPSTREAM_FILES[version] / "schema.unstable.json")["$defs"]
    new = upstream_methods(unstable) - upstream_methods(stable)
    assert ("session/fork", "request") in new and ("auth/status_update", "notification") in new
    new |= AFTER_240_METHODS[version]
    assert (
        upstream_methods(merged["$defs"]) - upstream_methods(read(SCHEMAS[version])["$defs"]) == new
    )
    if version == 2:  # the method table lists them too, one row per wire name and kind
        rows = {(row["method"], row["kind"]) for row in merged["x-methods"]}
        assert new <= rows


# The methods of our after-2.4.0 table (schema/unstable-after-2.4.0.json): the model selection
# of older v1 unstable files, which gemini-cli and qwen-code still use.
AFTER_240_METHODS: dict[int, set[tuple[str, str]]] = {
    2: set(),
    1: {("session/set_model", "request")},
}


@pytest.mark.parametrize("version", [2, 1])
def test_merged_the_schema_has_the_prompt_suggestions_update(version: int) -> None:
    """`prompt_suggestions_update` (upstream after 2.4.0, v1 and v2) is a session-update branch
    of the merged schema, its suggestions prompts of content blocks, gated by the client's
    `session.promptSuggestions`; on v2 it replaces the session's `promptSuggestions` slot."""
    merged = merge_unstable(read(SCHEMAS[version]), OVERLAYS[version], "schema")[0]["$defs"]
    union = merged["SessionUpdate"].get("anyOf") or merged["SessionUpdate"]["oneOf"]
    branch = next(b for b in union if tag_of(b) == ("sessionUpdate", "prompt_suggestions_update"))
    assert branch["x-unstable"] is True
    assert branch["allOf"] == [{"$ref": "#/$defs/PromptSuggestionsUpdate"}]
    update = merged["PromptSuggestionsUpdate"]
    assert update["required"] == ["suggestions"]
    assert update["properties"]["suggestions"]["items"] == {"$ref": "#/$defs/PromptSuggestion"}
    assert merged["PromptSuggestion"]["required"] == ["prompt"]
    assert merged["PromptSuggestion"]["properties"]["prompt"]["items"]["$ref"].endswith(
        "/ContentBlock"
    )
    session = merged["ClientSessionCapabilities"]["properties"]["promptSuggestions"]
    assert {"$ref": "#/$defs/PromptSuggestionsCapabilities"} in session["anyOf"]
    caps = merged["PromptSuggestionsCapabilities"]["properties"]
    assert {"image", "audio", "embeddedContext", "_meta"} == set(caps)
    if version == 2:
        assert "session" in merged["ClientCapabilities"]["properties"]
        rule = {"entity": "promptSuggestions", "op": "replace", "from": "/suggestions"}
        assert branch["x-merge"] == rule


def test_the_v1_overlay_has_the_model_selection() -> None:
    """v1: `models` on the session setup answers and `session/set_model`, shaped as the model
    selection gemini-cli and qwen-code send."""
    merged = merge_unstable(read(SCHEMAS[1]), OVERLAYS[1], "schema")[0]["$defs"]
    for answer in ("NewSessionResponse", "LoadSessionResponse", "ResumeSessionResponse"):
        models = merged[answer]["properties"]["models"]
        assert {"$ref": "#/$defs/SessionModelState"} in models["anyOf"], answer
    state = merged["SessionModelState"]
    assert state["required"] == ["availableModels", "currentModelId"]
    assert state["properties"]["availableModels"]["items"] == {"$ref": "#/$defs/ModelInfo"}
    assert merged["ModelInfo"]["required"] == ["modelId", "name"]
    assert set(merged["ModelInfo"]["properties"]) == {"modelId", "name", "description", "_meta"}
    request = merged["SetSessionModelRequest"]
    assert (request["x-method"], request["x-side"]) == ("session/set_model", "agent")
    assert request["required"] == ["sessionId", "modelId"]
    assert "SessionModelState" not in read(OVERLAYS[2])["$defs"]


def test_the_v1_overlay_carries_upstreams_v1_subagent_updates() -> None:
    """v1: `subagent_update`, `session_message` and `session_message_chunk` are session-update
    branches of the merged schema, shaped as upstream's v1 unstable file has them (its words
    aside), and the client's `subagents` capability gates them."""
    merged = merge_unstable(read(SCHEMAS[1]), OVERLAYS[1], "schema")[0]["$defs"]
    theirs = read(UPSTREAM_FILES[1] / "schema.unstable.json")["$defs"]
    union = merged["SessionUpdate"].get("anyOf") or merged["SessionUpdate"]["oneOf"]
    tags = {tag[1]: b for b in union if (tag := tag_of(b)) is not None}
    for tag, name in (
        ("subagent_update", "SubagentUpdate"),
        ("session_message", "SessionMessage"),
        ("session_message_chunk", "SessionMessageChunk"),
    ):
        assert tags[tag]["x-unstable"] is True
        assert tags[tag]["allOf"] == [{"$ref": f"#/$defs/{name}"}]
        assert merged[name]["required"] == theirs[name]["required"], name
        assert set(merged[name]["properties"]) == set(theirs[name]["properties"]), name
    assert "plan_removed" not in tags and "plan_update" not in tags
    capability = merged["ClientCapabilities"]["properties"]["subagents"]
    assert {"$ref": "#/$defs/SubagentCapabilities"} in capability["anyOf"]


# What upstream's unstable files have and the merged schema does not: the message envelopes
# (our method table replaces them), and on v1 the plan variants v2's canonical schema has
# (upstream after 2.4.0: plan removal, plans with ids) with what only they use, which the v1
# schema does not take up (v1's subagents it does: `V1_SUBAGENT_TAGS`).
PROXY_ENVELOPES = {"ProxyRequest", "ProxyResponse", "ProxyNotification"}
ENVELOPES = {"AgentRequest", "AgentResponse", "AgentNotification"}  # not in our v2 at all
ENVELOPES |= {"ClientRequest", "ClientResponse", "ClientNotification"} | PROXY_ENVELOPES
V1_FOR_UPDATES = {"PlanRemoved", "PlanFile", "PlanId", "PlanItems", "PlanMarkdown"}
V1_FOR_UPDATES |= {"PlanUpdate", "PlanUpdateContent"}
NOT_MERGED = {2: ENVELOPES, 1: PROXY_ENVELOPES | V1_FOR_UPDATES}


@pytest.mark.parametrize("version", [2, 1])
def test_merged_the_schema_has_every_unstable_field_and_branch(version: int) -> None:
    """Every definition, property and union branch upstream's unstable file adds is there, but
    the session-update variants left to the stable work (and what only they use)."""
    merged = merge_unstable(read(SCHEMAS[version]), OVERLAYS[version], "schema")[0]["$defs"]
    unstable = read(UPSTREAM_FILES[version] / "schema.unstable.json")["$defs"]
    assert set(unstable) - set(merged) == NOT_MERGED[version]
    for name, schema in unstable.items():
        if name not in merged:
            continue
        missing = set(schema.get("properties") or {}) - set(merged[name].get("properties") or {})
        assert not missing, (name, missing)
        ours = {tag_of(b) for b in merged[name].get("anyOf") or merged[name].get("oneOf") or []}
        for branch in schema.get("anyOf") or schema.get("oneOf") or []:
            tag = tag_of(branch)
            if tag is not None and tag[1] not in LEFT_OUT:
                assert tag in ours, (name, tag)


def test_the_overlays_speak_in_our_words() -> None:
    """No description is upstream's (nor holds a sentence of it), and every new definition has
    one of ours."""
    theirs = set()
    for folder in UPSTREAM_FILES.values():
        for text in descriptions(read(folder / "schema.unstable.json")):
            theirs |= {s.strip() for s in text.replace("\n", " ").split(". ") if len(s) > 30}
    for path in OVERLAYS.values():
        doc = read(path)
        for name, schema in doc["$defs"].items():
            assert schema.get("description"), name
        for text in descriptions(doc):
            assert "UNSTABLE" not in text and "MUST" not in text, text
            for sentence in theirs:
                assert sentence not in text, (path.name, sentence)


def test_without_the_option_nothing_is_merged() -> None:
    plain = load_protocol(SCHEMAS[2])
    assert not {m.name for m in plain.methods} & {"session/fork", "providers/list"}
    assert not any(m.unstable for m in plain.methods)
    with loading(SCHEMAS[2], "schema", unstable=True) as protocol:
        unstable = {m.name for m in protocol.methods if m.unstable}
    assert {"session/fork", "session/set_title", "mcp/message", "proxy/successor"} <= unstable
    assert not unstable & {m.name for m in plain.methods}
    assert protocol.sha256 != plain.sha256  # the overlay joins the package's fingerprint


def test_every_addition_is_marked(tmp_path: Path) -> None:
    merged, _ = merge_unstable(read(SCHEMAS[2]), OVERLAYS[2], "schema")
    defs = merged["$defs"]
    assert defs["ForkSessionRequest"]["x-unstable"] is True
    assert defs["ForkSessionRequest"]["description"].startswith(MARK)
    fork = defs["SessionCapabilities"]["properties"]["fork"]
    assert fork["x-unstable"] is True and fork["description"].startswith(MARK)
    assert "x-unstable" not in defs["SessionCapabilities"]["properties"]["delete"]
    # A new branch goes before the open fallback, which no longer takes its tag.
    branches = defs["McpServer"]["anyOf"]
    assert branches[-1]["title"] == "other" and branches[-2]["title"] == "McpServerAcp"
    excluded = json.dumps(branches[-1]["not"])
    assert '"const": "acp"' in excluded


def test_a_base_that_already_has_an_addition_is_refused_naming_the_script(
    tmp_path: Path,
) -> None:
    doc = read(SCHEMAS[2])
    doc["$defs"]["ForkSessionRequest"] = {"type": "object"}
    with pytest.raises(SchemaError) as caught:
        merge_unstable(doc, OVERLAYS[2], "schema")
    (problem,) = caught.value.problems
    assert "ForkSessionRequest" in str(problem) and "build_unstable_schema.py" in str(problem)
    # A base without a definition the overlay extends is refused the same way.
    doc = read(SCHEMAS[2])
    del doc["$defs"]["SessionInfo"]
    with pytest.raises(SchemaError) as caught:
        merge_unstable(doc, OVERLAYS[2], "schema")
    assert any("no definition SessionInfo" in str(p) for p in caught.value.problems)


def test_the_project_table_turns_it_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.acp-codegen]\nunstable = true\n")
    assert load_settings(tmp_path).unstable is True
    monkeypatch.chdir(tmp_path)
    where = Where.from_cwd(None)
    assert where.unstable and where.schema_option()[-1] == "--unstable"
    assert where.inputs().unstable
    (tmp_path / "pyproject.toml").write_text("[tool.acp-codegen]\nout = 'generated'\n")
    assert load_settings(tmp_path).unstable is False
    assert "--unstable" not in Where.from_cwd(None).schema_option()
    (tmp_path / "pyproject.toml").write_text('[tool.acp-codegen]\nunstable = "yes"\n')
    with pytest.raises(UsageError, match="unstable must be true or false"):
        load_settings(tmp_path)
