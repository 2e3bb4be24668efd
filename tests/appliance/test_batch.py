"""``appliance extract``'s retries (appliance.batch): the same rules as the dispatcher's queue."""

from __future__ import annotations

from appliance.batch import _submit
from appliance.queue.retry import RetryPolicy
from pipeline.context import JobContext
from pipeline.errors import OcrBusy, TemporaryError
from tests.conftest import make_settings


class ScriptedPool:
    """A pool whose ``submit`` raises the given errors in turn, then answers ``{"ok": True}``."""

    size = 1

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def submit(self, ctx, data):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return {"ok": True}


async def test_busy_ocr_is_waited_out_without_a_count(tmp_path):
    settings = make_settings(tmp_path, {"queue": {"max_attempts": 2, "backoff_seconds": 0.01}})
    pool = ScriptedPool(*[OcrBusy("busy")] * 8)  # far more busy answers than attempts allowed
    assert await _submit(pool, RetryPolicy.of(settings.queue), JobContext("x", "image/png"), b"") == {"ok": True}
    assert pool.calls == 9


async def test_other_temporary_errors_end_failed_after_max_attempts(tmp_path):
    settings = make_settings(tmp_path, {"queue": {"max_attempts": 3, "backoff_seconds": 0.01}})
    pool = ScriptedPool(*[TemporaryError("out of memory while reading the document")] * 5)
    result = await _submit(pool, RetryPolicy.of(settings.queue), JobContext("x", "image/png"), b"")
    assert result.processing_status == "failed" and pool.calls == 3
    assert result.processing_error == "out of memory while reading the document (after 3 attempts)"


def test_one_retry_policy_backs_off_exponentially_and_caps_busy_waits():
    """The queue and ``appliance extract`` share it: errors double from ``backoff_seconds`` up to
    60 s; busy OCR waits at most four back-offs, or the cap a batch sets."""
    policy = RetryPolicy(max_attempts=3, backoff_seconds=2.0)
    assert [policy.delay(tries, busy=False) for tries in (1, 2, 3, 9)] == [4.0, 8.0, 16.0, 60.0]
    assert policy.delay(5, busy=True) == 8.0
    assert RetryPolicy(3, 2.0, busy_cap_seconds=0.2).delay(5, busy=True) == 0.2
    assert not policy.gives_up(2) and policy.gives_up(3)
