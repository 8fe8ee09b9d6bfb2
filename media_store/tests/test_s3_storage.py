"""The hosted profile keeps blobs in S3-compatible storage: a
real S3 server on loopback (moto's server mode, in its own process), a loreweaver
server with `MEDIA_STORAGE=s3`, and files that round-trip over both carriers while
the bytes land in the bucket under `media/<room>/<sha256>`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest

from loreweaver.testing.clients import connect
from loreweaver.testing.media_clients import get, sha, upload
from loreweaver.testing.servers import create_env, destroy_env, hosted_profile, start_serve

BUCKET = "loreweaver-media"
CREDENTIALS = {
    "aws_access_key_id": "test",
    "aws_secret_access_key": "test-secret",
    "region_name": "us-east-1",
}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint():
    port = _free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    client = boto3.client("s3", endpoint_url=url, **CREDENTIALS)
    deadline = time.monotonic() + 30
    while True:  # wait for the server to answer (its start, not a guess)
        try:
            client.create_bucket(Bucket=BUCKET)
            break
        except Exception:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise
            time.sleep(0.1)
    yield url, client
    server.terminate()
    server.wait(10)


@pytest.fixture(scope="module")
def s3_server(s3_endpoint, tmp_path_factory):
    url, _client = s3_endpoint
    env = create_env(tmp_path_factory.mktemp("s3"), hosted=hosted_profile())
    process = start_serve(
        env,
        MEDIA_STORAGE="s3",
        AWS_STORAGE_BUCKET_NAME=BUCKET,
        AWS_S3_ENDPOINT_URL=url,
        AWS_ACCESS_KEY_ID=CREDENTIALS["aws_access_key_id"],
        AWS_SECRET_ACCESS_KEY=CREDENTIALS["aws_secret_access_key"],
        AWS_S3_REGION_NAME=CREDENTIALS["region_name"],
    )
    yield process
    process.stop()
    destroy_env(env)


@pytest.mark.parametrize("carrier", ["ws", "iroh"])
async def test_blobs_live_in_the_bucket(s3_server, s3_endpoint, carrier):
    _url, client = s3_endpoint
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
