"""Media in the operator console: files per room with size and
uploader, an image preview for staff, and deletion that takes the blob with it."""

from __future__ import annotations

import hashlib
import os

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.urls import reverse

from media_store.models import MediaItem, storage_key
from rooms.services import room_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path},
        },
    }


@pytest.fixture
def picture():
    room = room_get_or_create(name="gallery")
    data = b"\x89PNG\r\n\x1a\n" + os.urandom(500)
    digest = hashlib.sha256(data).hexdigest()
    default_storage.save(storage_key(room.pk, digest), ContentFile(data))
    item = MediaItem.objects.create(
        room=room,
        sha256=digest,
        kind="image",
        mime="image/png",
        size=len(data),
        name="map.png",
        uploader_id="tui:00000001",
        uploader_name="Ada",
        frame_id="f1",
    )
    return item, data


def test_the_console_lists_previews_and_deletes_media_with_its_blob(admin_client, picture):
    item, data = picture
    listing = admin_client.get(reverse("admin:media_store_mediaitem_changelist")).content.decode()
    assert "map.png" in listing and "gallery" in listing and "Ada" in listing and str(len(data)) in listing
    page = admin_client.get(reverse("admin:media_store_mediaitem_change", args=[item.pk])).content.decode()
    blob_url = reverse("admin:media_store_mediaitem_blob", args=[item.pk])
    assert blob_url in page
    blob = admin_client.get(blob_url)
    assert b"".join(blob.streaming_content) == data and blob["Content-Type"] == "image/png"
    assert "sandbox" in blob["Content-Security-Policy"]
    admin_client.post(reverse("admin:media_store_mediaitem_delete", args=[item.pk]), {"post": "yes"})
    assert not MediaItem.objects.filter(pk=item.pk).exists()
    assert not default_storage.exists(item.storage_key)


def test_only_staff_reach_a_blob(client, picture):
    item, _ = picture
    response = client.get(reverse("admin:media_store_mediaitem_blob", args=[item.pk]))
    assert response.status_code == 302 and "/login/" in response["Location"]
