"""``/metrics``: Prometheus text on its own loopback port; requests by route template and status,
queue depth and oldest job age read from SQLite at scrape time, stage latencies, retries, busy OCR,
credits debited and refunded, webhook outcomes. Each app has its own registry."""

from __future__ import annotations

import json
import re
import uuid

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from api.metrics import METRICS_HOST, start_metrics_server
from appliance.metrics import Metrics
from bench.server import free_port
from tests.conftest import make_settings
from tests.fakes.stripe_api import sign
from tests.support.docs import receipt_text
from tests.support.served import served_factory  # noqa: F401  (fixture)


async def scrape(metrics: Metrics) -> dict[tuple[str, tuple], float]:
    """``{(sample name, sorted labels): value}`` of a fresh scrape."""
    await metrics.refresh()
    samples = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_requests_are_counted_by_route_template_and_status(served_factory, tmp_path):
    served = await served_factory(make_settings(tmp_path))
    headers = await served.tenant()
    invoice_id = str(uuid.uuid4())
    assert (await served.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).status == 404
    assert (await served.client.get("/api/v1/credits/balance")).status == 401
    assert (await served.client.get("/no/such/path")).status == 404
    await served.client.get("/healthz")
    samples = await scrape(served.metrics)
    assert (
        value(samples, "appliance_http_requests_total", method="GET", route="/api/v1/invoices/{id}", status="404") == 1
    )
    assert (
        value(samples, "appliance_http_requests_total", method="GET", route="/api/v1/credits/balance", status="401")
        == 1
    )
    assert value(samples, "appliance_http_requests_total", method="GET", route="unmatched", status="404") == 1
    assert value(samples, "appliance_http_request_duration_seconds_count", method="GET", route="/healthz") == 1
    assert invoice_id not in served.metrics.render().decode()  # ids never become label values


async def test_queue_depth_oldest_job_and_credits_come_from_sqlite(served_factory, tmp_path):
    gate = {"open": True}
    served = await served_factory(make_settings(tmp_path), queue_ready=lambda: gate["open"])  # no dispatcher
    headers = await served.tenant(credits=5)
    assert (await served.upload_png(headers, receipt_text("Total EUR 1.00"))).status == 202
    assert (await served.upload_png(headers, receipt_text("Total EUR 2.00"))).status == 202
    gate["open"] = False
    assert (await served.upload_png(headers, receipt_text("Total EUR 3.00"))).status == 503  # debited, then refunded
    samples = await scrape(served.metrics)
    assert value(samples, "appliance_queue_jobs", state="queued") == 2
    assert value(samples, "appliance_queue_jobs", state="leased") == 0
    assert value(samples, "appliance_queue_invoices", processing_status="queued") == 2
    assert value(samples, "appliance_queue_oldest_job_age_seconds") >= 0
    assert value(samples, "appliance_credits_debited_total") == 3
    assert value(samples, "appliance_credits_refunded_total") == 1
    assert value(samples, "appliance_database_up") == 1
    await _age_jobs(served.db)
    samples = await scrape(served.metrics)
    assert value(samples, "appliance_queue_oldest_job_age_seconds") > 20 * 365 * 86400
    assert value(samples, "appliance_credits_debited_total") == 3  # summed once, not again per scrape


async def _age_jobs(db) -> None:
    async with db.transaction() as conn:
        await conn.execute("UPDATE jobs SET created_at = '2000-01-01T00:00:00.000Z'")


async def test_stage_latencies_and_results_from_the_dispatcher(served_factory, tmp_path):
    served = await served_factory(make_settings(tmp_path))
    await served.start_pipeline()
    headers = await served.tenant()
    accepted = await (await served.upload_png(headers, receipt_text("Invoice No: A-1\nTotal EUR 9.00"))).json()
    await served.wait_ready(headers, accepted["invoice"]["id"])
    samples = await scrape(served.metrics)
    assert value(samples, "appliance_stage_duration_seconds_count", stage="ocr") == 1  # an image: OCR'd
    assert value(samples, "appliance_stage_duration_seconds_count", stage="rules") == 1
    assert value(samples, "appliance_jobs_finished_total", processing_status="completed") == 1
    assert value(samples, "appliance_queue_jobs", state="queued") == 0


