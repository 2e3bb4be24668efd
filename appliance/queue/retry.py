"""When a document that hit a temporary error is tried again (DESIGN.md flow step 4): the one
retry policy of the queue's dispatcher and of ``appliance extract``.

Busy OCR (``pipeline.errors.OcrBusy``) is not a failure: it frees as soon as one document's
pages are read, so its retries never count as attempts and wait at most ``busy_cap_seconds``.
Other temporary errors back off exponentially and count, up to ``queue.max_attempts``.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_BACKOFF_SECONDS = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """``max_attempts`` and ``backoff_seconds`` (seconds before the first retry's doubling) are
    ``queue.*``; ``busy_cap_seconds`` bounds the wait after busy OCR (the queue's default: four
    back-offs; ``appliance extract`` waits a short fixed time, since a document waiting in a
    batch must not lose every race to fresh ones)."""

    max_attempts: int
    backoff_seconds: float
    busy_cap_seconds: float | None = None

    @classmethod
    def of(cls, queue, busy_cap_seconds: float | None = None) -> RetryPolicy:
        """The policy of the ``queue`` settings (``appliance.settings.QueueSettings``)."""
        return cls(queue.max_attempts, queue.backoff_seconds, busy_cap_seconds)

    def gives_up(self, attempts: int) -> bool:
        """True when ``attempts`` failed attempts (busy OCR not counted) are all there may be."""
        return attempts >= self.max_attempts

    def delay(self, tries: int, *, busy: bool) -> float:
        """Seconds to wait after the ``tries``-th failed try (attempts, or busy bounces when
        ``busy``): ``backoff_seconds * 2**tries``, at most 60 s, after busy OCR at most the
        busy cap."""
        delay = min(MAX_BACKOFF_SECONDS, self.backoff_seconds * (2 ** min(tries, 10)))
        if busy:
            cap = self.busy_cap_seconds if self.busy_cap_seconds is not None else self.backoff_seconds * 4
            delay = min(delay, cap)
        return delay
