"""The readers of the command dialect that look for numbers and marks read the longest
line a member may send (4,000 characters) as they read a short one. They do it in one
pass; what that costs beside a short line is `bench/command_lines.py`'s to print
(docs/benchmarks.md, "Long command lines")."""

from keeper import chronicle
from keeper.commands import trailing_number
from keeper.dice_commands import _ADVANTAGE
from keeper.inventory_commands import _count_of
from keeper.sheet_commands import sheet_changes

LONGEST = 4000


def test_a_sheet_line_reads_each_change_however_long_the_line():
    assert sheet_changes("STR60 Spot Hidden 70 HP-4") == [
        ("STR", None, 60),
        ("Spot Hidden", None, 70),
        ("HP", "-", 4),
    ]
    assert sheet_changes("HP += 4 SAN - 2") == [("HP", "+=", 4), ("SAN", "-", 2)]
    assert sheet_changes("a " * (LONGEST // 2)) == []
    assert sheet_changes("-" * (LONGEST - 5) + "HP-4") == [("HP", "-", 4)]


def test_a_skill_value_is_the_number_a_line_ends_with():
    assert trailing_number("Spot Hidden 60") == ("Spot Hidden ", "60")
    assert trailing_number("1" * (LONGEST - 1) + "x") is None
    assert trailing_number("Spot Hidden") is None


def test_a_count_is_read_after_any_run_of_spaces():
    assert _count_of("torch x3") == ("torch", "3")
    assert _count_of("old torch * 12") == ("old torch", "12")
    assert _count_of("torch" + " " * (LONGEST - 10) + "x 3") == ("torch", "3")
    assert _count_of("a" + " " * (LONGEST - 2) + "5") is None
    assert _count_of("x3") is None  # a count needs a name before it


def test_advantage_is_the_last_word_after_any_run_of_spaces():
    assert _ADVANTAGE.search("1d20 adv").group(1) == "adv"
    assert _ADVANTAGE.search("1d20" + " " * (LONGEST - 8) + "DIS").start() == 4
    assert _ADVANTAGE.search("1d20" + " " * (LONGEST - 8) + "x") is None


def test_the_chronicle_keeps_a_code_spans_words_and_a_run_of_backticks_as_it_is():
    assert chronicle.plain_text("the `**lamp**` is lit") == "the **lamp** is lit"
    assert chronicle.plain_text("`" * (LONGEST - 1) + "\n") == "`" * (LONGEST - 1)
