"""Upload-time document inspection (pipeline.inspection) mapped onto the error tree: called after
the body is streamed and before the debit, so a refused file costs nothing and leaves nothing.

The check runs in a thread: it reads only headers and the PDF structure (milliseconds for the
dev set, bounded by the size limit), so it must not hold the event loop meanwhile.
"""
from __future__ import annotations

import asyncio

from appliance.errors import FileTooLarge, UnreadableUpload
from appliance.files import StoredUpload
from appliance.settings import Settings
from pipeline.inspection import DocumentInfo, RefusedDocument, inspect_document


async def check_document(settings: Settings, upload: StoredUpload) -> DocumentInfo:
    """Inspect the streamed (not yet committed) upload. Raises UnreadableUpload (400) for a
    truncated, corrupt, encrypted or polyglot file, FileTooLarge (413) past ``limits.max_pdf_pages``
    or Pillow's ``Image.MAX_IMAGE_PIXELS``. The caller discards the file on error."""
    try:
        return await asyncio.to_thread(inspect_document, upload.path, upload.media_type,
                                       max_pdf_pages=settings.limits.max_pdf_pages)
    except RefusedDocument as exc:
        raise (FileTooLarge if exc.too_large else UnreadableUpload)(str(exc)) from exc
