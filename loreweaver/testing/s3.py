"""A real S3 server on loopback for the tests of S3 media storage: moto's server mode,
in a process of its own, with one bucket."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3

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


class S3Server:
    """moto's S3 server with the bucket `BUCKET`; `client` is a boto3 client of it."""

    def __init__(self) -> None:
        port = _free_port()
        self.process = subprocess.Popen(
            [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.url = f"http://127.0.0.1:{port}"
        self.client = boto3.client("s3", endpoint_url=self.url, **CREDENTIALS)
        deadline = time.monotonic() + 30
        while True:  # wait for the server to answer (its start, not a guess)
            try:
                self.client.create_bucket(Bucket=BUCKET)
                break
            except Exception:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.process.kill()
                    raise
                time.sleep(0.1)

    def settings(self) -> dict[str, str]:
        """The server environment that keeps media (and backup copies) in this bucket."""
        return {
            "MEDIA_STORAGE": "s3",
            "AWS_STORAGE_BUCKET_NAME": BUCKET,
            "AWS_S3_ENDPOINT_URL": self.url,
            "AWS_ACCESS_KEY_ID": CREDENTIALS["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": CREDENTIALS["aws_secret_access_key"],
            "AWS_S3_REGION_NAME": CREDENTIALS["region_name"],
        }

    def keys(self, prefix: str = "") -> list[str]:
        """The object keys in the bucket under `prefix`."""
        listed = self.client.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
        return sorted(item["Key"] for item in listed.get("Contents", []))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)
