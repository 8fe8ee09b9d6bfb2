"""A server whose Keeper is the scripted provider, with packs whose hooks are written
in the reference's hook language (docs/packs.md, "Event hooks"): `table-hooks`, a
well-behaved one over two declared keeper-only variables, and `broken-hooks`, whose
script calls a function that does not exist, narrates past its cap and writes a value no
variable takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from loreweaver.testing.clients import Client, settle, system_answer
from packs import lwpack

TABLE_HOOKS = """
on("turn_start", (event) => {
  inject("The warden watches " + event.actor + " (alarm " + getvar("alarm") + ").");
  if (getvar("alarm") >= 3) inject("The bell tower is ringing: every guard is awake.");
});
on("tool_use", (event) => {
  if (event.tool === "advance_clock" && getvar("frozen")) denyTool("time is frozen in this scene");
});
on("dice_rolled", (event) => {
  narrate("The dice clatter (" + event.rolls.map((roll) => roll.tool + ": " + roll.result).join("; ") + ").");
});
on("clock_advanced", (event) => {
  emitUI([{kind: "text", text: "The clock went from " + event.from + " to " + event.to + "."}]);
});
on("reply_ready", (event) => {
  if (event.reply.includes("bell")) {
    setvar("alarm", 99);
    narrate("Somewhere below, a second bell answers.");
  }
  if (event.reply.startsWith("[draft]")) rewriteReply(event.reply.replace("[draft]", "The fog lifts."));
});
on("variables_changed", (event) => {
  const writes = event.writes.map((write) => write.path + " " + write.op).join(", ");
  emitUI([{kind: "text", text: "Changed: " + writes + "; alarm reads " + getvar("alarm")}]);
});
"""

BROKEN_HOOKS = """
on("reply_ready", () => {
  for (let i = 0; i < 12; i++) narrate("Drip " + i + ".");
  setvar("mood", {deep: true});
  narate("a typo");
});
"""

VARIABLES = """variables:
  - {id: alarm, label: {en: Alarm, zh: 警报}, kind: number, value: 0, min: 0, max: 3}
  - {id: frozen, label: {en: Time frozen, zh: 时间冻结}, kind: bool, value: false}
"""


def build(folder: Path, pack_id: str, script: str, declares: str = "") -> Path:
    """A pack `pack_id` with `script` as a skill's hooks.js, built into a file."""
    (folder / "skills" / "rules").mkdir(parents=True)
    (folder / "skills" / "rules" / "hooks.js").write_text(script)
    (folder / "pack.yaml").write_text(
        f"id: {pack_id}\nversion: 1.0.0\nname: Hooks\ndescription: Hooks for a test.\n"
        "authors: [Tests]\nlicense: CC0-1.0\ncontents: {skills: [skills]}\n" + declares
    )
    built = folder.parent / f"{pack_id}.lwpack"
    built.write_bytes(lwpack.build(folder))
    return built


# Both are the worker's (session scope): the modules of hooks at the table share one
# server, since each test plays in a room of its own and reads only the requests and
# frames of its own turns; starting it (two pack installs and a server) costs seconds.
@pytest.fixture(scope="session")
def hook_llm():
    """The scripted provider (see `fake_llm`)."""
    from loreweaver.testing.fake_llm import FakeLlm

    fake = FakeLlm().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="session")
def hook_table(hook_llm, tmp_path_factory):
    """The server, with both packs installed (on in no room yet)."""
    from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

    base = tmp_path_factory.mktemp("hook-table")
    env = create_env(base / "env", hosted=hosted_profile())
    for pack_id, script, declares in (
        ("table-hooks", TABLE_HOOKS, VARIABLES),
        ("broken-hooks", BROKEN_HOOKS, ""),
    ):
        installed = env.manage(
            "pack", "install", str(build(base / pack_id, pack_id, script, declares)), "--yes"
        )
        assert installed.returncode == 0, installed.stderr
    process = start_serve(
        env,
        TRPG_LLM__PROVIDER="openai",
        TRPG_LLM__BASE_URL=hook_llm.url,
        TRPG_LLM__API_KEY="sk-test-scripted-0000",
        TRPG_LLM__CHAT_MODEL="scripted-keeper",
        TRPG_LLM__RETRIES="0",
    )
    yield process
    process.stop()
    destroy_env(env)


async def turn_on(keeper: Client, pack_id: str, *others: Client) -> None:
    """The keeper turns the pack on in the room; everyone has read up to now."""
    await system_answer(keeper, f".panels enable {pack_id}")
    for client in (keeper, *others):
        await settle(client)


def keeper_rows(state: dict) -> dict[str, dict]:
    """A `state` frame's variables by id."""
    return {row["id"]: row for row in state.get("variables", [])}
