"""A hostile pack corpus: each is refused, naming the problem, and leaves nothing
installed (docs/packs.md, "What a pack may not do"); `bench/packs.py` times them."""

from __future__ import annotations

import pytest

from packs import lwpack, services
from packs.lwpack import PackError
from packs.models import InstalledPack
from packs.panels import PanelError
from packs.tests.hostile_corpus import HOSTILE

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_a_hostile_pack_is_refused_naming_the_problem_and_leaving_nothing(case, media_root):
    make, problem = HOSTILE[case]
    with pytest.raises((PackError, PanelError), match=problem):
        services.install(make())
    assert not InstalledPack.objects.exists()
    assert not media_root.exists() or not any(path.is_file() for path in media_root.rglob("*"))


def test_a_panel_with_a_rejected_condition_fails_to_build_and_names_it(tmp_path):
    (tmp_path / "ui").mkdir()
    (tmp_path / "pack.yaml").write_text(
        "id: gated\nversion: 1.0.0\nname: Gated\ndescription: d\nlicense: MIT\n"
        "contents: {panels: [ui/panels.yaml]}\n"
    )
    (tmp_path / "ui" / "panels.yaml").write_text(
        "panels: [{id: p, title: P, slot: sidebar,"
        " blocks: [{kind: divider, visible_when: \"getvar('day') > 3\"}]}]\n"
    )
    with pytest.raises(PanelError, match=r"getvar\('day'\) > 3.*function calls"):
        lwpack.build(tmp_path)


def test_a_source_folder_cannot_smuggle_a_file_through_a_symlink(tmp_path):
    (tmp_path / "pack.yaml").write_text(
        "id: sneaky\nversion: 1.0.0\nname: S\ndescription: d\nlicense: MIT\nassets: [assets/secret.png]\n"
    )
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "secret.png").symlink_to("/etc/hostname")
    with pytest.raises(PackError, match=r"leave the pack|symlink"):
        lwpack.build(tmp_path)
