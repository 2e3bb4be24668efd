"""The visible part of a Factur-X PDF/A-3: the uploaded document's pages as images.

Every page of the upload is rendered (a PDF page by pdfium at ``DPI`` within ``MAX_PIXELS``, an
uploaded JPEG or PNG as it is, upright per its EXIF orientation) and placed on a page of its own
size, with an sRGB OutputIntent (``sRGB2014.icc``, README.md) and a file identifier: what
PDF/A-3b (ISO 19005-3) asks of a file whose pages are DeviceRGB images. factur-x then adds the
XMP (``pdfaid:part`` 3, ``conformance`` B), the CII XML as ``factur-x.xml`` with
AFRelationship ``Data`` and the catalog's ``/AF``.

Why images, and not the uploaded PDF itself: factur-x's output is PDF/A-3 only when its input
PDF is PDF/A already (its changelog, version 0.5), and uploads are not: fonts not embedded,
transparency, encryption, JavaScript. Rendering makes every upload a conforming page that looks
like the original a person approved. The price: the visible part has no text layer (the data is
in the XML) and is larger than a vector PDF (about 100-300 KB per page as JPEG).

Blocking (rendering, compression): call in a thread.
"""

from __future__ import annotations

import io
from importlib.resources import files
from pathlib import Path

from pipeline.reading.pdfium_lock import PDFIUM_LOCK
from pipeline.reading.text import render_scale

DPI = 150  # a printed page stays readable, an A4 page is about 2.2 million pixels
MAX_PIXELS = 9_000_000  # a larger page (A2 and up) is rendered at a lower resolution
JPEG_QUALITY = 90
ICC_NAME = "sRGB IEC61966-2.1"


def visible_pdf(path: Path, media_type: str) -> bytes:
    """A PDF (bytes) of the stored upload ``path`` (``application/pdf``, ``image/jpeg`` or
    ``image/png``): one image page per page, PDF/A-3b ready but for the XMP. Raises OSError
    when the file cannot be read, pypdfium2's PdfiumError when a PDF cannot be opened."""
    pages = _pdf_pages(path) if media_type == "application/pdf" else [_page(*_image(path))]
    return _assemble(pages)


def _pdf_pages(path: Path) -> list[bytes]:
    """A one-page PDF of every page of a PDF, each encoded as soon as it is rendered (a long
    document never holds more than one page's bitmap)."""
    import pypdfium2 as pdfium

    pages = []
    with PDFIUM_LOCK:  # pdfium is not thread-safe (pipeline.reading.pdfium_lock)
        pdf = pdfium.PdfDocument(str(path))
        try:
            for index in range(len(pdf)):
                page = pdf[index]
                try:
                    scale = render_scale(*page.get_size(), DPI, MAX_PIXELS)
                    bitmap = page.render(scale=scale).to_pil().convert("RGB")
                finally:
                    page.close()
                pages.append(_page(bitmap, scale * 72))
        finally:
            pdf.close()
    return pages


def _image(path: Path) -> tuple[object, float]:
    """(PIL image, pixels per inch) of an uploaded image: its own resolution when it states one,
    else ``DPI``; downscaled within ``MAX_PIXELS``."""
    from PIL import Image, ImageOps

    with Image.open(path) as opened:
        image = ImageOps.exif_transpose(opened).convert("RGB")  # PDF/A: no alpha needed, DeviceRGB
        stated = opened.info.get("dpi", (DPI, DPI))[0]
    dpi = float(stated) if stated and float(stated) >= 72 else float(DPI)
    pixels = image.width * image.height
    if pixels > MAX_PIXELS:
        factor = (MAX_PIXELS / pixels) ** 0.5
        image = image.resize((max(1, int(image.width * factor)), max(1, int(image.height * factor))))
        dpi *= factor
    return image, dpi


def _page(image, dpi: float) -> bytes:
    """A one-page PDF of ``image`` (JPEG) at ``dpi``, so that the page keeps its size in points."""
    single = io.BytesIO()
    image.save(single, "PDF", resolution=dpi, quality=JPEG_QUALITY)
    return single.getvalue()


def _assemble(pages: list[bytes]) -> bytes:
    """One PDF of the one-page PDFs, with the sRGB OutputIntent and a file identifier."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in pages:
        writer.append(PdfReader(io.BytesIO(page)))
    _add_output_intent(writer)
    writer.generate_file_identifiers()  # PDF/A: the trailer's /ID (factur-x's copy keeps it)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _add_output_intent(writer) -> None:
    """The catalog's /OutputIntents: GTS_PDFA1 with the sRGB ICC profile (3 components)."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject, NumberObject
    from pypdf.generic import TextStringObject as Text

    profile = DecodedStreamObject()
    profile.set_data((files("appliance.export") / "sRGB2014.icc").read_bytes())
    profile[NameObject("/N")] = NumberObject(3)
    intent = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/OutputIntent"),
            NameObject("/S"): NameObject("/GTS_PDFA1"),
            NameObject("/OutputConditionIdentifier"): Text(ICC_NAME),
            NameObject("/Info"): Text(ICC_NAME),
            NameObject("/RegistryName"): Text("http://www.color.org"),
            NameObject("/DestOutputProfile"): writer._add_object(profile.flate_encode()),
        }
    )
    writer._root_object[NameObject("/OutputIntents")] = ArrayObject([writer._add_object(intent)])
