"""What a client refuses to send and which prompt content capabilities allow: the core's rules,
called directly (no event loop, no connection)."""

from __future__ import annotations

import ast
from pathlib import Path

import acp_codegen.runtime.core.client_rules as client_rules
import acp_codegen.runtime.core.prompt_content as prompt_content
from acp_codegen.runtime.core.client_rules import load_refusal, prompt_refusal, setup_refusal
from acp_codegen.runtime.core.prompt_content import prompt_content_problems
from hypothesis import given
from hypothesis import strategies as st

IMAGE = {"type": "image", "data": "", "mimeType": "image/png"}
TEXT = {"type": "text", "text": "hi"}
WITH_IMAGES: dict[str, object] = {"session": {"prompt": {"image": {}}}}


def test_these_core_modules_import_no_asyncio() -> None:
    for module in (client_rules, prompt_content):
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0
        }
        assert not imported & {"asyncio", "socket", "os", "io", "threading", "subprocess"}


def test_a_setup_waits_for_initialize() -> None:
    assert setup_refusal("session/new", initialized=False) == "session/new before initialize"
    assert setup_refusal("session/new", initialized=True) is None


def test_load_is_refused_only_on_a_settled_version_without_it() -> None:
    assert load_refusal(initialized=True, loads_sessions=False) is not None
    assert load_refusal(initialized=True, loads_sessions=True) is None
    assert load_refusal(initialized=False, loads_sessions=False) is None  # the setup check speaks


def test_a_prompt_is_refused_in_lifecycle_order() -> None:
    def refusal(**flags: bool) -> str | None:
        return prompt_refusal("s1", content=[IMAGE], capabilities={}, **flags)

    assert refusal(initialized=False, set_up=False) == "session/prompt before initialize"
    assert refusal(initialized=True, set_up=False) == (
        "session/prompt for 's1', which is not set up"
    )
    content_refusal = refusal(initialized=True, set_up=True)
    assert content_refusal is not None
    assert "prompt/0/type" in content_refusal and "'image'" in content_refusal


def test_a_granted_capability_lets_the_content_through() -> None:
    assert (
        prompt_refusal(
            "s1", initialized=True, set_up=True, content=[TEXT, IMAGE], capabilities=WITH_IMAGES
        )
        is None
    )


def test_a_null_capability_grants_nothing() -> None:
    capabilities = {"session": {"prompt": {"image": None}}}
    assert [p["loc"] for p in prompt_content_problems([IMAGE], capabilities)] == [
        ["prompt", 0, "type"]
    ]


def test_the_prompt_must_be_a_list_of_typed_objects() -> None:
    assert [p["type"] for p in prompt_content_problems({"type": "text"}, {})] == ["list_type"]
    assert [p["loc"] for p in prompt_content_problems([TEXT, 3, {"type": 1}], {})] == [
        ["prompt", 1],
        ["prompt", 2],
    ]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=12,
)


@given(content=json_values, capabilities=json_values)
def test_any_json_gets_an_answer_not_an_exception(content: object, capabilities: object) -> None:
    problems = prompt_content_problems(content, capabilities)
    refusal = prompt_refusal(
        "s", initialized=True, set_up=True, content=content, capabilities=capabilities
    )
    assert (refusal is None) == (not problems)
