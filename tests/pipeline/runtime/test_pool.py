"""The real Ray actor pool: extraction on actors, the OCR gate across actors, a dying actor, and
the appliance serving with ``pool.backend = "ray"``. One Ray per test session (measurements.md)."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.context import JobContext
from pipeline.errors import OcrBusy, TemporaryError, WorkerLost
from pipeline.result import ExtractionResult
from pipeline.runtime.pool import RayPool
from tests.conftest import fake_models, make_settings
from tests.support.docs import INVOICE_LINES, png_with_text, text_pdf

pytestmark = [pytest.mark.ray, pytest.mark.slow]


async def test_pool_extracts_on_actors(ray_session):
    pool = await RayPool(fake_models(), size=2).start()
    try:
        assert pool.healthy() and await pool.check()
        result = await pool.submit(JobContext("a", "application/pdf"), text_pdf(INVOICE_LINES))
        assert result.data["total_amount"] == 119
        assert result.extraction_tier == 2
    finally:
        await pool.close()


async def test_ocr_gate_spans_actors(ray_session):
    pool = await RayPool(fake_models("tests.fakes.ocr:SlowOcr"), size=2, ocr_concurrency=1).start()
    try:
        ctx = JobContext("a", "image/png")
        outcomes = await asyncio.gather(
            *(pool.submit(ctx, png_with_text("Total 1.00")) for _ in range(2)), return_exceptions=True
        )
        busy = [o for o in outcomes if isinstance(o, OcrBusy)]
        done = [o for o in outcomes if isinstance(o, ExtractionResult)]
        assert len(busy) == 1 and len(done) == 1, outcomes
        assert type(busy[0]) is OcrBusy  # the type crosses Ray, not a wrapper with its message
        assert str(busy[0]) == "OCR stage busy (ocr.concurrency in use); retry later"
    finally:
        await pool.close()


async def test_dead_actor_is_a_temporary_error_and_restarts(ray_session):
    pool = await RayPool(fake_models("tests.fakes.ocr:ExitOcr"), size=1).start()
    try:
        with pytest.raises(WorkerLost):
            await pool.submit(JobContext("a", "image/png"), png_with_text("x"))
        # Ray restarts the actor (max_restarts): a text-layer PDF needs no OCR and succeeds
        for _ in range(100):
            try:
                result = await pool.submit(JobContext("b", "application/pdf"), text_pdf(INVOICE_LINES))
                break
            except TemporaryError:
                await asyncio.sleep(0.2)
        assert result.data["total_amount"] == 119
    finally:
        await pool.close()


async def test_appliance_on_ray(ray_session, harness_factory, tmp_path):
    harness = await harness_factory(make_settings(tmp_path, {"pool": {"backend": "ray", "workers": 2}}))
    _, headers = await harness.tenant(credits=2)
    ids = []
    for data, ctype in ((text_pdf(INVOICE_LINES), "application/pdf"), (png_with_text("Total 9.99"), "image/png")):
        ids.append((await (await harness.upload(headers, data, content_type=ctype)).json())["invoice"]["id"])
    first = await harness.wait_ready(headers, ids[0])
    second = await harness.wait_ready(headers, ids[1])
    assert first["data"]["total_amount"] == 119.0 and second["data"]["total_amount"] == 9.99
    assert await harness.balance(headers) == 0


async def test_one_dead_worker_of_two_leaves_the_pool_healthy(ray_session):
    import ray

    pool = await RayPool(fake_models(), size=2).start()
    try:
        first, second = pool._actors
        ray.kill(first, no_restart=True)  # dead for good, as after a crash Ray gives up on
        await asyncio.sleep(1)
        assert await pool.check()  # the other worker takes the work: uploads are not refused
        ray.kill(second, no_restart=True)
        await asyncio.sleep(1)
        assert not await pool.check()  # no worker left
    finally:
        await pool.close()


async def test_a_worker_dying_in_ocr_frees_its_slot_at_once(ray_session):
    pool = await RayPool(fake_models("tests.fakes.ocr:ExitOcr"), size=2, ocr_concurrency=1).start()
    try:
        with pytest.raises(WorkerLost):  # dies while it holds the only OCR slot
            await pool.submit(JobContext("a", "image/png"), png_with_text("x"))
        for _ in range(50):  # the release is sent without waiting for it
            if await pool._gate.try_acquire.remote("probe"):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the dead worker's OCR slot is still held (it used to be, for its whole lease)")
    finally:
        await pool.close()


async def test_a_busy_retry_logs_one_line(ray_session, harness_factory, tmp_path, caplog):
    import logging

    layers = {"pool": {"backend": "ray", "workers": 2}, "ocr": {"engine": "tests.fakes.ocr:SlowOcr", "concurrency": 1}}
    harness = await harness_factory(make_settings(tmp_path, layers))
    _, headers = await harness.tenant(credits=2)
    caplog.set_level(logging.INFO, logger="appliance.queue.dispatcher")
    ids = []
    for n in range(2):  # two scans, one OCR slot: one of them is told "busy" and retried
        response = await harness.upload(headers, png_with_text(f"Total {n}.00"), content_type="image/png")
        ids.append((await response.json())["invoice"]["id"])
    for invoice_id in ids:
        await harness.wait_ready(headers, invoice_id)
    retries = [r.getMessage() for r in caplog.records if "retry in" in r.getMessage()]
    assert retries, "no busy retry happened"
    for message in retries:  # the worker's own words, not Ray's wrapper with its traceback
        assert "\n" not in message and "Traceback" not in message, message
        assert message.endswith("OCR stage busy (ocr.concurrency in use); retry later")


async def test_a_large_profile_book_travels_once_and_the_workers_read_with_it(ray_session):
    from pipeline.profiles.book import ProfileBook
    from pipeline.profiles.lessons import learn
    from pipeline.profiles.profile import VendorProfile, build
    from pipeline.runtime.pool import SHIP_BOOKS_FROM

    page = [*INVOICE_LINES, "USt-IdNr. DE136695976"]
    mine = build("acme", [learn("1", "\n".join(page), {"vendor_name": "ACME Tools GmbH"})], vendor_id="v-acme")
    others = tuple(
        VendorProfile(f"p{i}", f"v{i}", identifiers={f"reg:{1000000 + i}X": 1}) for i in range(SHIP_BOOKS_FROM)
    )
    book = ProfileBook((*others, mine), key="tenant:1:1")
    pool = await RayPool(fake_models(), size=1).start()
    try:
        for name in ("a", "b"):
            result = await pool.submit(JobContext(name, "application/pdf", profiles=book), text_pdf(page))
            assert result.vendor_id == "v-acme"  # the worker matched the page to the profile
            assert "vendor profile of 1 approval(s) matched by vat:DE136695976" in result.routing_reason
        assert list(pool._books) == ["tenant:1:1"]  # put into the object store once
    finally:
        await pool.close()
