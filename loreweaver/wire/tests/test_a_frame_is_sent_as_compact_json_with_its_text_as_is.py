"""Every frame goes out as compact JSON with its text as it is (Chinese not escaped),
exactly what `json.dumps` would write with those options, though one encoder now
serves every frame (docs/performance.md, "Less work per roll")."""

from __future__ import annotations

import json

import pytest

from loreweaver.wire.seats import encode

FRAMES = [
    {"type": "dice", "actor": "Ann", "kind": "roll", "expr": "1d6", "rolls": [6], "total": 6},
    {"type": "system", "level": "info", "text": '轮到你了 — "quoted"\n\\ and a tab\t'},
    {"type": "state", "party": [{"name": "侦探", "online": True, "hp": 10.5, "ai": None}], "online": 1},
    {"type": "narrative", "text": "emoji 🎲 and a lone \u2028 separator", "nested": {"a": [[], {}]}},
]


@pytest.mark.parametrize("frame", FRAMES)
def test_a_frame_is_compact_json_with_its_text_as_is(frame):
    text = encode(frame)
    assert text == json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
    assert json.loads(text) == frame


def test_chinese_text_is_sent_as_characters_not_escapes():
    assert encode({"text": "你好"}) == '{"text":"你好"}'


def test_a_value_json_cannot_hold_is_refused():
    with pytest.raises(TypeError):
        encode({"type": "system", "text": object()})
