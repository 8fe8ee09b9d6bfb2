"""The sample adventure follows what the players do (docs/decisions.md, "The offline
Keeper and the sample adventure"): a keeper starts it after the room's first line (a
safety backup is made first), two players and the keeper play it to an end along each
of its two paths, the NPCs answer when addressed, every check is rolled for whoever
acted, and once it ends the offline Keeper goes on answering, in the room's language."""

from __future__ import annotations

from pathlib import Path

from keeper.kp.sample import GUIDED_ACTIONS
from loreweaver.testing.clients import IrohClient, WsClient, settle

TRIES = 16  # a check that fails is tried again, as players would (0.55 ** 16 < 1e-4)


class Table:
    """Three seats at one room; the keeper's connection watches every turn."""

    def __init__(self, keeper, pat, bob) -> None:
        self.keeper, self.seats = keeper, {"Kay": keeper, "Pat": pat, "Bob": bob}
        self.beats = 0
        self.state: dict = {}

    async def turn(self, who: str, line: str) -> list[dict]:
        """`who` says `line`; the keeper's view of the Keeper's answer, to its `state`."""
        await self.seats[who].say(line)
        frames = []
        while True:
            frame = await self.keeper.recv(30)
            frames.append(frame)
            idle = any(f["type"] == "turn_status" and f["status"] == "idle" for f in frames)
            if frame["type"] == "state" and idle:
                self.state = frame
                self.beats += 1
                return frames

    def found(self, flag: str) -> object:
        """A clue the keeper's state shows (the adventure's hidden variables)."""
        return {v["id"]: v["value"] for v in self.state.get("variables", [])}.get(f"sample.{flag}")

    async def until(self, who: str, line: str, flag: str) -> list[dict]:
        """Say `line` until the clue is found (a failed check is tried again)."""
        for _ in range(TRIES):
            frames = await self.turn(who, line)
            checks = [f for f in frames if f["type"] == "dice" and f["kind"] == "check"]
            assert all(check["actor"] == who for check in checks), "rolled for whoever acted"
            if self.found(flag):
                return frames
        raise AssertionError(f"{flag} never found after {TRIES} tries of {line!r}")

    async def ending(self, who: str, line: str) -> list[dict]:
        """Say `line` until the adventure ends (its last step may need a check)."""
        for _ in range(TRIES):
            frames = await self.turn(who, line)
            if self.found("ending"):
                return frames
        raise AssertionError(f"no ending after {TRIES} tries of {line!r}")


def _backups(data_dir: Path, room: str) -> list[Path]:
    """The room's safety backups (its folder is named after it)."""
    return [path for path in Path(data_dir).rglob("before-sample-*.zip") if path.parent.name.endswith(room)]


def _keeper_text(frames: list[dict]) -> str:
    return " ".join(f["text"] for f in frames if f["type"] == "narrative" and f["speaker"] in ("kp", "npc"))


def _npc(frames: list[dict]) -> dict:
    return next(f for f in frames if f["type"] == "narrative" and f["speaker"] == "npc")


async def _seated(server, room):
    keeper = await WsClient.connect(server.ws_url)
    pat = await WsClient.connect(server.ws_url)
    bob = await IrohClient.connect(server.ticket)
    welcome = (await keeper.join(server.env.mint(room, "Kay", "keeper")))[0]
    await pat.join(server.env.mint(room, "Pat"))
    await bob.join(server.env.mint(room, "Bob"))
    await settle(keeper)
    return Table(keeper, pat, bob), welcome


async def _close(table: Table) -> None:
    for client in table.seats.values():
        await client.close()


