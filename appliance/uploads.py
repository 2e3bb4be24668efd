"""An uploaded file, from the request to the store: its one owner (DESIGN.md flow steps 1-2).

``stream_to_disk`` streams the file's bytes (``api.uploads`` reads them from the multipart body)
to a ``.partial-*`` file beside its final place ``<data_dir>/files/<tenant_id>/<file_id>``
(never a client's name), enforcing MAX_FILE_SIZE_MB while it streams and deciding the type by
magic bytes from the first chunk (``pipeline.reading.sniff``). Inside ``kept_if_recorded``'s
block, ``check`` refuses, before any debit, a file past
OCR_MAX_UPLOAD_MB and a hostile one (``inspect_document``); the block then records the upload: the file is
renamed into place (``StoredUpload.place``) just before the database transaction that records
it commits, and marked ``recorded`` once it has. On every other way out of the block, an error
included, the file is removed: a refused upload costs nothing and leaves nothing.
``reap_partials`` removes the partial files a crash left. What is made from a stored file (the
review pages' page images) lives in its ``derived_dir``, which goes wherever the file goes.

Inspection runs only cheap checks: PDF structure, page count and page sizes via pdfium (no page
is rendered), image header dimensions via Pillow (no full decode; a JPEG is decoded at 1/8
scale, which reads the whole entropy-coded stream at 1/64 of the memory).

Knows no HTTP: must not import ``api`` or aiohttp; raises the ``appliance.errors`` the API turns
into 400 and 413.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import shutil
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from appliance.errors import FileTooLarge, UnreadableUpload, UnsupportedFileType
from appliance.settings import Settings
from pipeline.reading.pdfium_lock import PDFIUM_LOCK  # one per process, shared with the pipeline
from pipeline.reading.sniff import JPEG, PDF, PNG, SNIFF_BYTES, sniff

MB = 1024 * 1024
CM_PER_POINT = 2.54 / 72
TAIL_BYTES = 64 * 1024 + 22  # a ZIP end-of-central-directory record lies within the last 64 KiB + 22 bytes
EOF_WINDOW = 1024  # PDF readers (Acrobat's implementation note 18) look for %%EOF in the last 1 KB
# Format signatures that must not appear where a second reader would honour them.
ZIP_EOCD = b"PK\x05\x06"
FOREIGN_PREFIXES = {
    b"PK\x03\x04": "ZIP",
    b"GIF8": "GIF",
    b"RIFF": "RIFF",
    b"\x7fELF": "ELF",
    b"MZ": "Windows executable",
    b"<": "HTML/XML",
    b"\x1f\x8b": "gzip",
}


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
    recorded: bool = False  # set once the transaction that records the file has committed

    def place(self) -> None:
        """Rename the file into its final place: inside the transaction that records it, just
        before COMMIT, so that a crash between the two leaves an unrecorded file, never a row
        without its file."""
        os.replace(self.path, self.final_path)
        self.path = self.final_path

    def discard(self) -> None:
        for path in {self.path, self.final_path}:
            path.unlink(missing_ok=True)


def derived_dir(stored: Path) -> Path:
    """The folder of what is made from the stored file ``stored`` and kept to be served again
    (``webui.page_images``: rendered pages): ``<file>.derived`` beside it. Whoever removes the
    file removes this folder with it; a backup leaves it out (it is made again on demand)."""
    return stored.with_name(f"{stored.name}.derived")


def remove_stored(stored: Path) -> int:
    """Remove the stored file ``stored`` and its ``derived_dir``; returns the bytes freed, 0 for
    what was already gone (so that a second removal is harmless). The file goes first: a review
    page rendering it meanwhile then finds it gone and removes what it cached
    (``webui.page_images.page_image``). Blocking: call in a thread. Raises OSError when the
    file or folder exists but cannot be removed (permissions)."""
    freed = 0
    try:
        freed += stored.stat().st_size
        stored.unlink()
    except FileNotFoundError:
        pass
    derived, counted = derived_dir(stored), set()
    for _ in range(3):  # a page image renamed into the folder while it is removed: look again
        if not derived.is_dir():
            break
        for item in set(derived.rglob("*")) - counted:
            counted.add(item)
            freed += _size(item)
        try:
            shutil.rmtree(derived)
        except FileNotFoundError:
            break
        except OSError as exc:
            if exc.errno != errno.ENOTEMPTY:
                raise
    return freed


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except FileNotFoundError:
        return 0


@dataclass(frozen=True)
class DocumentInfo:
    """What inspection learnt: the sniffed type, pages (1 for an image), pixel size of an image."""

    media_type: str
    pages: int
    width: int | None = None
    height: int | None = None


@contextmanager
def kept_if_recorded(upload: StoredUpload) -> Iterator[StoredUpload]:
    """The block that checks and records ``upload``: on every way out of it before
    ``upload.recorded`` is set, an error included, the file is removed."""
    try:
        yield upload
    finally:
        if not upload.recorded:
            upload.discard()


async def stream_to_disk(
    chunks: AsyncIterator[bytes], name: str | None, files_dir: Path, tenant_id: str, max_bytes: int
) -> StoredUpload:
    """Stream an upload's ``chunks`` (the client's file ``name``, display only) to a partial file
    of ``files_dir/tenant_id``.

    Raises UnsupportedFileType (400) when the magic bytes are not PDF/JPEG/PNG (an empty file
    included) and FileTooLarge (413) past ``max_bytes``; in both cases nothing stays on disk.
    """
    folder = files_dir / tenant_id
    folder.mkdir(parents=True, exist_ok=True)
    file_id = str(uuid.uuid4())
    partial = folder / f".partial-{file_id}"
    digest = hashlib.sha256()
    size, head, media_type = 0, b"", None
    try:
        with open(partial, "wb") as out:
            async for chunk in chunks:
                size += len(chunk)
                if size > max_bytes:
                    raise FileTooLarge(f"File too large: the limit is {max_bytes // MB} MB (MAX_FILE_SIZE_MB)")
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
    return StoredUpload(
        file_id,
        partial,
        folder / file_id,
        size,
        digest.hexdigest(),
        media_type,
        clean_name(name),
    )


def clean_name(name: str | None) -> str | None:
    """A client's file name kept for display only: base name, no control characters, 255 chars."""
    if not name:
        return None
    name = unquote(name).replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if ch.isprintable())
    return name[:255] or None


