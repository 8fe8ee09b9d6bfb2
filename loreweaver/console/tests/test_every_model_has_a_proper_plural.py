"""The console lists every kind of record under a proper English plural ("Lore
entries", not "Lore entrys"; "NPCs", not "Npcs") (docs/operations.md, "The operator
console")."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.urls import reverse

OURS = ("rooms", "keeper", "media_store", "packs")

pytestmark = pytest.mark.django_db


def test_no_plural_is_made_by_tacking_s_onto_a_y():
    wrong = [
        f"{model._meta.app_label}.{model.__name__}: {model._meta.verbose_name_plural}"
        for model in apps.get_models()
        if model._meta.app_label in OURS and re.search(r"[^aeiou]ys$", str(model._meta.verbose_name_plural))
    ]
    assert not wrong


def test_the_console_home_reads_the_plurals(admin_client):
    page = admin_client.get(reverse("admin:index")).content.decode()
    assert "Lore entries" in page and "Initiative entries" in page and "NPCs" in page
    assert "entrys" not in page and "Npcs" not in page
