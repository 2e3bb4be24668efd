"""Uploaded files on disk: ``<data_dir>/files/<tenant_id>/<file_id>``, never a client's name.

A body is streamed to a ``.partial-*`` file beside its final place, with the size limit enforced
while streaming and the type decided by magic bytes from the first chunk; it is renamed into
place just before the database transaction that records it commits. ``reap_partials`` removes
what a crash left behind.
"""
from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from appliance.errors import FileTooLarge, UnsupportedFileType
from pipeline.sniff import SNIFF_BYTES, sniff

MB = 1024 * 1024


@dataclass
class StoredUpload:
    """A streamed upload: ``path`` (partial until ``commit``), size in bytes, SHA-256, sniffed type."""

    file_id: str
    path: Path
    final_path: Path
    size: int
    sha256: str
    media_type: str
    original_name: str | None

    def commit(self) -> None:
        os.replace(self.path, self.final_path)
        self.path = self.final_path

    def discard(self) -> None:
        for path in {self.path, self.final_path}:
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def clean_name(name: str | None) -> str | None:
    """A client's file name kept for display only: base name, no control characters, 255 chars."""
    if not name:
        return None
    name = unquote(name).replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable())
    return name[:255] or None


async def stream_to_disk(part, files_dir: Path, tenant_id: str, max_bytes: int) -> StoredUpload:
    """Stream an aiohttp multipart ``part`` to disk.

    Raises UnsupportedFileType (400) when the magic bytes are not PDF/JPEG/PNG (an empty file
    included) and FileTooLarge (413) past ``max_bytes``; in both cases nothing stays on disk.
    """
    folder = files_dir / tenant_id
    folder.mkdir(parents=True, exist_ok=True)
    file_id = str(uuid.uuid4())
    partial = folder / f".partial-{file_id}"
    digest = hashlib.sha256()
    size = 0
    head = b""
    media_type = None
    try:
        with open(partial, "wb") as out:
            while True:
                chunk = await part.read_chunk(256 * 1024)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_bytes:
                    raise FileTooLarge(
                        f"File too large: the limit is {max_bytes // MB} MB (MAX_FILE_SIZE_MB)"
                    )
                if media_type is None and len(head) < SNIFF_BYTES:
                    head += chunk[: SNIFF_BYTES - len(head)]
                    media_type = sniff(head)
                    if media_type is None and len(head) >= SNIFF_BYTES:
                        raise UnsupportedFileType(_unsupported())
                digest.update(chunk)
                out.write(chunk)
        if media_type is None:
            raise UnsupportedFileType(_unsupported())
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return StoredUpload(file_id, partial, folder / file_id, size, digest.hexdigest(), media_type,
                        clean_name(getattr(part, "filename", None)))


def _unsupported() -> str:
    return "Unsupported file type: upload a PDF, JPG, JPEG or PNG file"


def reap_partials(files_dir: Path) -> int:
    """Remove ``.partial-*`` files left by a crash mid-upload; returns how many were removed."""
    removed = 0
    if files_dir.is_dir():
        for path in files_dir.glob("*/.partial-*"):
            path.unlink(missing_ok=True)
            removed += 1
    return removed