def reap_partials(files_dir: Path) -> int:
    """Remove ``.partial-*`` files left by a crash mid-upload; returns how many were removed."""
    removed = 0
    if files_dir.is_dir():
        for path in files_dir.glob("*/.partial-*"):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _unsupported() -> str:
    return "Unsupported file type: upload a PDF, JPG, JPEG or PNG file"


# --------------------------------------------------------------------------- checks before the debit


async def check(settings: Settings, upload: StoredUpload) -> DocumentInfo:
    """Refuse a streamed upload the workers should not get, before any debit: past
    OCR_MAX_UPLOAD_MB (better than spec 3.1 rule 5, unless ``limits.accept_over_ocr_limit``
    restores the spec's behaviour), or hostile (``inspect_document``, run in a thread:
    milliseconds for the dev set, bounded by the size limit). Raises FileTooLarge (413) or
    UnreadableUpload (400)."""
    limits = settings.limits
    if upload.size > limits.OCR_MAX_UPLOAD_MB * MB and not limits.accept_over_ocr_limit:
        raise FileTooLarge(
            f"File too large for OCR: the OCR limit is {limits.OCR_MAX_UPLOAD_MB} MB (OCR_MAX_UPLOAD_MB)"
        )
    return await asyncio.to_thread(
        inspect_document,
        upload.path,
        upload.media_type,
        max_pdf_pages=limits.max_pdf_pages,
        max_pdf_page_points=limits.max_pdf_page_points,
    )


def inspect_document(
    path: Path,
    media_type: str,
    *,
    max_pdf_pages: int,
    max_pdf_page_points: float,
    max_image_pixels: int | None = None,
) -> DocumentInfo:
    """Check the document at ``path`` whose magic bytes said ``media_type``.

    ``max_pdf_pages``: a PDF with more pages is refused (FileTooLarge). ``max_pdf_page_points``:
    so is a PDF with a page wider or taller than this, in PDF points (1/72 inch), the message
    naming the first such page and its size. ``max_image_pixels``
    (default Pillow's ``Image.MAX_IMAGE_PIXELS``, which the pipeline's decoder also honours):
    width x height above it is a decompression bomb (FileTooLarge). A truncated, corrupt,
    encrypted or polyglot file raises UnreadableUpload; each message says what to do.
    """
    if max_image_pixels is None:
        from PIL import Image

        max_image_pixels = int(Image.MAX_IMAGE_PIXELS or 2**62)
    head, tail = _ends(path)
    _check_polyglot(head, tail, media_type)
    if media_type == PDF:
        return _inspect_pdf(path, tail, max_pdf_pages, max_pdf_page_points)
    if media_type in (PNG, JPEG):
        return _inspect_image(path, media_type, max_image_pixels)
    raise UnsupportedFileType(_unsupported())


def _ends(path: Path) -> tuple[bytes, bytes]:
    with open(path, "rb") as handle:
        head = handle.read(SNIFF_BYTES)
        size = handle.seek(0, 2)
        handle.seek(max(0, size - TAIL_BYTES))
        return head, handle.read()


