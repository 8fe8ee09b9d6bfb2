"""Each Keeper tool checks a call's arguments against the schema the model is offered:
an argument it does not have, a wrong type or a missing required one is named with what
it takes; what fits the schema (and the leniencies the tools always had: null for an
optional argument, an enum option in a player's words) passes untouched."""

from __future__ import annotations

from keeper.kp import tools


def test_an_argument_the_tool_does_not_have_is_named():
    told = tools.TOOLS["roll_dice"].misfit({"expression": "1d6", "dice": "2d6"})
    assert told is not None and "`dice` is not an argument of roll_dice" in told
    assert "It takes: expression (required), actor, hidden." in told


def test_every_wrong_argument_is_named_with_what_it_takes():
    told = tools.TOOLS["remember"].misfit({"title": "Pier", "keywords": "pier", "content": 3})
    assert told is not None
    assert '`keywords` must be a list of strings, not "pier"' in told
    assert "`content` must be a string, not 3" in told
    told = tools.TOOLS["set_variable"].misfit({"id": "day", "value": 1.5})
    assert told is not None and "`value` must be a whole number, true or false, or a string, not 1.5" in told
    told = tools.TOOLS["present"].misfit({"template": "map_pin", "x": True})
    assert told is not None and "`x` must be a number, not true" in told


def test_what_fits_the_schema_passes():
    assert tools.TOOLS["roll_dice"].misfit({"expression": "1d6", "actor": None, "hidden": False}) is None
    assert tools.TOOLS["skill_check"].misfit({"character": "Ada", "skill": "x", "difficulty": "Hard"}) is None
    assert tools.TOOLS["present"].misfit({"template": "map_pin", "from": "A", "x": 0, "y": 0.5}) is None
    assert tools.TOOLS["read_variables"].misfit({}) is None
