"""`.audio import <pack>` (docs/rules.md, "The audio desk"): an installed pack's audio
files join the room's audio library with the titles and licenses its manifest gives
them, so the keeper's desk, and Loreweaver Studio's deck (which sends
`.audio import deep-pier` and then a library entry's title), can play them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from loreweaver.testing.clients import connect
from loreweaver.testing.media_clients import get, sha
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve
from packs import lwpack

MAP = (
    Path(__file__).resolve().parents[2]
    / "packs"
    / "examples"
    / "harbour-clues"
    / "assets"
    / "harbour-map.png"
)
NIGHT = b"OggS" + os.urandom(5000)
BELL = b"RIFF" + os.urandom(2000)


def _pack(folder: Path, pack_id: str, audio: dict[str, bytes], assets: str) -> Path:
    (folder / "assets").mkdir(parents=True)
    shutil.copy(MAP, folder / "assets" / "map.png")
    for path, data in audio.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    (folder / "pack.yaml").write_text(
        f"id: {pack_id}\nversion: 1.0.0\nname: Sounds\ndescription: A soundtrack for a test.\n"
        f"authors: [Tests]\nlicense: CC0-1.0\nassets:\n{assets}"
    )
    built = folder.parent / f"{pack_id}.lwpack"
    built.write_bytes(lwpack.build(folder))
    return built


@pytest.fixture(scope="module")
def sound_server(tmp_path_factory):
    base = tmp_path_factory.mktemp("sounds")
    env = create_env(base / "env", hosted=hosted_profile())
    packs = (
        _pack(
            base / "deep-pier",
            "deep-pier",
            {"assets/music/harbour-night.ogg": NIGHT, "assets/sfx/bell.wav": BELL},
            "  - {path: assets/music/harbour-night.ogg, title: Harbour Night, license: CC-BY-4.0}\n"
            "  - {path: assets/sfx/bell.wav}\n"
            "  - {path: assets/map.png, title: Map}\n",
        ),
        _pack(base / "quiet", "quiet", {}, "  - {path: assets/map.png, title: Map}\n"),
    )
    for built in packs:
        installed = env.manage("pack", "install", str(built), "--yes")
        assert installed.returncode == 0, installed.stderr
    process = start_serve(env)
    yield process
    process.stop()
    destroy_env(env)


async def _answer(client, line: str) -> str:
    await client.say(line)
    return (await client.expect("narrative", speaker="system"))["text"]


async def test_a_packs_soundtrack_becomes_the_rooms_to_play(sound_server, room, carrier):
    env = sound_server.env
    async with (
        await connect(carrier, sound_server) as keeper,
        await connect(carrier, sound_server) as kai,
        await connect(carrier, sound_server) as player,
    ):
        await keeper.join(env.mint(room, "Kay", "keeper"))
        await kai.join(env.mint(room, "凯", "keeper"), locale="zh")
        await player.join(env.mint(room, "Pat"))
        assert "Only the keeper" in await _answer(player, ".audio import deep-pier")

        answer = await _answer(keeper, ".audio import deep-pier")
        assert answer == "Imported 2 audio from deep-pier: Harbour Night, bell."
        night = await player.expect("audio_library_item", hash=sha(NIGHT))
        bell = await player.expect("audio_library_item", hash=sha(BELL))
        assert {k: night.get(k) for k in ("name", "mime", "title", "license", "source")} == {
            "name": "harbour-night.ogg",
            "mime": "audio/ogg",
            "title": "Harbour Night",
            "license": "CC-BY-4.0",
            "source": "deep-pier/assets/music/harbour-night.ogg",
        }
        # No title in the manifest: the file's stem; no license of its own: the pack's.
        assert (bell["title"], bell["license"], bell["mime"]) == ("bell", "CC0-1.0", "audio/wav")
        # The bytes are the room's now: a member fetches them by hash like an upload.
        header, body = await get(player, sha(NIGHT))
        assert body == NIGHT, header

        # Studio's deck offers the library by title and plays it.
        assert await _answer(keeper, '.bgm "Harbour Night"') == "music: playing Harbour Night."
        control = await player.expect("audio_control")
        assert (control["hash"], control["title"], control["loop"]) == (sha(NIGHT), "Harbour Night", True)
        assert await _answer(keeper, ".sfx bell") == "effects: playing bell."
        assert (await player.expect("audio_control"))["hash"] == sha(BELL)

        # Again: the same two entries, not two more.
        assert (await _answer(keeper, ".audio import deep-pier")).startswith("Imported 2 audio")
        listing = await _answer(keeper, ".audio list")
        assert len(listing.splitlines()) == 2 and "CC-BY-4.0" in listing

        assert await _answer(keeper, ".audio import quiet") == "The pack quiet has no audio."
        assert (
            await _answer(keeper, ".audio import no-such-pack") == "No pack called no-such-pack is installed."
        )
        assert "没有安装名为 no-such-pack 的内容包" in await _answer(kai, ".audio import no-such-pack")
        assert "已从 deep-pier 导入 2 个音频" in await _answer(kai, ".audio import deep-pier")
        assert "用法：.audio import" in await _answer(kai, ".audio import")

        async with await connect(carrier, sound_server) as late:
            joined = await late.join(env.mint(room, "Late"))
        titles = sorted(f["title"] for f in joined if f["type"] == "audio_library_item")
        assert titles == ["Harbour Night", "bell"]
