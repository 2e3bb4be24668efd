"""Inspect an uploaded document before anyone pays for it: is it one readable PDF, JPEG or PNG
of a size the workers can handle?

Called on the upload path after the body is streamed and before the debit, so hostile input
(truncated, corrupt, encrypted, polyglot, decompression bombs, thousands of pages) is refused
with a 4xx and nothing is kept. Only cheap checks run here: PDF structure and page count via
pdfium (no page is rendered), image header dimensions via Pillow (no full decode; a JPEG is
decoded at 1/8 scale, which reads the whole entropy-coded stream at 1/64 of the memory).

Pure: no ``api`` or ``appliance`` imports; raises ``RefusedDocument`` that the caller maps to
an HTTP status.
"""
from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from pipeline.sniff import JPEG, PDF, PNG, SNIFF_BYTES

TAIL_BYTES = 64 * 1024 + 22  # a ZIP end-of-central-directory record lies within the last 64 KiB + 22 bytes
EOF_WINDOW = 1024  # PDF readers (Acrobat's implementation note 18) look for %%EOF in the last 1 KB
# Format signatures that must not appear where a second reader would honour them.
ZIP_EOCD = b"PK\x05\x06"
FOREIGN_PREFIXES = {b"PK\x03\x04": "ZIP", b"GIF8": "GIF", b"RIFF": "RIFF", b"\x7fELF": "ELF",
                    b"MZ": "Windows executable", b"<": "HTML/XML", b"\x1f\x8b": "gzip"}
# pdfium is not thread-safe (pypdfium2 docs): inspections in the server's threads take turns.
PDFIUM_LOCK = threading.Lock()


class RefusedDocument(ValueError):
    """The document is refused. ``too_large`` distinguishes a size limit (HTTP 413) from a
    document that is unreadable or ambiguous (HTTP 400). The message says what to do."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


@dataclass(frozen=True)
class DocumentInfo:
    """What inspection learnt: the sniffed type, pages (1 for an image), pixel size of an image."""

    media_type: str
    pages: int
    width: int | None = None
    height: int | None = None


def inspect_document(path: Path, media_type: str, *, max_pdf_pages: int,
                     max_image_pixels: int | None = None) -> DocumentInfo:
    """Check the document at ``path`` whose magic bytes said ``media_type``.

    ``max_pdf_pages``: a PDF with more pages is refused (too large). ``max_image_pixels``
    (default Pillow's ``Image.MAX_IMAGE_PIXELS``, which the pipeline's decoder also honours):
    width x height above it is a decompression bomb (too large). Raises RefusedDocument.
    """
    if max_image_pixels is None:
        from PIL import Image

        max_image_pixels = int(Image.MAX_IMAGE_PIXELS or 2**62)
    head, tail = _ends(path)
    _check_polyglot(head, tail, media_type)
    if media_type == PDF:
        return _inspect_pdf(path, tail, max_pdf_pages)
    if media_type in (PNG, JPEG):
        return _inspect_image(path, media_type, max_image_pixels)
    raise RefusedDocument("Unsupported file type: upload a PDF, JPG, JPEG or PNG file")


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
                raise RefusedDocument(_polyglot(f"PDF and {name}"))
        if _ends_with_zip(tail):
            raise RefusedDocument(_polyglot("PDF and ZIP"))
    elif b"%PDF-" in head:
        raise RefusedDocument(_polyglot(f"{media_type.split('/')[1].upper()} and PDF"))


def _ends_with_zip(tail: bytes) -> bool:
    """True when a ZIP end-of-central-directory record ends the file exactly (with its comment),
    which is where every ZIP reader looks; stray ``PK\\5\\6`` bytes in a compressed stream do not."""
    at = tail.find(ZIP_EOCD)
    while at != -1:
        if at + 22 <= len(tail) and at + 22 + int.from_bytes(tail[at + 20:at + 22], "little") == len(tail):
            return True
        at = tail.find(ZIP_EOCD, at + 1)
    return False


def _polyglot(kinds: str) -> str:
    return f"Ambiguous file: it is both {kinds}; upload the invoice as a plain PDF, JPG or PNG file"


def _inspect_pdf(path: Path, tail: bytes, max_pages: int) -> DocumentInfo:
    import pypdfium2 as pdfium

    if b"%%EOF" not in tail[-EOF_WINDOW:]:
        raise RefusedDocument("Unreadable PDF: the file is truncated (no %%EOF marker at its end); "
                              "upload the complete file")
    with PDFIUM_LOCK:
        try:
            pdf = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise RefusedDocument("Encrypted PDF: it needs a password to open; upload an "
                                      "unprotected copy") from exc
            raise RefusedDocument(f"Unreadable PDF: {exc}; upload an intact copy of the file") from exc
        try:
            pages = len(pdf)
            if pages < 1:
                raise RefusedDocument("Unreadable PDF: it has no pages")
            if pages > max_pages:
                raise RefusedDocument(f"PDF has too many pages: {pages}, the limit is {max_pages} "
                                      "(limits.max_pdf_pages); upload one invoice per file", too_large=True)
            first = pdf[0]  # parses the first page's dictionary: a broken page tree fails here
            first.close()
        finally:
            pdf.close()
    return DocumentInfo(PDF, pages)


def _inspect_image(path: Path, media_type: str, max_pixels: int) -> DocumentInfo:
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # we compare ourselves
            with Image.open(path) as image:  # reads the header only
                width, height = image.size
                if width * height > max_pixels:
                    raise _bomb(width, height, max_pixels)
                if media_type == PNG:
                    image.verify()  # chunk CRCs through IEND, without decoding pixels
                else:
                    image.draft("RGB", (max(1, width // 8), max(1, height // 8)))
                    image.load()  # the whole JPEG stream, decoded at 1/8 scale
    except Image.DecompressionBombError as exc:
        raise RefusedDocument(f"Image too large: its header declares more than {max_pixels} pixels; "
                              "upload a smaller scan", too_large=True) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        if isinstance(exc, RefusedDocument):
            raise
        raise RefusedDocument(f"Unreadable image: {exc}; upload an intact copy of the file") from exc
    return DocumentInfo(media_type, 1, width, height)


def _bomb(width: int, height: int, limit: int) -> RefusedDocument:
    return RefusedDocument(f"Image too large: {width} x {height} pixels, the limit is {limit} pixels; "
                           "upload a smaller scan", too_large=True)
