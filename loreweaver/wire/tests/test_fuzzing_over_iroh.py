"""Thousands of seeded hostile messages over Iroh break nothing (`fuzz_run.py`;
docs/operations.md, "Hostile input")."""

from loreweaver.wire.tests.fuzz_run import fuzz_server, fuzzed_messages_break_nothing

server = fuzz_server()


async def test_fuzzed_messages_break_nothing(server, room):
    await fuzzed_messages_break_nothing(server, room, "iroh")
