"""The console lists every kind of record under a proper English plural ("Lore
entries", not "Lore entrys"; "NPCs", not "Npcs"), and under a Chinese name for an
operator whose browser asks for Chinese (docs/operations.md, "The operator console")."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import translation

OURS = ("rooms", "keeper", "media_store", "packs")

pytestmark = pytest.mark.django_db


def _ours() -> list:
    return [model for model in apps.get_models() if model._meta.app_label in OURS]


def test_no_plural_is_made_by_tacking_s_onto_a_y():
    wrong = [
        f"{model._meta.app_label}.{model.__name__}: {model._meta.verbose_name_plural}"
        for model in _ours()
        if re.search(r"[^aeiou]ys$", str(model._meta.verbose_name_plural))
    ]
    assert not wrong


def test_every_model_has_a_chinese_name():
    untranslated = []
    for model in _ours():
        for name in (model._meta.verbose_name, model._meta.verbose_name_plural):
            with translation.override("zh-hans"):
                chinese = str(name)
            if chinese == str(name) and name != "NPC" and name != "NPCs":
                untranslated.append(f"{model.__name__}: {name}")
    assert not untranslated


def test_the_console_home_reads_the_plurals(admin_client):
    page = admin_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Lore entries" in page and "Initiative entries" in page and "NPCs" in page
    assert "entrys" not in page and "Npcs" not in page


def test_the_console_home_reads_chinese_names_for_a_chinese_browser(admin_client):
    page = admin_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert "设定条目" in page and "先攻条目" in page and "访问密钥" in page
    assert "Lore entries" not in page
