"""Drawing an image through any OpenAI-compatible images API (the `openai` SDK's
`images.generate`): portraits for `.avatar gen`, scenes and handouts for the Keeper.

An endpoint answers with the image itself (`b64_json`) or with a link to it; either
way what comes back must be a PNG, JPEG, WebP or GIF within the media size limit
before it is stored as the room's media.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from django.conf import settings

from base.i18n import Refusal, _
from keeper.llm import endpoints
from keeper.llm.config import ImageGenConfig
from media_store.models import MediaItem
from media_store.services import Uploader, store_bytes

# How an image file starts, by type.
SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


class ImageError(Refusal):
    """An image that could not be drawn; the message says why."""


class ImageEndpointRefused(ImageError):
    """The endpoint policy refused the image endpoint (or a link it answered with)."""

    def __init__(self, refused: endpoints.EndpointRefused) -> None:
        Exception.__init__(self, str(refused))
        self.refused = refused

    def message(self, locale: str) -> str:
        """The policy's refusal, in `locale`."""
        return self.refused.message(locale)


@dataclass(frozen=True)
class Drawing:
    """An image the endpoint drew."""

    data: bytes
    mime: str


def mime_of(data: bytes) -> str | None:
    """The image type of `data` by its first bytes, or None for anything else."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for signature, mime in SIGNATURES if data.startswith(signature)), None)


def draw(config: ImageGenConfig, prompt: str) -> Drawing:
    """Ask the endpoint for one image of `prompt` (blocking: call it from a worker thread)."""
    import openai  # loaded with the first image (it is slow to import)

    from keeper.llm import guarded_http  # httpx is loaded with the first request

    client = guarded_http.openai_client(
        config.base_url,
        config.api_key,
        operator=config.operator_endpoint,
        timeout=settings.TRPG_LLM_TIMEOUT,
        max_retries=settings.TRPG_LLM_RETRIES,
    )
    try:
        response = client.images.generate(model=config.model, prompt=prompt[:4000], size=config.size, n=1)
    except endpoints.EndpointRefused as refused:
        raise ImageEndpointRefused(refused) from None
    except openai.OpenAIError as failure:
        raise ImageError(
            _("The image endpoint did not draw it ({why})."), why=failure.__class__.__name__
        ) from None
    image = response.data[0] if response.data else None
    if image is not None and image.b64_json:
        try:
            data = base64.b64decode(image.b64_json, validate=True)
        except (binascii.Error, ValueError):
            data = b""
    elif image is not None and image.url and image.url.startswith(("https://", "http://")):
        data = _download(image.url, operator=config.operator_endpoint)
    else:
        data = b""
    mime = mime_of(data)
    if mime is None:
        raise ImageError(_("The image endpoint answered with something that is not an image."))
    if len(data) > settings.TRPG_MEDIA_IMAGE_MAX:
        raise ImageError(_("The drawn image is larger than this server accepts."))
    return Drawing(data, mime)


def store_drawing(uploader: Uploader, title: str, drawn: Drawing) -> MediaItem:
    """Store a drawing as the room's media, as `uploader` (limits and quotas apply).
    Raises `MediaError`."""
    name = f"{title.strip()[:100] or 'image'}.{EXTENSIONS[drawn.mime]}"
    return store_bytes(uploader, name=name, mime=drawn.mime, data=drawn.data)


def _download(url: str, *, operator: bool) -> bytes:
    """The image behind the endpoint's link, read no further than the size limit. The
    link is held to the same endpoint policy as the endpoint that gave it."""
    import httpx2

    from keeper.llm import guarded_http  # httpx is loaded with the first request

    limit = settings.TRPG_MEDIA_IMAGE_MAX
    try:
        with (
            guarded_http.http_client(operator=operator, timeout=settings.TRPG_LLM_TIMEOUT) as client,
            client.stream("GET", url) as response,
        ):
            response.raise_for_status()
            data = b""
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > limit:
                    break
    except endpoints.EndpointRefused as refused:
        raise ImageEndpointRefused(refused) from None
    except (httpx2.HTTPError, OSError) as failure:
        raise ImageError(
            _("The image endpoint did not draw it ({why})."), why=failure.__class__.__name__
        ) from None
    if len(data) > limit:
        raise ImageError(_("The drawn image is larger than this server accepts."))
    return data
