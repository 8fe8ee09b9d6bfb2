"""Servers for the media tests."""

from __future__ import annotations

import secrets

import pytest

from rooms.tests.servers import create_env, destroy_env, hosted_profile, start_serve


@pytest.fixture(scope="module")
def media_server(tmp_path_factory):
    """A server with the default media limits."""
    env = create_env(tmp_path_factory.mktemp("media"), hosted=hosted_profile())
    process = start_serve(env)
    yield process
    process.stop()
    destroy_env(env)


@pytest.fixture(scope="module")
def tight_server(tmp_path_factory):
    """A server with small limits: 3 uploads a minute, 2000-byte images, 3000 per room."""
    env = create_env(tmp_path_factory.mktemp("tight"), hosted=hosted_profile())
    process = start_serve(
        env,
        TRPG_MEDIA__UPLOADS_PER_MINUTE="3",
        TRPG_MEDIA__IMAGE_MAX_BYTES="2000",
        TRPG_MEDIA__IMAGE_ROOM_BYTES="3000",
    )
    yield process
    process.stop()
    destroy_env(env)


@pytest.fixture
def room() -> str:
    return f"room-{secrets.token_hex(4)}"


@pytest.fixture(params=["ws", "iroh"])
def carrier(request: pytest.FixtureRequest) -> str:
    return request.param
