"""The zh string walk: in a Chinese room every word a player reads is Chinese. A keeper
sets the room's language to zh, two players join (one of them asking for English: the
room's language is the story's, whatever a member joined with), and a broad set of
commands runs: help, characters, checks, sanity, items, money, quests, NPCs,
scenes, the recap and report, audio, house rules, initiative, the offline Keeper's
notice and answer. Every text a client shows (story lines, notices, errors, a roll's
outcome, the `state`'s labels) and every SideQuest message a zh client reads must hold
no ASCII word but a name, a number, dice notation or a command (`ALLOWED`, kept
narrow)."""

from __future__ import annotations

import re

from loreweaver.testing.clients import WsClient, settle
from loreweaver.testing.servers import dedicated_server
from loreweaver.wire.tests.sidequest_client import SideQuestClient

chinese = dedicated_server(TRPG_LOCALE="zh")

KEEPER_LINES = [
    ".help",
    ".scene 港口",
    ".npc add 老塞拉斯 | 灯塔看守人",
    ".npc",
    ".quest add 灯塔 | 找出灯灭的原因",
    ".quest secret 秘密债务 | 他欠走私者的钱",
    ".quest reveal 秘密债务",
    ".quest set 灯塔 完成",
    ".quest",
    ".audio list",
    ".bgm stop",
    ".rule",
    ".rule 2",
    ".skill",
    ".language",
    ".ti",
    ".dmg 安娜 1",
    ".recap",
]
PLAYER_LINES = [
    ".help",
    ".st",
    ".st 力量60",
    ".ra Spot Hidden",
    ".ra 侦查",
    ".ra 侦查60",
    ".rc 困难 侦查",
    ".sc 1/1d6",
    ".en 侦查",
    ".r 1d20",
    ".ri",
    ".inv add 提灯 | 工具 | 一盏油灯",
    ".inv add 白兰地 x2 | 消耗品",
    ".inv use 白兰地",
    ".inv equip 提灯",
    ".inv",
    ".inv add 绳子 | 发光",
    ".inv use 不存在的东西",
    ".inv give 提灯 给 博",
    ".money",
    ".money +25",
    ".money -100",
    ".quest",
    ".quest add 不行",
    ".recap",
    ".report",
    ".rule",
    "我仔细检查一下房间",
]

# What may be ASCII in a Chinese text, each as narrow as it can be.
ALLOWED = [
    # A command with the ASCII words it takes (`.st STR60`, `.genchar [coc|dnd]`, `.bot on`).
    re.compile(r"\.[a-z]+(?:[ /]+[\[\]<>|=+\-\w]*[A-Za-z0-9\]>])*"),
    re.compile(r"\[--[a-z]+(?: [a-z]+)?\]"),  # a command's option: [--loop], [--fade ms]
    re.compile(r"\b[a-z]+(?:\|[a-z]+)+\b"),  # a command's words to choose from: stop|pause|resume
    re.compile(r"\b[a-z]+=\S*"),  # a field to type: title=… tags=a,b
    re.compile(r"\bmodules(?= 文件夹)"),  # the modules folder's name
    re.compile(r"\b\d*d\d+(?:[+\-*]\d+)?\b"),  # dice notation: 1d20, 3d6*5, 1d10
    re.compile(r"\bx\d+\b"),  # a count: 白兰地 x2
    re.compile(r"\broom-[0-9a-f]{8}-\d{8}-\d{6}\.zip\b"),  # a backup's file name
    re.compile(r"\b(?:[a-z0-9]+-)+[a-z0-9]+\b"),  # an id to type: clue-trail, harbour-clues
    re.compile(r"\b(?:D&D|NPC|AI|dg)(?![A-Za-z])"),  # names: the game, a word for NPCs, the dg house rule
]
WORD = re.compile(r"[A-Za-z]{2,}")


def english_in(text: str) -> list[str]:
    """The ASCII words left in `text` once the allowed patterns are taken out."""
    for pattern in ALLOWED:
        text = pattern.sub(" ", text)
    return WORD.findall(text)


