"""Keys are shown once and stored only as digests (docs/decisions.md, "Keys and keeper administration")."""

from __future__ import annotations

import subprocess

from loreweaver.testing.clients import WsClient
from loreweaver.testing.servers import POSTGRES_ADMIN_URL, start_serve


def _everything_on_disk(env) -> bytes:
    """Every byte the server keeps: its data dir (SQLite, logs, files) and its database."""
    blobs = [path.read_bytes() for path in env.data_dir.rglob("*") if path.is_file()]
    if env.hosted:
        url = POSTGRES_ADMIN_URL.rsplit("/", 1)[0] + "/" + env.database
        dump = subprocess.run(["pg_dump", "--data-only", url], capture_output=True, check=True)
        blobs.append(dump.stdout)
    return b"\n".join(blobs)


async def test_a_minted_key_is_the_last_line_of_stdout_and_is_stored_nowhere(fresh_env):
    result = fresh_env.manage("mint_key", "--room", "vault", "--name", "Vera", "--role", "keeper")
    assert result.returncode == 0, result.stderr
    stdout_lines = result.stdout.strip().splitlines()
    key = stdout_lines[-1]
    assert len(key) >= 24 and stdout_lines == [key], "nothing but the key on stdout"
    assert key not in result.stderr

    server = start_serve(fresh_env)
    try:
        async with await WsClient.connect(server.ws_url) as client:
            frames = await client.join(key)
            assert frames[0]["you"]["role"] == "keeper"
            await client.say("the vault is open")
            await client.expect("narrative")
        banner = "\n".join(server.banner)
    finally:
        server.stop()
    assert key not in banner
    on_disk = _everything_on_disk(fresh_env)
    assert key.encode() not in on_disk
    assert b"the vault is open" in on_disk  # the dump really holds the room's data


async def test_the_first_start_mints_a_keeper_key_for_table_once(fresh_env):
    fresh_env.keys_file.unlink()  # no keys anywhere: a brand-new server
    first = start_serve(fresh_env)
    first.stop()
    key = first.banner_value('Keeper key for room "table" (shown once, store it now): ')
    assert key
    second = start_serve(fresh_env)
    try:
        assert second.banner_value("Keeper key") is None, "a key is never shown twice"
        async with await WsClient.connect(second.ws_url) as client:
            welcome = (await client.join(key))[0]
    finally:
        second.stop()
    assert welcome["room"] == "table" and welcome["you"]["role"] == "keeper"
    assert key.encode() not in _everything_on_disk(fresh_env)


async def test_a_reference_keys_toml_imports_and_its_keys_join(fresh_env, tmp_path):
    reference = tmp_path / "keys.toml"
    reference.write_text(
        '["ref-keeper-key-0123456789abcdef"]\nroom = "moor"\nname = "Morag"\nrole = "keeper"\n\n'
        '["ref-player-key-0123456789abcdef"]\nroom = "moor"\nname = "Pip"\n'
    )
    result = fresh_env.manage("import_keys", str(reference))
    assert result.returncode == 0, result.stderr
    assert "Imported 2" in result.stdout
    server = start_serve(fresh_env)
    try:
        async with (
            await WsClient.connect(server.ws_url) as keeper,
            await WsClient.connect(server.ws_url) as player,
        ):
            keeper_welcome = (await keeper.join("ref-keeper-key-0123456789abcdef"))[0]
            player_welcome = (await player.join("ref-player-key-0123456789abcdef"))[0]
    finally:
        server.stop()
    assert (keeper_welcome["room"], keeper_welcome["you"]["role"]) == ("moor", "keeper")
    assert player_welcome["you"]["role"] == "player", "a missing role means player"
    assert b"ref-player-key-0123456789abcdef" not in _everything_on_disk(fresh_env)


async def test_a_bad_keys_toml_imports_nothing_and_says_why(fresh_env, tmp_path):
    bad = tmp_path / "keys.toml"
    bad.write_text(
        '["good-key-aaaaaaaaaaaaaaaa"]\nroom = "r"\nname = "A"\n\n["bad"]\nroom = "r"\nrole = "god"\n'
    )
    result = fresh_env.manage("import_keys", str(bad))
    assert result.returncode != 0
    assert "entry 2" in result.stderr and "god" in result.stderr
    listing = fresh_env.manage("export_keys", str(tmp_path / "out.toml"))
    assert "Wrote 0 key(s)" in listing.stdout


async def test_exported_keys_are_digests_that_restore_the_same_keys_elsewhere(fresh_env, tmp_path):
    key = fresh_env.manage("mint_key", "--room", "moved", "--name", "Mo").stdout.strip().splitlines()[-1]
    exported = tmp_path / "export.toml"
    result = fresh_env.manage("export_keys", str(exported))
    assert "digests" in result.stdout
    text = exported.read_text()
    assert key not in text and "sha256:" in text and "DIGESTS" in text

    from loreweaver.testing.servers import create_env, destroy_env

    elsewhere = create_env(tmp_path / "elsewhere", hosted=fresh_env.hosted)
    try:
        assert elsewhere.manage("import_keys", str(exported)).returncode == 0
        server = start_serve(elsewhere)
        try:
            async with await WsClient.connect(server.ws_url) as client:
                welcome = (await client.join(key))[0]
        finally:
            server.stop()
    finally:
        destroy_env(elsewhere)
    assert welcome["room"] == "moved" and welcome["you"]["name"] == "Mo"
