"""The one lock of a process around pdfium (``PDFIUM_LOCK``).

pdfium is not thread-safe (pypdfium2's documentation: one thread at a time per process). Two
threads in it at once crash the process with a segfault in libpdfium.so: seen in the soak test,
where the inline pool's worker threads and the API's upload inspection read PDFs at the same
time. Every pdfium call of the appliance takes this lock: ``pipeline.reading.text``, ``pipeline.einvoice.reader``
and ``appliance.uploads``. OCR of a rendered page runs outside it.

Imports nothing of the appliance.
"""

from __future__ import annotations

import threading

PDFIUM_LOCK = threading.RLock()  # re-entrant: a locked caller may call another locked helper
