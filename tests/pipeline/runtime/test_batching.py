"""``pool.mode = "staged"``: the OCR stage batches pages of many jobs into one engine call, the
LLM stage serves several workers, and killing either stage actor mid-batch loses no job (issue
11, Done when 3). Fake engines, real Ray, the real queue and HTTP API."""

from __future__ import annotations

import asyncio
import io

import pytest
from PIL import Image

from pipeline.context import JobContext, StageConfig
from pipeline.runtime.batching import OcrStage
from pipeline.runtime.pool import RayPool
from tests.conftest import fake_models, make_settings
from tests.support.docs import INVOICE_LINES, png_with_text, text_pdf


async def test_ocr_stage_batches_pages_up_to_its_maximum():
    stage = OcrStage(fake_models("tests.fakes.ocr:BatchOcr"), concurrency=1, batch_max_pages=4, window_ms=200)
    stage.engine.seconds = 0.05
    images = [Image.open(io.BytesIO(png_with_text(f"Total {n}.00"))) for n in range(6)]
    pages = await asyncio.gather(*(stage.recognize(image) for image in images))
    assert [lines[0].text for lines in pages] == [f"Total {n}.00" for n in range(6)]  # each page its own answer
    assert stage.engine.batches == [4, 2]
    stats = await stage.stats()
    assert stats["batch_sizes"] == {4: 1, 2: 1} and stats["waiting_pages"] == 0 and stats["running"] == 0


async def test_engine_error_fails_every_page_of_its_batch():
    stage = OcrStage(fake_models("tests.fakes.ocr:CrashOcr"), batch_max_pages=2, window_ms=100)
    outcomes = await asyncio.gather(*(stage.recognize(None) for _ in range(2)), return_exceptions=True)
    assert all(isinstance(o, RuntimeError) and "fake OCR crash" in str(o) for o in outcomes)
    assert (await stage.stats())["running"] == 0  # the slot came back


@pytest.mark.ray
@pytest.mark.slow
async def test_staged_pool_batches_pages_of_concurrent_jobs(ray_session):
    stages = StageConfig(mode="staged", batch_max_pages=8, batch_window_ms=300)
    pool = await RayPool(fake_models("tests.fakes.ocr:BatchOcr"), size=3, ocr_concurrency=1, stages=stages).start()
    try:
        assert pool.mode == "staged" and await pool.check()
        results = await asyncio.gather(
            *(pool.submit(JobContext(str(n), "image/png"), png_with_text(f"Total {n}.50")) for n in range(3)),
            pool.submit(JobContext("t", "application/pdf"), text_pdf(INVOICE_LINES)),  # no OCR: never waits for it
        )
        assert [r.data["total_amount"] for r in results] == [0.5, 1.5, 2.5, 119]
        assert results[0].extraction_provider.startswith("fake-batch-ocr+rules+fake-echo")
        stats = await pool.stage_stats()
        assert sum(size * count for size, count in stats["ocr"]["batch_sizes"].items()) == 3
        assert max(stats["ocr"]["batch_sizes"]) >= 2, stats  # pages of different jobs shared a batch
        assert stats["llm"]["calls"] >= 4
    finally:
        await pool.close()


@pytest.mark.ray
@pytest.mark.slow
async def test_auto_mode_is_single_without_a_gpu(ray_session):
    pool = await RayPool(fake_models(), size=1, stages=StageConfig(mode="auto")).start()
    try:
        assert pool.mode == "single" and await pool.stage_stats() == {}
    finally:
        await pool.close()


async def _kill_stage_mid_batch(harness_factory, tmp_path, stage: str, layers: dict, documents: list):
    import ray

    settings = make_settings(
        tmp_path,
        {
            "pool": {"backend": "ray", "mode": "staged", "workers": 3},
            "ocr": {"batch_window_ms": 300},
            # a restarting actor takes seconds on a loaded host: the suite's 0.05 s backoff
            # spent all 4 attempts in under a second while the training ran beside it
            "queue": {"max_attempts": 4, "backoff_seconds": 1.0},
        },
        layers,
    )
    harness = await harness_factory(settings)
    _, headers = await harness.tenant(credits=len(documents))
    ids = []
    for data, ctype in documents:
        ids.append((await (await harness.upload(headers, data, content_type=ctype)).json())["invoice"]["id"])
    name = next(a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if a["name"].startswith(stage))
    actor = ray.get_actor(name)
    for _ in range(200):  # until a batch is in the engine
        if (await actor.stats.remote())["running"]:
            break
        await asyncio.sleep(0.05)
    else:
        rows = await harness.db.fetchall("SELECT state, attempts, last_error FROM jobs")
        raise AssertionError(f"the {stage} never ran a batch: {[tuple(r) for r in rows]} {name}")
    ray.kill(actor, no_restart=False)  # Ray restarts it; the jobs of its batch come back as WorkerLost
    bodies = [await harness.wait_ready(headers, invoice_id, timeout=120) for invoice_id in ids]
    rows = await harness.db.fetchall(
        "SELECT j.attempts, i.extraction_provider FROM jobs j JOIN invoices i ON i.id = j.invoice_id"
    )
    return bodies, [(row[0], row[1]) for row in rows]


