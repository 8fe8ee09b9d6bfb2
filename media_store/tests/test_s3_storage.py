"""The hosted profile keeps blobs in S3-compatible storage: a
real S3 server on loopback (moto's server mode, in its own process), a loreweaver
server with `MEDIA_STORAGE=s3`, and files that round-trip over both carriers while
the bytes land in the bucket under `media/<room>/<sha256>`."""

from __future__ import annotations

import os

import pytest

from loreweaver.testing.clients import connect
from loreweaver.testing.media_clients import get, sha, upload
from loreweaver.testing.s3 import BUCKET
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve


@pytest.fixture(scope="module")
def s3_server(s3, tmp_path_factory):
    env = create_env(tmp_path_factory.mktemp("s3"), hosted=hosted_profile())
    process = start_serve(env, **s3.settings())
    yield process
    process.stop()
    destroy_env(env)


@pytest.mark.parametrize("carrier", ["ws", "iroh"])
async def test_blobs_live_in_the_bucket(s3_server, s3, carrier):
    client = s3.client
    room = f"s3-{carrier}"
    data = b"ID3\x04" + os.urandom(300_000)
    async with await connect(carrier, s3_server) as member:
        await member.join(s3_server.env.mint(room, "Sam"))
        stored = await upload(member, data, "audio/mpeg", "song.mp3")
        header, body = await get(member, stored["hash"])
    assert header["size"] == len(data) and body == data
    keys = [o["Key"] for o in client.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
    (key,) = [k for k in keys if k.endswith("/" + sha(data))]
    assert key.startswith("media/") and client.get_object(Bucket=BUCKET, Key=key)["Body"].read() == data
    assert not (s3_server.env.data_dir / "media").exists() or not any(
        (s3_server.env.data_dir / "media").rglob("*")
    ), "nothing is kept on the local disk"
