"""One bad file cannot take the appliance down: the per-document time limit kills a wedged Ray
worker (Ray restarts it) and the job ends failed after its retries; the memory limit turns a
runaway allocation into a temporary error inside that worker; the server keeps serving."""

from __future__ import annotations

import asyncio
import time

import pytest

from pipeline.context import JobContext
from pipeline.errors import JobTimeout, TemporaryError
from pipeline.runtime.pool import InlinePool, RayPool
from pipeline.runtime.worker import LeasedOcrGate
from tests.conftest import fake_models, make_settings
from tests.support.docs import INVOICE_LINES, png_with_text, text_pdf


def test_gate_reclaims_a_slot_held_past_its_lease():
    gate = LeasedOcrGate(capacity=1, lease_seconds=0.2)
    assert gate.try_acquire()
    assert not gate.try_acquire()  # held by a worker that is about to be killed
    time.sleep(0.25)
    assert gate.try_acquire()  # reclaimed: a dead worker does not keep OCR busy for ever
    gate.release()
    assert gate.try_acquire()


def test_gate_frees_the_slots_of_a_lost_holder_at_once():
    gate = LeasedOcrGate(capacity=2)
    assert gate.try_acquire("worker-a") and gate.try_acquire("worker-b")
    assert not gate.try_acquire("worker-c")
    assert gate.release_holder("worker-a") == 1  # Ray reported worker-a dead
    assert gate.try_acquire("worker-c")
    gate.release("worker-b")
    assert gate.release_holder("worker-b") == 0 and gate.try_acquire("worker-d")


async def test_inline_pool_times_out_and_keeps_the_worker_out_until_it_ends(monkeypatch):
    monkeypatch.setenv("FAKE_OCR_HANG_SECONDS", "1.5")
    pool = InlinePool(fake_models("tests.fakes.ocr:HangOcr", job_timeout_seconds=0.3), size=1)
    started = time.monotonic()
    with pytest.raises(JobTimeout, match="job_timeout_seconds"):
        await pool.submit(JobContext("a", "image/png"), png_with_text("x"))
    assert time.monotonic() - started < 1.0
    # the only worker is still busy in its thread: the next job waits for it, then runs
    result = await pool.submit(JobContext("b", "application/pdf"), text_pdf(INVOICE_LINES))
    assert result.data["total_amount"] == 119


@pytest.mark.ray
@pytest.mark.slow
async def test_hanging_document_is_killed_and_the_worker_restarts(ray_session):
    pool = await RayPool(fake_models("tests.fakes.ocr:HangOcr", job_timeout_seconds=2), size=1).start()
    try:
        started = time.monotonic()
        with pytest.raises(JobTimeout):
            await pool.submit(JobContext("a", "image/png"), png_with_text("x"))
        assert time.monotonic() - started < 10
        result = None
        for _ in range(150):  # Ray restarts the killed actor; a text-layer PDF needs no OCR
            try:
                result = await pool.submit(JobContext("b", "application/pdf"), text_pdf(INVOICE_LINES))
                break
            except TemporaryError:
                await asyncio.sleep(0.2)
        assert result is not None and result.data["total_amount"] == 119
    finally:
        await pool.close()


@pytest.mark.ray
@pytest.mark.slow
async def test_memory_limit_fails_the_allocation_inside_the_worker(ray_session, monkeypatch):
    monkeypatch.setenv("FAKE_OCR_HOG_MB", "16384")
    pool = await RayPool(fake_models("tests.fakes.ocr:HogOcr", worker_memory_mb=3072), size=1).start()
    try:
        assert await pool._actors[0].memory_limit.remote() == 3072 * 1024 * 1024
        with pytest.raises(TemporaryError, match="out of memory"):
            await pool.submit(JobContext("a", "image/png"), png_with_text("x"))
        assert await pool.check()  # the same worker is alive and answers
        result = await pool.submit(JobContext("b", "application/pdf"), text_pdf(INVOICE_LINES))
        assert result.data["total_amount"] == 119
    finally:
        await pool.close()


@pytest.mark.ray
@pytest.mark.slow
async def test_appliance_survives_a_hanging_document(ray_session, harness_factory, tmp_path):
    settings = make_settings(
        tmp_path,
        {
            "ocr": {"engine": "tests.fakes.ocr:HangOcr"},
            "pool": {"backend": "ray", "workers": 1},
            "limits": {"job_timeout_seconds": 2},
            "queue": {"max_attempts": 2, "backoff_seconds": 0.05},
        },
    )
    harness = await harness_factory(settings)
    _, headers = await harness.tenant(credits=3)
    hanging = await harness.upload(headers, png_with_text("x"), content_type="image/png")
    assert hanging.status == 202
    invoice_id = (await hanging.json())["invoice"]["id"]
    result = await harness.wait_ready(headers, invoice_id, timeout=90)
    assert result["processingStatus"] == "failed" and result["ready"] is True
    assert "job_timeout_seconds" in result["processingError"]
    assert "after 2 attempts" in result["processingError"]
    # the server stayed up all along, and the restarted worker extracts the next document
    assert (await harness.client.get("/api/v1/credits/balance", headers=headers)).status == 200
    ok = await harness.upload(headers, text_pdf(INVOICE_LINES))
    assert ok.status == 202
    done = await harness.wait_ready(headers, (await ok.json())["invoice"]["id"], timeout=90)
    assert done["data"]["total_amount"] == 119.0
    assert await harness.balance(headers) == 1  # two accepted uploads, no refund, no double debit