async def test_busy_ocr_rejections_and_retries(served_factory, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_OCR_SECONDS", "0.3")
    served = await served_factory(make_settings(tmp_path, {"pool": {"workers": 3}, "ocr": {"concurrency": 1}}))
    await served.start_pipeline()
    headers = await served.tenant()
    ids = [(await (await served.upload_png(headers, f"Total {n}.50")).json())["invoice"]["id"] for n in range(3)]
    for invoice_id in ids:
        await served.wait_ready(headers, invoice_id)
    samples = await scrape(served.metrics)
    busy = value(samples, "appliance_ocr_busy_rejections_total")
    assert busy >= 1  # three jobs, one OCR slot
    assert value(samples, "appliance_job_retries_total", reason="busy") == busy
    assert value(samples, "appliance_job_retries_total", reason="error") == 0


async def test_crashing_stage_retries_count_as_errors(served_factory, tmp_path):
    served = await served_factory(
        make_settings(tmp_path, {"ocr": {"engine": "tests.fakes.ocr:CrashOcr"}, "queue": {"max_attempts": 2}})
    )
    await served.start_pipeline()
    headers = await served.tenant()
    accepted = await (await served.upload_png(headers, "x")).json()
    assert (await served.wait_ready(headers, accepted["invoice"]["id"]))["processingStatus"] == "failed"
    samples = await scrape(served.metrics)
    assert value(samples, "appliance_job_retries_total", reason="error") == 1
    assert value(samples, "appliance_jobs_finished_total", processing_status="failed") == 1


async def test_webhook_outcomes(served_factory, tmp_path):
    secret = "whsec_test"
    served = await served_factory(make_settings(tmp_path, {"stripe": {"webhook_secret": secret}}))
    payload = json.dumps(
        {
            "id": "evt_1",
            "object": "event",
            "type": "invoice.paid",
            "api_version": "2026-10-28.endive",
            "created": 1,
            "data": {"object": {"id": "in_1", "object": "invoice"}},
        }
    ).encode()
    for signature in (sign(payload, secret), sign(payload, secret), "t=1,v1=bad"):
        await served.client.post("/webhooks/stripe", data=payload, headers={"Stripe-Signature": signature})
    samples = await scrape(served.metrics)
    assert value(samples, "appliance_webhook_events_total", outcome="ignored") == 1
    assert value(samples, "appliance_webhook_events_total", outcome="duplicate") == 1
    assert value(samples, "appliance_webhook_events_total", outcome="refused 400") == 1


async def test_metrics_port_is_loopback_prometheus_text_and_registries_are_per_app(served_factory, tmp_path):
    first = await served_factory(make_settings(tmp_path / "a"))
    second = await served_factory(make_settings(tmp_path / "b"))  # same names, own registry: no clash
    await first.client.get("/healthz")
    port = free_port()
    runner = await start_metrics_server(second.metrics, port)
    try:
        assert [address[0] for address in runner.addresses] == [METRICS_HOST]
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/metrics") as response:
                assert response.status == 200
                assert response.headers["Content-Type"].startswith("text/plain; version=")
                text = await response.text()
    finally:
        await runner.cleanup()
    assert re.search(r"^appliance_queue_jobs\{state=\"queued\"\} 0\.0$", text, re.M)
    assert 'route="/healthz"' not in text  # that request went to the first app


async def test_stage_actors_counters_are_scraped():
    metrics = Metrics(None)

    async def stats():
        return {
            "ocr": {"batch_sizes": {3: 2, 1: 1}, "busy_seconds": 4.5, "page_wait_seconds": 0.2, "waiting_pages": 1},
            "llm": {"calls": 7, "busy_seconds": 12.0},
        }

    metrics.stage_stats = stats
    await metrics.refresh()
    text = metrics.render().decode()
    assert 'appliance_ocr_batches_total{pages="3"} 2.0' in text and 'appliance_ocr_batches_total{pages="1"} 1.0' in text
    assert "appliance_ocr_engine_seconds_total 4.5" in text and "appliance_ocr_waiting_pages 1.0" in text
    assert "appliance_llm_stage_calls_total 7.0" in text
