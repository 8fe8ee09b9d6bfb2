"""A hook that loops, allocates, floods, recurses or reaches for the host is stopped by
the sandbox's caps; the other hooks of the turn still emit, and the memory it tried to
take does not stay with the server (packs/hooks.py)."""

from __future__ import annotations

import pytest

from packs import hooks
from packs.tests.hook_corpus import HOSTILE, WELL_BEHAVED

EVENTS = [
    ("turn_start", {"actor": "Pip", "user_message": "I open the door."}),
    ("reply_ready", {"reply": "It creaks."}),
]


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.fixture(autouse=True)
def _short_time_cap(settings):
    settings.TRPG_HOOKS_TIME_LIMIT = 0.2


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_hook_is_stopped_and_the_others_still_emit(name):
    emitted = hooks.run(
        [hooks.Script(name, HOSTILE[name]), hooks.Script("good", WELL_BEHAVED)], EVENTS, {"day": 3}
    )
    texts = [block.get("text") for blocks, _options in emitted.ui for block in blocks]
    assert "The lamp is lit on day 3." in texts, "the well-behaved hook still emitted"
    leaked = [text for text in texts if text != "The lamp is lit on day 3."]
    assert len(leaked) <= hooks.MAX_UI_PER_SCRIPT
    assert not any("root:" in str(text) or "function" in str(text) for text in leaked), leaked


def test_ten_thousand_emits_are_cut_to_the_caps():
    emitted = hooks.run([hooks.Script("flood", HOSTILE["ten_thousand_emits"])], EVENTS, {})
    assert len(emitted.ui) == hooks.MAX_UI_PER_SCRIPT
    assert len(emitted.panel_events) == hooks.MAX_PANEL_EVENTS_PER_SCRIPT
    assert emitted.dropped == 20_000 - hooks.MAX_UI_PER_SCRIPT - hooks.MAX_PANEL_EVENTS_PER_SCRIPT

    three = hooks.run(
        [hooks.Script(f"flood {n}", HOSTILE["ten_thousand_emits"]) for n in range(3)], EVENTS, {}
    )
    assert len(three.ui) == hooks.MAX_UI_EMISSIONS
    assert len(three.panel_events) == hooks.MAX_PANEL_EVENTS


def test_the_host_is_out_of_reach():
    names = ("require", "process", "std", "os", "fetch", "XMLHttpRequest", "setTimeout", "WebSocket")
    typeofs = ", ".join(f"typeof {name}" for name in names)
    probe = f'on("reply_ready", () => emitUI([{{kind: "text", text: [{typeofs}].join()}}]))'
    emitted = hooks.run([hooks.Script("probe", probe)], EVENTS, {})
    assert emitted.ui[0][0][0]["text"] == ",".join(["undefined"] * 8)


def test_getvar_reads_the_view_it_is_given_and_a_write_reads_back_as_asked():
    reader = (
        'on("reply_ready", () => { setvar("day", 99); const none = getvar("none", {defaults: 0});'
        ' emitUI([{kind: "text", text: `${getvar("day")} ${getvar("cult")} ${none}`}]); })'
    )
    emitted = hooks.run([hooks.Script("reader", reader)], EVENTS, {"day": 3, "cult": "awake"})
    assert emitted.ui[0][0][0]["text"] == "99 awake 0"


def test_lodash_is_there_for_a_script_that_names_it():
    uses = (
        'on("reply_ready", () =>'
        ' emitUI([{kind: "text", text: `${_.clamp(99, 0, 3)} ${_.get(variables, "a.b")}`}]))'
    )
    emitted = hooks.run([hooks.Script("lodash", uses)], EVENTS, {"a": {"b": 2}})
    assert emitted.ui[0][0][0]["text"] == "3 2"


def test_a_throw_and_a_missing_function_are_problems_of_the_script():
    fired = hooks.fire(
        [
            hooks.Script("broken", HOSTILE["throws"]),
            hooks.Script("typo", 'on("reply_ready", () => narate(1))'),
        ],
        "reply_ready",
        {"reply": "It creaks."},
        {},
        hooks.Budget(),
    )
    assert [(p.source, p.kind, p.detail) for p in fired.problems] == [
        ("broken", "threw", "reply_ready: Error: boom"),
        ("typo", "threw", "reply_ready: ReferenceError: 'narate' is not defined"),
    ]


def test_the_memory_a_hostile_hook_took_is_given_back():
    hooks.run([hooks.Script("warm-up", HOSTILE["gigabyte"])], EVENTS, {})
    before = _resident_bytes()
    for _round in range(10):
        hooks.run(
            [hooks.Script(name, HOSTILE[name]) for name in ("gigabyte", "growing_arrays", "deep_recursion")],
            EVENTS,
            {},
        )
    assert _resident_bytes() - before < 48 * 1024 * 1024