@pytest.mark.ray
@pytest.mark.slow
async def test_killing_the_ocr_stage_mid_batch_loses_no_job(ray_session, harness_factory, tmp_path):
    documents = [(png_with_text(f"Invoice No: K-{n}\nTotal EUR {n}.25"), "image/png") for n in range(3)]
    bodies, attempts = await _kill_stage_mid_batch(
        harness_factory, tmp_path, "ocr-stage-", {"ocr": {"engine": "tests.fakes.ocr:BatchOcr"}}, documents
    )
    assert [b["data"]["total_amount"] for b in bodies] == [0.25, 1.25, 2.25]
    assert all(b["processingStatus"] in ("completed", "needs_review") for b in bodies), bodies
    assert max(a for a, _ in attempts) >= 2  # at least the killed batch's jobs ran again


@pytest.mark.ray
@pytest.mark.slow
async def test_killing_the_llm_stage_mid_batch_loses_no_job(ray_session, harness_factory, tmp_path):
    documents = [(text_pdf(INVOICE_LINES), "application/pdf") for _ in range(3)]
    bodies, attempts = await _kill_stage_mid_batch(
        harness_factory,
        tmp_path,
        "llm-stage-",
        {"llm": {"backend": "tests.fakes.llm:SlowEchoLLM", "parallel": 2}},
        documents,
    )
    assert [b["data"]["total_amount"] for b in bodies] == [119.0] * 3
    assert all("fake-slow-echo" in provider for _, provider in attempts), attempts  # the model's answer kept
    assert max(a for a, _ in attempts) >= 2


@pytest.mark.ray
@pytest.mark.slow
async def test_stages_reserving_gpus_ray_lacks_fail_at_once(ray_session):
    stages = StageConfig(mode="staged", ocr_num_gpus=0.5, llm_num_gpus=0.5)
    with pytest.raises(RuntimeError, match="reserve 1 GPU.* the Ray cluster has 0"):
        await RayPool(fake_models(), size=1, stages=stages).start(timeout=30)


class Remembering:
    """An LLM instance that remembers its last prompt and answer, as llama_cpp's cache does."""

    name = "fake-remembering"

    def __init__(self, number: int, gate) -> None:
        self.number, self.gate, self.last = number, gate, ""

    def continues(self, prompt: str) -> bool:
        return bool(self.last) and prompt.startswith(self.last)

    def complete(self, prompt, json_schema, max_tokens, stop=()):
        self.gate.wait(5)
        self.last = prompt + f"<{self.number}>"
        return f"<{self.number}>"


def test_llm_stage_sends_a_continuation_to_the_instance_that_holds_it():
    import threading

    from pipeline.runtime.batching import LlmStage

    stage = LlmStage(fake_models(), parallel=2)
    gate = threading.Event()
    gate.set()
    stage.instances = [Remembering(0, gate), Remembering(1, gate)]
    first = stage.complete("doc A", None, 10, (), "worker-a")  # instance 0, the first free
    assert first == "<0>"
    gate.clear()  # instance 0 (the lowest free) now busy with another worker's document
    other = threading.Thread(target=stage.complete, args=("doc B", None, 10, (), "worker-b"))
    other.start()
    while stage.running == 0:
        pass
    answers = []
    again = threading.Thread(target=lambda: answers.append(stage.complete("doc A<0> more", None, 10, (), "worker-a")))
    again.start()
    again.join(0.3)
    assert again.is_alive()  # it waits for instance 0 although instance 1 is free
    gate.set()
    again.join(5)
    other.join(5)
    assert answers == ["<0>"] and stage.instances[0].last == "doc A<0> more<0>"
    assert stage.instances[1].last == ""  # never used: the continuation waited
