"""The errors a pipeline worker raises for the queue to retry (DESIGN.md flow step 4).

Everything else a document can do wrong ends in the result (``failed`` with a message); only
these escape ``Extractor.extract``. They keep their type end to end, through Ray included
(``pipeline.runtime.pool`` re-raises the cause of a ``RayTaskError``), because the dispatcher decides
by type how a retry counts: busy OCR costs no attempt, the others do.
"""

from __future__ import annotations


class TemporaryError(RuntimeError):
    """A stage could not run now (memory pressure, a lost worker); retried with backoff, and the
    retry counts as an attempt (``queue.max_attempts``)."""


class OcrBusy(TemporaryError):
    """The OCR stage has ``ocr.concurrency`` pages in flight (spec section 8: busy OCR is a
    temporary error); retried soon, without counting an attempt, since nothing failed."""


class WorkerLost(TemporaryError):
    """A worker died while holding a job (crash, out of memory); the job is retried."""


class JobTimeout(WorkerLost):
    """A document ran past ``limits.job_timeout_seconds``; its worker was stopped, the job is retried."""
