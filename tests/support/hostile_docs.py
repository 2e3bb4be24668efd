"""Hostile documents, made by the tests themselves: encrypted, huge, truncated, corrupt, polyglot,
decompression bombs. Each builder returns bytes; none needs a third-party file or tool."""

from __future__ import annotations

import hashlib
import io
import struct
import zipfile
import zlib

from tests.support.docs import INVOICE_LINES, assemble_pdf, jpeg, page_objects, png_with_text, text_pdf

# PDF 32000-1, 7.6.3.3: the 32-byte padding of passwords in the standard security handler
PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


def rc4(key: bytes, data: bytes) -> bytes:
    """RC4, as the PDF standard security handler revision 2 uses it."""
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out, i, j = bytearray(), 0, 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


def encrypted_pdf(user_password: str = "secret", owner_password: str = "owner") -> bytes:
    """A one-page text PDF encrypted with RC4-40 (standard security handler R2, algorithms 2 to 4
    of PDF 32000-1 7.6.3.3). An empty ``user_password`` opens without a password (owner-only)."""
    user = (user_password.encode("latin-1") + PAD)[:32]
    owner = (owner_password.encode("latin-1") + PAD)[:32]
    o_value = rc4(hashlib.md5(owner).digest()[:5], user)
    permissions = -4  # every permission bit set (an int32)
    doc_id = hashlib.md5(b"appliance hostile test").digest()
    key = hashlib.md5(user + o_value + struct.pack("<i", permissions) + doc_id).digest()[:5]
    u_value = rc4(key, PAD)
    stream = b"BT /F1 11 Tf 50 780 Td (Invoice No: INV-1 Total EUR 119.00) Tj ET"
    object_key = hashlib.md5(key + (4).to_bytes(3, "little") + (0).to_bytes(2, "little")).digest()[:10]
    cipher = rc4(object_key, stream)
    objects = [
        *page_objects(cipher, encoding=None),
        b"<< /Filter /Standard /V 1 /R 2 /O <"
        + o_value.hex().encode()
        + b"> /U <"
        + u_value.hex().encode()
        + b"> /P "
        + str(permissions).encode()
        + b" >>",
    ]
    trailer = b"/Encrypt 6 0 R /ID [<" + doc_id.hex().encode() + b"> <" + doc_id.hex().encode() + b">]"
    return assemble_pdf(objects, trailer)


def many_pages_pdf(pages: int) -> bytes:
    """A PDF of ``pages`` blank pages (pdfium makes 5,000 in about 0.1 s)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    try:
        for _ in range(pages):
            pdf.new_page(200, 200).close()
        out = io.BytesIO()
        pdf.save(out)
        return out.getvalue()
    finally:
        pdf.close()


def sized_pages_pdf(*sizes: tuple[float, float]) -> bytes:
    """A PDF of blank pages of the given (width, height) in points: a few hundred bytes, whatever
    the sizes (a 14400 x 14400 pt page is 200 x 200 inches, 1.6 billion pixels at 200 dpi)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    try:
        for width, height in sizes:
            pdf.new_page(width, height).close()
        out = io.BytesIO()
        pdf.save(out)
        return out.getvalue()
    finally:
        pdf.close()


def missing_page_pdf() -> bytes:
    """A PDF whose page tree counts 2 pages but holds 1: pdfium reports 2 and cannot load the second."""
    return sized_pages_pdf((595, 842)).replace(b"/Count 1", b"/Count 2")  # same length: the xref stays right


def truncated_pdf() -> bytes:
    data = text_pdf(INVOICE_LINES)
    return data[: len(data) // 2]


def corrupt_pdf() -> bytes:
    """A PDF header and an end marker around garbage: no object, no xref pdfium could rebuild."""
    return b"%PDF-1.4\n" + b"garbage " * 300 + b"\n%%EOF\n"


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_declaring(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width`` x ``height`` 8-bit RGB but whose data is a few bytes:
    a decompression bomb as far as the header goes (decoding would allocate width*height*3)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + _png_chunk(b"IEND", b"")
    )


def jpeg_declaring(width: int, height: int) -> bytes:
    """A real small JPEG whose SOF marker is patched to declare ``width`` x ``height``."""
    data = bytearray(jpeg())
    at = data.find(b"\xff\xc0")
    assert at > 0, "Pillow wrote no baseline SOF0 marker"
    data[at + 5 : at + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def truncated_png() -> bytes:
    data = png_with_text("Total 1.00", size=(400, 300))
    return data[: len(data) - 40]


def truncated_jpeg() -> bytes:
    data = jpeg((800, 600))
    return data[: len(data) // 2]


def pdf_with_zip() -> bytes:
    """A PDF+ZIP polyglot: a valid PDF with a ZIP archive appended (a ZIP reader opens it too)."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("payload.txt", "not an invoice")
    return text_pdf(INVOICE_LINES) + archive.getvalue()


def zip_then_pdf() -> bytes:
    """A ZIP local file header before ``%PDF-`` (within sniff's 1 KB): ZIP to some readers, PDF to others."""
    return b"PK\x03\x04" + b"\0" * 60 + text_pdf(INVOICE_LINES)


def png_with_pdf() -> bytes:
    """A valid PNG whose first kilobyte holds a PDF header (in a text chunk): a PNG+PDF polyglot."""
    return png_with_text("%PDF-1.4 1 0 obj << >> endobj")
