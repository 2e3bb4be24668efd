"""Decide a document's type from its first bytes (magic numbers), never from a declared MIME
type or a file name (DESIGN.md "Flow of one invoice", spec section 8)."""

from __future__ import annotations

PDF = "application/pdf"
JPEG = "image/jpeg"
PNG = "image/png"
SNIFF_BYTES = 1024  # a PDF header may follow up to 1 KB of junk (PDF 32000-1, 7.5.2 note)


def sniff(head: bytes) -> str | None:
    """The media type of a document from its first bytes, or None when it is not PDF, JPEG or PNG."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if b"%PDF-" in head[:SNIFF_BYTES]:
        return PDF
    return None
