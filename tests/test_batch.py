"""``appliance extract``'s retries (appliance.batch): the same rules as the dispatcher's queue."""

from __future__ import annotations

from appliance.batch import _submit
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
    assert await _submit(pool, settings, JobContext("x", "image/png"), b"") == {"ok": True}
    assert pool.calls == 9


async def test_other_temporary_errors_end_failed_after_max_attempts(tmp_path):
    settings = make_settings(tmp_path, {"queue": {"max_attempts": 3, "backoff_seconds": 0.01}})
    pool = ScriptedPool(*[TemporaryError("out of memory while reading the document")] * 5)
    result = await _submit(pool, settings, JobContext("x", "image/png"), b"")
    assert result["processing_status"] == "failed" and pool.calls == 3
    assert result["processing_error"] == "out of memory while reading the document (after 3 attempts)"
