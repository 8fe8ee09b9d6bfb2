"""Media benchmark: PUT and GET throughput over WebSocket and Iroh.

Uploads (offer, PUT, stored and announced) and downloads (GET) files of each size
through this server over both carriers, and copies the same bytes in the same run over
two baselines: a raw loopback TCP socket, and a bare Iroh stream between two endpoints
(no server, no protocol), which shows what the QUIC library itself manages here. The
bare stream runs twice: with the one-copy write this server installs into the Iroh
binding (`loreweaver/wire/iroh_bytes.py`), and with the binding's own byte-by-byte
loop, to show what that replacement is worth. Prints MB/s for each and the ratios;
compare ratios across machines.

    python bench/media.py            # 8 MiB and 100 MiB
    python bench/media.py --quick    # 1 MiB and 4 MiB (the CI run)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loreweaver.testing.clients import connect  # noqa: E402
from loreweaver.testing.media_clients import get, sha, upload  # noqa: E402
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve  # noqa: E402

MIB = 1024 * 1024


def raw_copy_rate(data: bytes) -> float:
    """MB/s of sending `data` over a loopback TCP socket to a reader that drains it."""
    listener = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def drain() -> None:
        connection, _ = listener.accept()
        with connection:
            while connection.recv(1 << 20):
                pass
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    start = time.perf_counter()
    with socket.create_connection(listener.getsockname()) as sender:
        sender.sendall(data)
    done.wait(60)
    elapsed = time.perf_counter() - start
    listener.close()
    return len(data) / MIB / elapsed


async def raw_iroh_rate(data: bytes, *, binding_loop: bool = False) -> float:
    """MB/s of one bare Iroh stream carrying `data` between two loopback endpoints; with
    `binding_loop`, through the binding's own byte-by-byte copy."""
    import iroh
    from iroh import Endpoint, EndpointOptions, RelayMode, iroh_ffi

    from loreweaver.wire import iroh_bytes

    if binding_loop:
        iroh_ffi._UniffiRustBufferBuilder.write = iroh_bytes.library_write()
        try:
            return await raw_iroh_rate(data)
        finally:
            iroh_ffi._UniffiRustBufferBuilder.write = iroh_bytes._write

    alpn = b"bench/1"

    def options(**extra: object) -> EndpointOptions:
        return EndpointOptions(
            preset=iroh.preset_n0_disable_relay(),
            relay_mode=RelayMode.disabled(),
            bind_addr="127.0.0.1:0",
            **extra,
        )

    server = await Endpoint.bind(options(alpns=[alpn]))
    client = await Endpoint.bind(options())

    async def receive() -> None:
        connection = await (await (await server.accept_next()).accept()).connect()
        stream = await connection.accept_bi()
        while await stream.recv().read(64 * 1024):
            pass

    receiver = asyncio.create_task(receive())
    start = time.perf_counter()
    connection = await client.connect(server.addr(), alpn)
    stream = await connection.open_bi()
    for offset in range(0, len(data), 64 * 1024):
        await stream.send().write_all(data[offset : offset + 64 * 1024])
    await stream.send().finish()
    await receiver
    elapsed = time.perf_counter() - start
    await client.close()
    await server.close()
    return len(data) / MIB / elapsed


async def carrier_rates(server, carrier: str, data: bytes, room: str) -> tuple[float, float]:
    """(PUT MB/s, GET MB/s) of one file over one carrier."""
    async with await connect(carrier, server) as client:
        await client.join(server.env.mint(room, f"bench-{carrier}"))
        start = time.perf_counter()
        stored = await upload(client, data, "audio/mpeg", "bench.mp3")
        put_seconds = time.perf_counter() - start
        start = time.perf_counter()
        header, body = await get(client, stored["hash"])
        get_seconds = time.perf_counter() - start
    assert sha(body) == sha(data), header
    size = len(data) / MIB
    return size / put_seconds, size / get_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small files (CI)")
    args = parser.parse_args()
    sizes = [1, 4] if args.quick else [8, 100]

    env = create_env(Path(tempfile.mkdtemp(prefix="media-")), hosted=hosted_profile())
    server = start_serve(env)
    rows, loops = [], []
    try:
        for size in sizes:
            data = b"ID3\x04" + os.urandom(size * MIB - 4)
            baseline = {"ws": raw_copy_rate(data), "iroh": asyncio.run(raw_iroh_rate(data))}
            looped = asyncio.run(raw_iroh_rate(data, binding_loop=True))
            loops.append((size, looped, baseline["iroh"]))
            for carrier in ("ws", "iroh"):
                put_rate, get_rate = asyncio.run(
                    carrier_rates(server, carrier, data, f"bench-{size}-{carrier}")
                )
                rows.append((size, carrier, put_rate, get_rate, baseline[carrier]))
    finally:
        server.stop()
        destroy_env(env)

    profile = "hosted (Postgres + Redis)" if hosted_profile() else "embedded (SQLite, files on disk)"
    print(f"media: one file at a time, profile {profile}")
    print("  (baseline: a raw TCP socket for WebSocket, a bare Iroh stream for Iroh)")
    for size, carrier, put_rate, get_rate, raw in rows:
        print(
            f"  {size:4d} MiB {carrier:4s}  PUT {put_rate:8.1f} MB/s  GET {get_rate:8.1f} MB/s"
            f"  baseline {raw:8.1f} MB/s  ratio PUT {put_rate / raw:.3f} GET {get_rate / raw:.3f}"
        )
    print("  bare Iroh stream: the binding's own byte loop against the one copy installed here")
    for size, looped, copied in loops:
        print(
            f"  {size:4d} MiB  loop {looped:8.1f} MB/s  one copy {copied:8.1f} MB/s"
            f"  ratio {copied / looped:.1f}"
        )


if __name__ == "__main__":
    main()
