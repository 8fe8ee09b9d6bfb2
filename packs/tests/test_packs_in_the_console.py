"""The operator console lists installed packs with their trust card and files, and
removing one there also frees its stored files; nothing is uploaded or edited there."""

from __future__ import annotations

import pytest

from packs import services
from packs.models import InstalledPack

pytestmark = pytest.mark.django_db


def test_the_console_shows_a_packs_trust_card_and_removes_it_with_its_files(
    admin_client, example_pack, media_root
):
    pack = services.install(example_pack, by="operator")
    listing = admin_client.get("/admin/packs/installedpack/")
    assert listing.status_code == 200 and b"harbour-clues" in listing.content
    page = admin_client.get(f"/admin/packs/installedpack/{pack.pk}/change/")
    assert page.status_code == 200
    assert b"2 panels (1 for keepers only)" in page.content and b"assets/harbour-map.png" in page.content
    assert admin_client.get("/admin/packs/installedpack/add/").status_code == 403

    answer = admin_client.post(
        "/admin/packs/installedpack/",
        {"action": "remove_packs", "_selected_action": [pack.pk]},
        follow=True,
    )
    assert b"Removed 1 pack(s): harbour-clues." in answer.content
    assert not InstalledPack.objects.exists()
    assert not any(path.is_file() for path in media_root.rglob("*"))
