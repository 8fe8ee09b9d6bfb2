"""A pack's hooks at a live table (docs/packs.md, "Event hooks"): a hook's `ui` frame
arrives after the Keeper's narrative and before `idle`, a `panel_event` reaches only
the members whose own panels include it, a picture the room cannot reach never
appears in a frame, and hostile hooks cannot keep a turn from ending."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from loreweaver.testing.clients import connect, settle, system_answer, until_idle
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve
from packs import lwpack
from packs.tests.conftest import EXAMPLE
from packs.tests.hook_corpus import HOSTILE

UNREACHABLE = "ab" * 32
MAP = EXAMPLE / "assets" / "harbour-map.png"

HOOKS = f"""
on("reply_ready", (event) => {{
  emitUI(
    [{{kind: "text", text: "The bell answers " + event.actor + "."}}, {{kind: "no-such-kind"}}],
    {{panel: "sidebar", id: "bell"}}
  );
  emitUI([
    {{kind: "image", hash: "{UNREACHABLE}", caption: "Not ours"}},
    {{kind: "image", hash: getvar("map"), caption: "The harbour"}},
  ]);
  emitPanel("board", {{rang: true}});
  emitPanel("keeper-notes", {{secret: "the bell is below"}});
}});
"""

PANELS = """
panels:
  - {id: board, title: Board, slot: sidebar, audience: all, blocks: [{kind: divider}]}
  - {id: keeper-notes, title: Notes, slot: tray, audience: keeper, blocks: [{kind: divider}]}
"""


def _pack(folder: Path, pack_id: str, scripts: dict[str, str]) -> Path:
    """A pack folder with `scripts` as skills' hooks.js, the panels above and a map."""
    (folder / "ui").mkdir(parents=True)
    (folder / "ui" / "panels.yaml").write_text(PANELS)
    (folder / "assets").mkdir()
    shutil.copy(MAP, folder / "assets" / "map.png")
    for name, code in scripts.items():
        (folder / "skills" / name).mkdir(parents=True)
        (folder / "skills" / name / "hooks.js").write_text(code)
    (folder / "pack.yaml").write_text(
        f"id: {pack_id}\nversion: 1.0.0\nname: Hooks\ndescription: Hooks for a test.\n"
        "authors: [Tests]\nlicense: CC0-1.0\n"
        "contents: {panels: [ui/panels.yaml], skills: [skills]}\n"
        "assets: [{path: assets/map.png, title: Map, license: CC0-1.0}]\n"
    )
    built = folder.parent / f"{pack_id}.lwpack"
    built.write_bytes(lwpack.build(folder))
    return built


@pytest.fixture(scope="module")
def hook_server(tmp_path_factory):
    base = tmp_path_factory.mktemp("hooks")
    env = create_env(base / "env", hosted=hosted_profile(), TRPG_HOOKS__TIME_LIMIT="0.2")
    for pack_id, scripts in (
        ("bell-hooks", {"bell": HOOKS}),
        (
            "hostile-hooks",
            {**HOSTILE, "zz-after-them": 'on("reply_ready", () => emitUI([{kind: "divider"}]))'},
        ),
    ):
        installed = env.manage("pack", "install", str(_pack(base / pack_id, pack_id, scripts)), "--yes")
        assert installed.returncode == 0, installed.stderr
    process = start_serve(env)
    yield process
    process.stop()
    destroy_env(env)


def _map_hash() -> str:
    import hashlib

    return hashlib.sha256(MAP.read_bytes()).hexdigest()


async def test_hook_frames_come_after_the_narrative_and_reach_only_those_with_the_panel(hook_server, room):
    env = hook_server.env
    async with await connect("ws", hook_server) as kay, await connect("ws", hook_server) as pip:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await pip.join(env.mint(room, "Pip"))
        await kay.say(".panels enable bell-hooks")
        await kay.expect("ui_manifest")
        await pip.expect("ui_manifest")
        # A dot command is played after the ping that `settle` sends is answered: wait
        # for each answer, or the bell could ring before the map is visible.
        await system_answer(kay, f".var set map {_map_hash()}")
        await system_answer(kay, ".var expose map")
        await settle(pip)

        await pip.say("I ring the bell.")
        seen = {"pip": await until_idle(pip), "kay": await until_idle(kay)}
        for name, frames in seen.items():
            kinds = [frame["type"] for frame in frames]
            narrated = max(
                i for i, f in enumerate(frames) if f["type"] == "narrative" and f["speaker"] == "kp"
            )
            uis = [i for i, kind in enumerate(kinds) if kind == "ui"]
            assert len(uis) == 2 and narrated < uis[0], name
            assert uis[-1] < kinds.index("turn_status", narrated), "ui frames come before idle"
            sidebar, pictures = frames[uis[0]], frames[uis[1]]
            assert sidebar["panel"] == "sidebar" and sidebar["id"] == "bell"
            assert sidebar["blocks"] == [{"kind": "text", "text": "The bell answers Pip."}]
            assert pictures["blocks"] == [
                {
                    "kind": "image",
                    "hash": _map_hash(),
                    "mime": "image/png",
                    "size": MAP.stat().st_size,
                    "caption": "The harbour",
                }
            ]
            assert UNREACHABLE not in json.dumps(frames)
        events = {name: [f for f in frames if f["type"] == "panel_event"] for name, frames in seen.items()}
        assert events["pip"] == [
            {"type": "panel_event", "panel": "bell-hooks/board", "payload": {"rang": True}}
        ]
        assert [e["panel"] for e in events["kay"]] == ["bell-hooks/board", "bell-hooks/keeper-notes"]
        assert (await pip.expect("state"))["type"] == "state"

        # ui frames are not replayed on join.
        async with await connect("ws", hook_server) as late:
            joined = await late.join(env.mint(room, "Lee"))
            assert "ui" not in [frame["type"] for frame in joined]
            assert "panel_event" not in [frame["type"] for frame in joined]


async def test_hostile_hooks_cannot_keep_a_turn_from_ending(hook_server, room):
    env = hook_server.env
    async with await connect("ws", hook_server) as kay:
        await kay.join(env.mint(room, "Kay", "keeper"))
        await kay.say(".bot off")  # a human keeper narrates: every line is a turn the hooks hear
        await settle(kay)
        await kay.say(".panels enable hostile-hooks")
        await kay.expect("ui_manifest")
        await settle(kay)
        await kay.say("Warm-up.")
        await kay.expect("state")
        baseline = hook_server.rss()
        for turn in range(6):
            await kay.say(f"The lamp flickers ({turn}).")
            frames = await kay.collect_until("state")
            uis = [frame for frame in frames if frame["type"] == "ui"]
            assert {"kind": "divider"} in [block for frame in uis for block in frame["blocks"]], (
                "the script after the hostile ones still emitted"
            )
            assert all(len(json.dumps(frame)) < 200_000 for frame in uis)
        assert hook_server.rss() - baseline < 64 * 1024 * 1024
        await kay.say(".r 1d6")  # the table still plays
        assert (await kay.expect("dice"))["expr"] == "1d6"
    assert "hook hostile-hooks/skills/infinite_loop/hooks.js" in hook_server.log_text()
