"""pdfium is not thread-safe: every pdfium call of the appliance holds ``PDFIUM_LOCK``, and the
OCR of a rendered page does not (the inline pool's threads and the API's upload inspection
crashed the soak run with a segfault in libpdfium.so when two of them read PDFs at once)."""

from __future__ import annotations

import threading

import pypdfium2

from appliance.uploads import _inspect_pdf
from models.ocr import OcrEngine
from pipeline.einvoice.reader import embedded_xml_files
from pipeline.reading.pdfium_lock import PDFIUM_LOCK
from pipeline.reading.text import pdf_text
from tests.support.docs import INVOICE_LINES, text_pdf
from webui import page_images


class Watched(pypdfium2.PdfDocument):
    """A PdfDocument that records whether the lock is held when it is opened, read and closed."""

    unlocked: list[str] = []

    def __init__(self, *args, **kwargs):
        self._check("open")
        super().__init__(*args, **kwargs)

    def _check(self, what: str) -> None:
        if not PDFIUM_LOCK._is_owned():
            Watched.unlocked.append(what)

    def __len__(self):
        self._check("len")
        return super().__len__()

    def __getitem__(self, index):
        self._check("page")
        return super().__getitem__(index)

    def get_page_size(self, index):
        self._check("page size")
        return super().get_page_size(index)

    def close(self):
        self._check("close")
        return super().close()


class LockFreeOcr(OcrEngine):
    """An OCR engine that fails the test when it runs under the pdfium lock (it would serialise OCR)."""

    name = "fake"

    def recognize(self, image):
        assert not PDFIUM_LOCK._is_owned(), "OCR ran while holding the pdfium lock"
        return []


def test_every_pdfium_call_holds_the_lock(monkeypatch, tmp_path):
    monkeypatch.setattr(pypdfium2, "PdfDocument", Watched)
    Watched.unlocked = []
    data = text_pdf(INVOICE_LINES)
    pdf_text(data, LockFreeOcr, max_ocr_pages=1)
    pdf_text(data, LockFreeOcr, max_ocr_pages=1, use_text_layer=False)  # rendered, then OCR outside the lock
    embedded_xml_files(data)
    path = tmp_path / "a.pdf"
    path.write_bytes(data)
    _inspect_pdf(path, data[-2048:], max_pages=10, max_page_points=5000)
    page_images.pages(path, "application/pdf", ocr_dpi=200)
    page_images.page_image(path, "application/pdf", 1)  # rendered for the review page
    assert Watched.unlocked == []


def test_the_lock_is_one_per_process_and_reentrant():
    import appliance.uploads
    import pipeline.einvoice.reader
    import pipeline.reading.text

    assert pipeline.reading.text.PDFIUM_LOCK is pipeline.einvoice.reader.PDFIUM_LOCK is appliance.uploads.PDFIUM_LOCK
    taken_elsewhere = []
    with PDFIUM_LOCK, PDFIUM_LOCK:  # re-entrant: a second acquire in this thread does not block
        other = threading.Thread(target=lambda: taken_elsewhere.append(PDFIUM_LOCK.acquire(blocking=False)))
        other.start()
        other.join()
    assert taken_elsewhere == [False]  # while held, another thread waits
