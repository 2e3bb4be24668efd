"""The upload of a request: the multipart body (spec 2.2, 2.5: a ``file`` part, an optional
``vendorId`` as a form field or query parameter) read part by part and handed to
``appliance.uploads`` as a stream of chunks, so that no file is held in memory.

HTTP only: the file's life on disk is ``appliance.uploads``'. Must not import ``server``
or ``appliance.cli``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage

from appliance.errors import BadRequest
from appliance.settings import Settings
from appliance.uploads import MB, StoredUpload, kept_if_recorded, stream_to_disk

CHUNK_BYTES = 256 * 1024
MAX_FIELD_BYTES = 256  # a vendorId is 36 characters; anything longer is not one


@asynccontextmanager
async def received(
    request: web.Request, settings: Settings, tenant_id: str
) -> AsyncIterator[tuple[StoredUpload, str | None]]:
    """The upload of ``request``, streamed to disk; yields ``(upload, vendor id text or None)``.

    Raises BadRequest (not multipart, malformed, no file), UnsupportedFileType (400) and
    FileTooLarge (413, past MAX_FILE_SIZE_MB). The file is removed when the block leaves before
    ``upload.recorded`` is set, an error included (``appliance.uploads.kept_if_recorded``).
    """
    upload, vendor_id = await _stream(request, settings, tenant_id)
    with kept_if_recorded(upload):
        yield upload, vendor_id


async def _chunks(part) -> AsyncIterator[bytes]:
    while chunk := await part.read_chunk(CHUNK_BYTES):
        yield chunk


async def _stream(request: web.Request, settings: Settings, tenant_id: str) -> tuple[StoredUpload, str | None]:
    if not request.content_type.startswith("multipart/"):
        raise BadRequest("Expected a multipart/form-data body with a 'file' field")
    upload, vendor_id = None, request.query.get("vendorId")
    try:
        reader = await request.multipart()
        async for part in reader:
            if part.name == "file" and upload is None:
                upload = await stream_to_disk(
                    _chunks(part), part.filename, settings.files_dir, tenant_id, settings.limits.MAX_FILE_SIZE_MB * MB
                )
            elif part.name == "vendorId":
                raw = await part.read_chunk(MAX_FIELD_BYTES + 1)
                vendor_id = raw.decode("utf-8", "replace").strip() if len(raw) <= MAX_FIELD_BYTES else "invalid"
            else:
                await part.release()
    except (ValueError, BadHttpMessage) as exc:  # malformed multipart framing or part headers
        if upload:
            upload.discard()
        raise BadRequest(f"Malformed multipart body: {exc}") from exc
    except BaseException:
        if upload:
            upload.discard()
        raise
    if upload is None:
        raise BadRequest("The 'file' field is required")
    return upload, vendor_id