def shown_texts(frame: dict) -> list[str]:
    """What a loreweaver client shows of a frame (its ids and codes are not shown)."""
    kind = frame.get("type")
    if kind == "narrative" and frame.get("speaker") != "player":  # a player's line is as typed
        return [frame.get("text", "")]
    if kind == "system":
        return [frame.get("text", "")]
    if kind == "error":
        return [frame.get("message", "")]
    if kind == "dice":
        return [(frame.get("outcome") or {}).get("label", "")]
    if kind == "state":
        texts = []
        for sheet in [frame.get("character") or {}, *frame.get("party", [])]:
            texts += [sheet.get("system_name", ""), sheet.get("currency", "")]
            texts += list((sheet.get("attribute_names") or {}).values())
            texts += [resource.get("label", "") for resource in sheet.get("resources", [])]
        return texts
    return []


def sidequest_texts(message: dict) -> list[str]:
    """What a SideQuest client shows of a message: its narration, errors, the class and
    stats of a sheet or party entry, a resource reached."""
    payload, kind = message["payload"], message["type"]
    texts = [payload.get("text", ""), payload.get("message", ""), payload.get("resource_name", "")]
    if kind == "CHARACTER_SHEET":
        texts += [payload.get("class", ""), *payload.get("stats", {}), *payload.get("equipment", [])]
    if kind == "PARTY_STATUS":
        for member in payload.get("members", []):
            texts += [member.get("class", ""), *(member.get("sheet") or {}).get("stats", {})]
    for character in (payload.get("state_delta") or {}).get("characters", []):
        texts.append(character.get("class", ""))
    return texts


class Recorder:
    """Every frame a client was sent, kept as it arrives."""

    def __init__(self, client: WsClient, who: str, log: list) -> None:
        receive = client.recv

        async def recv(timeout: float = 10) -> dict:
            frame = await receive(timeout)
            log.append((who, frame))
            return frame

        client.recv = recv  # type: ignore[method-assign]


async def _play(client: WsClient, line: str) -> None:
    """Say `line` and read until the turn's `state` (and everything sent before it)."""
    await client.say(line)
    try:
        await client.expect("state", timeout=20)
    except TimeoutError as late:
        raise AssertionError(f"no state after {line!r}") from late
    await settle(client)


async def test_every_word_of_a_chinese_room_is_chinese(chinese, room):
    log: list = []
    async with (
        await WsClient.connect(chinese.ws_url) as kay,
        await WsClient.connect(chinese.ws_url) as pip,
        await WsClient.connect(chinese.ws_url) as bo,
    ):
        for client, who in ((kay, "keeper"), (pip, "player"), (bo, "other player")):
            Recorder(client, who, log)
        await kay.join(chinese.env.mint(room, "凯", "keeper"), locale="zh")
        await _play(kay, ".language zh")
        pip_key = chinese.env.mint(room, "皮普")
        await pip.join(pip_key, locale="zh")
        await bo.join(chinese.env.mint(room, "博博"), locale="en")
        await _play(bo, ".coc 博")
        await _play(pip, ".coc 安娜")
        for line in KEEPER_LINES:
            await _play(kay, line)
        for line in PLAYER_LINES:
            await _play(pip, line)
        await settle(kay)
        await settle(bo)

        async with await SideQuestClient.open(chinese, pip_key) as sidequest:
            await sidequest.joined("皮普")
            await sidequest.act("/status")
            await sidequest.expect("CHARACTER_SHEET")
            await sidequest.act("/inventory")
            await sidequest.expect("INVENTORY")
            for action in (".money -999", ".ra 侦查", ".r 1d6", "我在码头四处寻找线索"):
                await sidequest.act(action)
                await sidequest.until_end()
            told = list(sidequest.seen)

    # The member who joined in English reads the story in Chinese; the labels of their
    # own screen (the `state`) follow the language they chose.
    story = [(who, frame) for who, frame in log if who != "other player" or frame.get("type") != "state"]
    found = [
        (who, text, words)
        for who, frame in story
        for text in shown_texts(frame)
        if (words := english_in(text))
    ]
    found += [
        ("sidequest", text, words)
        for message in told
        for text in sidequest_texts(message)
        if (words := english_in(text))
    ]
    read = [text for _who, frame in log for text in shown_texts(frame)]
    assert any("灯塔" in text for text in read) and any("美元" in text for text in read), "the walk was read"
    assert any(m["type"] == "CHARACTER_SHEET" for m in told), "the SideQuest walk was read"
    assert found == [], "\n".join(f"{who}: {words} in {text[:300]!r}" for who, text, words in found)
