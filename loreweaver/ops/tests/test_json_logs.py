"""`TRPG_LOG_FORMAT=json` (docs/operations.md, "Logs"): one JSON object per log line,
each line of a connection's life naming its carrier, and once it joined its room and
member id, never its key."""

from __future__ import annotations

import json

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import dedicated_server

json_server = dedicated_server(TRPG_LOG_FORMAT="json", TRPG_LOG_LEVEL="DEBUG")


async def test_each_log_line_is_json_and_names_the_connection(json_server, room):
    key = json_server.env.mint(room, "Pip")
    async with await WsClient.connect(json_server.ws_url) as pip:
        await pip.join(key)
        await pip.say(".r 1d6")
        await pip.expect("dice")
        await pip.say("x" * 4001)  # refused: input_too_long
        await pip.expect("error")
    logged = [line for line in json_server.log_text().splitlines() if line.startswith("{")]
    records = [json.loads(line) for line in logged]
    assert records and all({"time", "level", "logger", "message"} <= set(r) for r in records)
    joins = [r for r in records if r["message"].startswith("join room=")]
    assert joins and joins[-1]["room"] == room and joins[-1]["carrier"] == "ws"
    assert joins[-1]["member"].startswith("tui:")
    assert key not in json_server.log_text(), "a key never reaches the log"
    banner = [line for line in json_server.log_text().splitlines() if line and not line.startswith("{")]
    assert all(not line.startswith(("INFO", "WARNING", "ERROR", "DEBUG")) for line in banner)