async def test_started_after_a_first_line_it_plays_to_the_lamp_ending(server, room):
    table, welcome = await _seated(server, room)
    try:
        assert "demo" in welcome["features"], "offered to the keeper of an empty room"
        await table.turn("Kay", "Good evening, everyone.")
        opening = await table.turn("Kay", GUIDED_ACTIONS[0])
        assert _npc(opening)["name"] == "Ruth Cobb"
        assert table.state["scene"]["name"] == "Kingsmouth harbour"
        backups = _backups(server.env.data_dir, room)
        assert len(backups) == 1, "the room had a line: it was backed up before the adventure"
        table.beats = 0

        ruth = await table.turn("Pat", "Ruth, what is wrong with Silas?")
        assert _npc(ruth)["name"] == "Ruth Cobb" and "twenty years" in _npc(ruth)["text"]
        chapel = await table.turn("Bob", "Ruth, tell us about the old chapel and its bell.")
        assert "two hundred years" in _npc(chapel)["text"], "she answers what she is asked"
        await table.turn("Pat", "We row out to the lighthouse.")
        assert table.state["scene"]["name"] == "The foot of the lighthouse"
        away = await table.turn("Bob", "Ruth, are you coming?")
        assert "a mile of black water" in _keeper_text(away), "Ruth stayed on the quay"
        silas = await table.turn("Kay", "We go inside and call out.")
        assert _npc(silas)["name"] == "Silas Marsh"
        assert table.state["scene"]["name"] == "The lighthouse stair"
        refused = await table.turn("Pat", "Silas, give us the mantle so we can light the lamp.")
        assert "You don't know what it calls" in _keeper_text(refused)
        assert not table.found("mantle"), "he keeps it until they know why"
        await table.until("Bob", "I search under the stairs.", "log")
        read = await table.until("Kay", "I read the logbook.", "log_read")
        letters = [b for f in read if f["type"] == "ui" for b in f["blocks"] if b["kind"] == "letter"]
        assert letters and "bell rings closer" in letters[0]["body"]
        given = await table.turn("Pat", "Silas, please give us the mantle for the lamp.")
        assert "If you light it" in _npc(given)["text"] and table.found("mantle")
        await table.turn("Bob", "We climb up to the lamp room.")
        assert table.state["scene"]["name"] == "The lamp room"
        await table.turn("Pat", "I look out to sea through the window.")
        end = await table.ending("Kay", "I light the lamp.")
        assert table.found("ending") == "light" and "sample adventure ends" in _keeper_text(end)
        cards = [b for f in end if f["type"] == "ui" for b in f["blocks"] if b["kind"] == "title_card"]
        assert cards and cards[0]["title"] == "The Light Returns"
        assert [(q["name"], q["status"]) for q in table.state["quests"]] == [
            ("The dark lighthouse", "completed")
        ]
        assert table.beats >= 12, f"only {table.beats} player beats"

        after = await table.turn("Pat", "I look around the lamp room.")
        assert "sample adventure" not in _keeper_text(after), "the offline Keeper goes on"
        assert [f for f in after if f["type"] == "dice"], "and answers with its own checks"
        await table.keeper.say(".language zh")
        await table.keeper.expect("narrative", speaker="system")
        chinese = await table.turn("Bob", "I search the room.")
        text = _keeper_text(chinese)
        assert any("\u4e00" <= ch <= "\u9fff" for ch in text), f"not in the room's language: {text}"
    finally:
        await _close(table)


async def test_the_other_path_silences_the_bell_in_chinese(server, room):
    table, _welcome = await _seated(server, room)
    try:
        await table.keeper.say(".language zh")
        await table.keeper.expect("narrative", speaker="system")
        opening = await table.turn("Kay", GUIDED_ACTIONS[1])
        assert _npc(opening)["name"] == "Ruth Cobb" and "塞拉斯" in _npc(opening)["text"]
        assert table.state["scene"]["name"] == "金斯茅斯港"
        table.beats = 0

        hint = await table.turn("Bob", "我们等一会儿。")
        assert "露丝" in _keeper_text(hint), "a line that does nothing gets a hint of what to try"
        ruth = await table.turn("Pat", "露丝，塞拉斯怎么了？")
        assert "二十年" in _npc(ruth)["text"], "named in Chinese, she answers in Chinese"
        await table.until("Pat", "我在码头四处打听。", "chapel")
        await table.turn("Bob", "我们划船去礁石。")
        assert table.state["scene"]["name"] == "灯塔脚下"
        blocked = await table.turn("Kay", "我们爬下去到岸边。")
        assert table.found("place") == "rock", "the shore needs a reason: the bell not heard yet"
        assert "没有非去不可的理由" in _keeper_text(blocked)
        await table.until("Pat", "我检查那扇门。", "scratches")
        await table.until("Bob", "我拿起铁链。", "chain")
        await table.until("Kay", "我仔细聆听。", "bell")
        away = await table.turn("Bob", "露丝在这里吗？")
        assert "露丝还在码头上" in _keeper_text(away)
        await table.turn("Pat", "我们爬下去到岸边。")
        assert table.state["scene"]["name"] == "沉没的礼拜堂"
        await table.until("Bob", "我搜查石拱里面。", "bell_found")
        end = await table.ending("Kay", "我用铁链把钟捆住，让它安静。")
        assert table.found("ending") == "silence" and "示例冒险到此结束" in _keeper_text(end)
        assert table.beats >= 12, f"only {table.beats} player beats"
        characters = {f["actor"] for f in end if f["type"] == "dice"}
        assert characters == {"Kay"}
    finally:
        await _close(table)


async def test_a_room_playing_a_module_is_not_replaced(server, room):
    async with await WsClient.connect(server.ws_url) as keeper:
        await keeper.join(server.env.mint(room, "Kay", "keeper"))
        await keeper.say(GUIDED_ACTIONS[0])
        await keeper.expect("state", timeout=30)
        await settle(keeper)
        await keeper.say(GUIDED_ACTIONS[0])
        refused = await keeper.expect("error")
        assert refused["code"] == "demo_unavailable" and "already playing a module" in refused["message"]