def _check_polyglot(head: bytes, tail: bytes, media_type: str) -> None:
    """One file, one type: refuse bytes that another reader would open as a different format.

    A PDF may carry junk before ``%PDF-`` (sniff allows 1 KB), but not another format's header;
    nor may a ZIP directory end it (a PDF+ZIP polyglot). An image must not contain a PDF header
    in its first KB, which PDF readers would honour.
    """
    if media_type == PDF:
        prefix = head[: head.find(b"%PDF-")]
        for magic, name in FOREIGN_PREFIXES.items():
            if prefix.lstrip(b"\r\n\t ").startswith(magic):
                raise UnreadableUpload(_polyglot(f"PDF and {name}"))
        if _ends_with_zip(tail):
            raise UnreadableUpload(_polyglot("PDF and ZIP"))
    elif b"%PDF-" in head:
        raise UnreadableUpload(_polyglot(f"{media_type.split('/')[1].upper()} and PDF"))


def _ends_with_zip(tail: bytes) -> bool:
    """True when a ZIP end-of-central-directory record ends the file exactly (with its comment),
    which is where every ZIP reader looks; stray ``PK\\5\\6`` bytes in a compressed stream do not."""
    at = tail.find(ZIP_EOCD)
    while at != -1:
        if at + 22 <= len(tail) and at + 22 + int.from_bytes(tail[at + 20 : at + 22], "little") == len(tail):
            return True
        at = tail.find(ZIP_EOCD, at + 1)
    return False


def _polyglot(kinds: str) -> str:
    return f"Ambiguous file: it is both {kinds}; upload the invoice as a plain PDF, JPG or PNG file"


def _inspect_pdf(path: Path, tail: bytes, max_pages: int, max_page_points: float) -> DocumentInfo:
    import pypdfium2 as pdfium

    if b"%%EOF" not in tail[-EOF_WINDOW:]:
        raise UnreadableUpload(
            "Unreadable PDF: the file is truncated (no %%EOF marker at its end); upload the complete file"
        )
    with PDFIUM_LOCK:
        try:
            pdf = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise UnreadableUpload(
                    "Encrypted PDF: it needs a password to open; upload an unprotected copy"
                ) from exc
            raise UnreadableUpload(f"Unreadable PDF: {exc}; upload an intact copy of the file") from exc
        try:
            pages = len(pdf)
            if pages < 1:
                raise UnreadableUpload("Unreadable PDF: it has no pages")
            if pages > max_pages:
                raise FileTooLarge(
                    f"PDF has too many pages: {pages}, the limit is {max_pages} "
                    "(limits.max_pdf_pages); upload one invoice per file"
                )
            _check_page_sizes(pdf, max_page_points)
            first = pdf[0]  # parses the first page's dictionary: a broken page tree fails here
            first.close()
        finally:
            pdf.close()
    return DocumentInfo(PDF, pages)


def _check_page_sizes(pdf, max_points: float) -> None:
    """FileTooLarge for the first page wider or taller than ``max_points``: a few hundred bytes can
    declare a 200 x 200 inch page, which the review page and OCR would render (issue 28). Reads
    each page's size from its dictionary (FPDF_GetPageSizeByIndexF), without parsing its content.
    UnreadableUpload for a page the page tree counts but does not hold (the pipeline could not
    load it either)."""
    import pypdfium2 as pdfium

    for index in range(len(pdf)):
        try:
            width, height = pdf.get_page_size(index)
        except pdfium.PdfiumError as exc:
            raise UnreadableUpload(
                f"Unreadable PDF: page {index + 1} of {len(pdf)} is missing from its page tree; "
                "upload an intact copy of the file"
            ) from exc
        if max(width, height) > max_points:
            raise FileTooLarge(
                f"PDF page too large: page {index + 1} is {width:.0f} x {height:.0f} pt "
                f"({width * CM_PER_POINT:.0f} x {height * CM_PER_POINT:.0f} cm), the limit is "
                f"{max_points:.0f} pt ({max_points * CM_PER_POINT:.0f} cm) per side (limits.max_pdf_page_points); "
                "upload the invoice at its paper size"
            )


def _inspect_image(path: Path, media_type: str, max_pixels: int) -> DocumentInfo:
    from PIL import Image, UnidentifiedImageError

    too_large = FileTooLarge(
        f"Image too large: its header declares more than {max_pixels} pixels; upload a smaller scan"
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # we compare ourselves
            with Image.open(path) as image:  # reads the header only
                width, height = image.size
                if width * height > max_pixels:
                    raise FileTooLarge(
                        f"Image too large: {width} x {height} pixels, the limit is "
                        f"{max_pixels} pixels; upload a smaller scan"
                    )
                if media_type == PNG:
                    image.verify()  # chunk CRCs through IEND, without decoding pixels
                else:
                    image.draft("RGB", (max(1, width // 8), max(1, height // 8)))
                    image.load()  # the whole JPEG stream, decoded at 1/8 scale
    except Image.DecompressionBombError as exc:
        raise too_large from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise UnreadableUpload(f"Unreadable image: {exc}; upload an intact copy of the file") from exc
    return DocumentInfo(media_type, 1, width, height)
