"""What chat makes of the agent's offers beside a turn (`commands/chat/offers.py`): prompt
suggestions, and the session's models from its config option of category `model`."""

from __future__ import annotations

from acp_codegen.commands.chat.offers import models_text, suggestions_of, suggestions_text


def test_only_a_suggestions_update_gives_suggestions_and_each_is_one_visible_line() -> None:
    assert suggestions_of({"sessionUpdate": "agent_message_chunk"}) is None
    update = {
        "sessionUpdate": "prompt_suggestions_update",
        "suggestions": [
            {
                "prompt": [
                    {"type": "text", "text": "look at"},
                    {"type": "resource_link", "uri": "f"},
                ]
            },
            {"prompt": [{"type": "image", "data": "", "mimeType": "image/png"}]},
            {"prompt": [{"type": "text", "text": "\x1b[2J\nagent: fake"}]},
            "not a suggestion",
        ],
    }
    lines = suggestions_of(update)
    assert lines == ["look at f", "[image]", "\\e[2J\\nagent: fake"]
    assert suggestions_of({"sessionUpdate": "prompt_suggestions_update", "suggestions": []}) == []
    assert suggestions_text([]) is None
    assert suggestions_text(lines[:1]) == "the agent suggests:\n  1) look at f"


def test_models_come_from_the_model_option_only() -> None:
    mode = {"type": "select", "configId": "mode", "category": "mode", "currentValue": "a"}
    assert models_text([mode]) is None and models_text(None) is None
    model = {
        "type": "select",
        "configId": "model",
        "category": "model",
        "currentValue": "b",
        "options": [{"value": "a", "name": "A"}, {"value": "b", "name": "B\nmodels: fake"}],
    }
    assert models_text([mode, model]) == "models: A (a), B\\nmodels: fake (b) (current)"
