"""The console speaks the operator's browser's language on every page it adds to
Django's admin (docs/operations.md, "The operator console"): the room list, the room
page, the confirmation before a reset, the backups page, the key mint form and the
model page read in Chinese for a Chinese browser, and in English for an English one."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rooms.models import Room

pytestmark = pytest.mark.django_db

CHINESE = "zh-CN,zh;q=0.9"


def _page(admin_client, url: str, language: str) -> str:
    return admin_client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def test_the_room_list_and_room_page_read_in_chinese(admin_client, story_room: Room):
    listing = _page(admin_client, reverse("admin:rooms_room_changelist"), CHINESE)
    for words in ("运营控制台", "故事行数", "导出备份", "重置故事", "删除房间（先备份）", ">备份<"):
        assert words in listing, words
    room = _page(admin_client, reverse("admin:rooms_room_change", args=[story_room.pk]), CHINESE)
    for words in (
        "当前在线",
        "没有人在线。",
        "为本房间创建密钥",
        "守秘人",
        "设置题材",
        "删除密钥和故事",
        "向所有人开放",
    ):
        assert words in room, words
    for english in (
        "Nobody is online",
        "Mint a key for this room",
        "Export a backup",
        "Open to all",
        "Created at",
    ):
        assert english not in room, english


def test_the_pages_that_ask_first_read_in_chinese(admin_client, story_room: Room):
    asked = admin_client.post(
        reverse("admin:rooms_room_changelist"),
        {"action": "reset_story", "_selected_action": [story_room.pk]},
        HTTP_ACCEPT_LANGUAGE=CHINESE,
    ).content.decode()
    for words in ("确定要重置故事吗？", "没有人在线", "会先写入备份", "是的，重置故事", "不，返回"):
        assert words in asked, words
    backups = _page(admin_client, reverse("admin:rooms_room_backups"), CHINESE)
    assert "还没有备份" in backups and "No backups yet" not in backups
    mint = _page(admin_client, reverse("admin:rooms_accesskey_add"), CHINESE)
    assert "新房间" in mint and "或输入新房间的名字（保存时创建）。" in mint


def test_the_model_page_reads_in_chinese(admin_client):
    page = admin_client.get(
        reverse("admin:keeper_modelsetting_changelist"), HTTP_ACCEPT_LANGUAGE=CHINESE, follow=True
    ).content.decode()
    for words in ("当前生效", "测试连接", "使用自己模型的房间", "服务商", "API 密钥"):
        assert words in page, words
    assert "Test the connection" not in page and "In force now" not in page


def test_an_english_browser_still_reads_english(admin_client, story_room: Room):
    room = _page(admin_client, reverse("admin:rooms_room_change", args=[story_room.pk]), "en")
    assert "Nobody is online." in room and "Mint a key for this room" in room
    assert "没有人在线" not in room
