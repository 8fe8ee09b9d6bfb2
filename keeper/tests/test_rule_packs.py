"""Rule systems are data: built-in packs load, a bad pack is refused naming the field,
and a third pack dropped into the packs directory appears with no code change."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from keeper.rules.packs import BUILT_IN_DIR, PackError, discover, load_pack

THIRD_PACK = textwrap.dedent(
    """
    id: blades
    name: {en: "Blades in the Night"}
    make_char: blade
    default_die: 1d6
    check: {roll: d20, target: dc, ladder: dnd5e}
    sheet:
      attributes: [INSIGHT, PROWESS, RESOLVE]
      resources:
        - {id: stress, label: {en: Stress, zh: 压力}, max: 9}
    """
)


def _labelled(labels: str) -> tuple[str, str]:
    """A change to THIRD_PACK that gives its sheet these `labels`."""
    attributes = "attributes: [INSIGHT, PROWESS, RESOLVE]"
    return attributes, f"{attributes}\n  labels: {labels}"


def test_the_built_in_packs_load_with_their_sheets_in_order():
    found = discover([BUILT_IN_DIR])
    assert found.refused == {}
    coc, dnd = found.packs["coc7"], found.packs["dnd5e"]
    assert coc.sheet.attributes == ["STR", "CON", "SIZ", "DEX", "APP", "INT", "POW", "EDU"]
    assert [r.id for r in coc.sheet.resources] == ["hp", "mp", "san", "luck"]
    assert coc.sheet.resources[2].label.pick("zh") == "理智"
    assert dnd.sheet.attributes == ["STR", "DEX", "CON", "INT", "WIS", "CHA"]
    assert found.systems() == [{"id": "coc7", "make_char": "coc"}, {"id": "dnd5e", "make_char": "dnd"}]


def test_a_third_pack_in_the_packs_directory_appears_in_systems(tmp_path: Path):
    (tmp_path / "blades.yaml").write_text(THIRD_PACK)
    found = discover([BUILT_IN_DIR, tmp_path])
    assert {"id": "blades", "make_char": "blade"} in found.systems()
    assert found.packs["blades"].sheet.resources[0].label.pick("zh") == "压力"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            (
                "check: {roll: d20, target: dc, ladder: dnd5e}",
                "check: {roll: d12, target: dc, ladder: dnd5e}",
            ),
            "check.roll",
        ),
        (("ladder: dnd5e", "ladder: homebrew"), "check.ladder"),
        (("attributes: [INSIGHT, PROWESS, RESOLVE]", "attributes: []"), "sheet.attributes"),
        (("attributes: [INSIGHT, PROWESS, RESOLVE]", "attributes: [INSIGHT, INSIGHT]"), "sheet.attributes"),
        (("id: blades", "id: Blades!"), "id"),
        (("label: {en: Stress, zh: 压力}", "label: {zh: 压力}"), "sheet.resources.0.label.en"),
        (("make_char: blade", "make_char: blade\nsurprise: 1"), "surprise"),
        (_labelled("{GRACE: {en: Grace}}"), "sheet.labels"),
        (_labelled("{INSIGHT: {zh: 洞察}}"), "sheet.labels.INSIGHT.en"),
        (_labelled("{INSIGHT: {en: Insight, fr: Intuition}}"), "sheet.labels.INSIGHT.fr"),
        (_labelled("{INSIGHT: {en: " + "I" * 41 + "}}"), "sheet.labels.INSIGHT.en"),
        (_labelled('{INSIGHT: {en: "Insight\\nand more"}}'), "sheet.labels.INSIGHT.en"),
    ],
)
def test_a_bad_pack_is_refused_with_a_message_naming_the_field(tmp_path: Path, change, named):
    path = tmp_path / "blades.yaml"
    path.write_text(THIRD_PACK.replace(*change))
    with pytest.raises(PackError) as refused:
        load_pack(path)
    assert str(refused.value).startswith("blades.yaml: " + named)


def test_a_refused_pack_does_not_stop_the_others(tmp_path: Path):
    (tmp_path / "broken.yaml").write_text("id: [not, a, string")
    found = discover([BUILT_IN_DIR, tmp_path])
    assert set(found.packs) == {"coc7", "dnd5e"} and "broken.yaml" in found.refused


def test_a_pack_cannot_take_a_built_in_id(tmp_path: Path):
    (tmp_path / "fake.yaml").write_text(THIRD_PACK.replace("id: blades", "id: coc7"))
    found = discover([BUILT_IN_DIR, tmp_path])
    assert found.packs["coc7"].name.en == "Call of Cthulhu 7e" and "fake.yaml" in found.refused
