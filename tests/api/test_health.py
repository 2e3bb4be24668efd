"""Probes: ``/healthz`` (alive) and ``/readyz`` (ready: database, pool, dispatcher), outside
``/api/v1`` and without a key; the web app answers before the models are loaded, and uploads get
503 with Retry-After until then."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from bench.server import ROOT, ServerProcess
from tests.conftest import FAKE_MODELS, make_settings, merged, write_config
from tests.support.docs import receipt_text
from tests.support.served import served_factory  # noqa: F401  (fixture)


async def test_healthz_needs_no_key(harness):
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        response = await harness.client.get("/healthz", headers=headers)
        assert response.status == 200
        assert await response.json() == {"status": "ok"}


async def test_readyz_503_while_models_load_then_200(served_factory, tmp_path):
    served = await served_factory(make_settings(tmp_path))
    response = await served.client.get("/readyz")
    assert response.status == 503
    body = await response.json()
    assert body["statusCode"] == 503 and body["error"] == "Service Unavailable"
    assert body["status"] == "unready"
    assert {item["check"] for item in body["failing"]} == {"pool", "dispatcher"}
    assert "loading" in body["message"]
    headers = await served.tenant(credits=3)
    refused = await served.upload_png(headers, receipt_text("Total EUR 5.00"))
    assert refused.status == 503 and "Retry-After" in refused.headers
    assert (await refused.json())["message"].startswith("Extraction queue unavailable")

    await served.start_pipeline()
    response = await served.client.get("/readyz")
    assert response.status == 200
    body = await response.json()
    assert body["status"] == "ready"
    assert [check["check"] for check in body["checks"]] == ["database", "pool", "dispatcher", "progress"]
    accepted = await served.upload_png(headers, receipt_text("Total EUR 5.00"))
    assert accepted.status == 202
    invoice = await served.wait_ready(headers, (await accepted.json())["invoice"]["id"])
    assert invoice["processingStatus"] == "completed"


async def test_readyz_names_a_stopped_dispatcher_and_shutdown(served_factory, tmp_path):
    served = await served_factory(make_settings(tmp_path))
    await served.start_pipeline()
    await served.dispatcher.stop()
    body = await (await served.client.get("/readyz")).json()
    assert [item["check"] for item in body["failing"]] == ["dispatcher"]
    served.readiness.detach()
    response = await served.client.get("/readyz")
    assert response.status == 503
    failing = {item["check"]: item["message"] for item in (await response.json())["failing"]}
    assert failing["pool"] == "shutting down"
    assert served.readiness.queue_ready() is False


class SickPool:
    size = 1

    def healthy(self) -> bool:
        return False


class RunningDispatcher:
    running = True

    def wake(self) -> None:
        pass


async def test_readyz_names_an_unhealthy_pool_and_a_closed_database(served_factory, tmp_path):
    served = await served_factory(make_settings(tmp_path))
    served.readiness.attach(SickPool(), RunningDispatcher())
    body = await (await served.client.get("/readyz")).json()
    assert [item["check"] for item in body["failing"]] == ["pool"]
    assert "unhealthy" in body["failing"][0]["message"]
    await served.db.close()
    body = await (await served.client.get("/readyz")).json()
    assert [item["check"] for item in body["failing"]] == ["database", "pool"]
    await served.db.open()  # the fixture closes it again


class BusyOcrPool:
    """The real pool behind an OCR stage that never frees a slot (a dead holder, say)."""

    def __init__(self, pool) -> None:
        self.pool, self.size = pool, pool.size

    def healthy(self) -> bool:
        return True

    async def submit(self, ctx, data):
        from pipeline.errors import OcrBusy

        raise OcrBusy("OCR busy: 1 of 1 slots in use")


async def test_readyz_names_a_stage_that_makes_no_progress(served_factory, tmp_path):
    # issue 12, finding 2: every scan bounced "OCR busy" for minutes while /readyz said 200
    settings = make_settings(tmp_path, {"queue": {"stall_seconds": 1, "backoff_seconds": 0.05}})
    served = await served_factory(settings)
    await served.start_pipeline()
    real = served.dispatcher.pool
    served.dispatcher.pool = BusyOcrPool(real)
    headers = await served.tenant(credits=2)
    accepted = await served.upload_png(headers, receipt_text("Total EUR 5.00"))
    assert accepted.status == 202
    assert (await served.client.get("/readyz")).status == 200  # bouncing, but not for long yet
    await asyncio.sleep(1.5)
    response = await served.client.get("/readyz")
    body = await response.json()
    assert response.status == 503 and [item["check"] for item in body["failing"]] == ["progress"]
    assert body["failing"][0]["message"].startswith("OCR stage: no job got through for ")
    served.dispatcher.pool = real  # the stage recovers: the job ends and readiness with it
    invoice = await served.wait_ready(headers, (await accepted.json())["invoice"]["id"])
    assert invoice["processingStatus"] == "completed"
    assert (await served.client.get("/readyz")).status == 200


async def test_probes_are_not_in_the_tenant_openapi_document(harness):
    document = await (await harness.client.get("/api/docs/openapi.json")).json()
    assert "/healthz" not in document["paths"] and "/readyz" not in document["paths"]


def get(url: str) -> tuple[int, dict | str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            text = response.read().decode()
            status = response.status
    except urllib.error.HTTPError as exc:
        text, status = exc.read().decode(), exc.code
    try:
        return status, json.loads(text)
    except json.JSONDecodeError:
        return status, text


def wait_for(fetch, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = fetch()
            if value:
                return value
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


@pytest.mark.slow
def test_served_process_is_alive_before_ready_and_serves_metrics(tmp_path):
    config = write_config(
        tmp_path, merged(FAKE_MODELS, {"ocr": {"engine": "tests.fakes.slow_load:SlowLoadOcr"}, "pool": {"workers": 1}})
    )
    server = ServerProcess(config, env={"FAKE_OCR_LOAD_SECONDS": "3"})
    server.proc = subprocess.Popen(  # not server.start(): that waits for /readyz
        [sys.executable, "-m", "appliance.cli", "--config", str(config), "serve", "--port", str(server.port)],
        cwd=ROOT,
        env=server.env,
        stdout=open(server.log, "ab"),
        stderr=subprocess.STDOUT,
    )
    try:
        assert wait_for(lambda: get(server.url + "/healthz")[0] == 200)
        status, body = get(server.url + "/readyz")
        assert status == 503, body
        assert any(item["check"] == "pool" for item in body["failing"])
        assert wait_for(lambda: get(server.url + "/readyz")[0] == 200, timeout=60)
        status, text = get(f"http://127.0.0.1:{server.metrics_port}/metrics")
        assert status == 200
        assert 'appliance_http_requests_total{method="GET",route="/readyz",status="503"}' in text
        assert 'appliance_queue_jobs{state="queued"} 0.0' in text
    finally:
        server.stop()
    assert server.proc.returncode == 0, server.log.read_text()[-2000:]


async def test_probes_answer_while_ray_starts(served_factory, tmp_path, monkeypatch):
    import asyncio
    import threading

    import pipeline.runtime.pool

    answered, seen = threading.Event(), []

    def slow_ray(*_args):  # a local Ray takes seconds to start; this one until the probes answered
        seen.append(answered.wait(15))
        raise RuntimeError("no Ray in this test")

    monkeypatch.setattr(pipeline.runtime.pool, "connect_ray", slow_ray)
    served = await served_factory(make_settings(tmp_path, {"pool": {"backend": "ray"}}))
    starting = asyncio.create_task(served.start_pipeline())
    await asyncio.sleep(0.2)
    assert (await served.client.get("/healthz")).status == 200
    assert (await served.client.get("/readyz")).status == 503  # loading
    answered.set()
    with pytest.raises(RuntimeError, match="no Ray"):
        await starting
    assert seen == [True]  # the probes answered while Ray was starting, not after
