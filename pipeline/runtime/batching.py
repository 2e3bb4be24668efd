"""The shared model stages of ``pool.mode = "staged"``: one OCR stage that batches pages from
many jobs into one engine call, one LLM stage that decodes several documents at once, and the
proxies through which a CPU worker's ``Extractor`` calls them as if they were its own models.

Why stages (DESIGN.md, issue 11): a GPU is busy only when it sees batches; with whole-document
workers every worker holds its own models and sends one page at a time. Here the CPU workers
(``pipeline.runtime.pool.RayPool`` of ``StagedExtractor``) keep the pipeline order of
``pipeline.runner.Extractor`` and hold no model; the pages they render and the prompts they
build go to the stage actors, which Ray places where ``ocr.num_gpus`` / ``llm.num_gpus`` say.

Admission stays the spec's (section 8): the OCR gate (``pipeline.runtime.worker.LeasedOcrGate``) lets
``ocr.concurrency x ocr.batch_max_pages`` documents into OCR, so the stage keeps
``ocr.concurrency`` batches of up to ``batch_max_pages`` pages in flight; one more document
gets OcrBusy and the queue retries it. A stage actor that dies (killed, crashed, out of
memory) fails the calls in flight with WorkerLost, a TemporaryError: every job of the lost
batch is retried by the queue and Ray restarts the actor (``max_restarts``).

Imports ``models`` and ``pipeline`` only; Ray is imported inside the functions that need it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from models.llm import LlmBackend
from models.ocr import OcrEngine
from pipeline.context import ModelConfig
from pipeline.errors import WorkerLost
from pipeline.runner import llm_backend, ocr_engine

log = logging.getLogger(__name__)


class OcrStage:
    """An async Ray actor holding one OCR engine. ``recognize(image)`` queues one page; a batcher
    closes a batch when it holds ``batch_max_pages`` pages or the first page has waited
    ``batch_window_ms``, and runs it in one engine call on one of ``concurrency`` threads
    (batches in flight). Returns the page's ``models.ocr.OcrLine`` list; raises what the engine
    raises for that batch."""

    def __init__(self, models: ModelConfig, concurrency: int = 1, batch_max_pages: int = 16, window_ms: int = 50):
        self.engine = ocr_engine(models)
        self.name = self.engine.name
        self.batch_max_pages = batch_max_pages
        self.window = window_ms / 1000
        self._pending: list[tuple[Any, asyncio.Future, float]] = []  # (image, its result, arrival time)
        self._arrived: asyncio.Event | None = None
        self._slots = asyncio.Semaphore(concurrency)
        self._threads = ThreadPoolExecutor(concurrency, thread_name_prefix="ocr-batch")
        self._batcher: asyncio.Task | None = None
        self.batch_sizes: Counter[int] = Counter()
        self.busy_seconds = 0.0
        self.running = 0  # batches in the engine now
        self.pages_waited = 0.0  # seconds pages spent queued before their batch started, summed
        self.longest_wait = 0.0

    async def engine_name(self) -> str:
        return self.name

    async def ping(self) -> str:
        return "ok"

    async def recognize(self, image) -> list:
        if self._batcher is None:
            self._arrived = asyncio.Event()
            self._batcher = asyncio.create_task(self._run_batches())
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.append((image, future, loop.time()))
        self._arrived.set()
        return await future

    async def _run_batches(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._arrived.wait()
            deadline = self._pending[0][2] + self.window  # the oldest page waits at most the window
            while len(self._pending) < self.batch_max_pages and loop.time() < deadline:
                self._arrived.clear()
                try:
                    await asyncio.wait_for(self._arrived.wait(), deadline - loop.time())
                except TimeoutError:
                    break
            await self._slots.acquire()  # at most ``concurrency`` batches run; later pages keep queueing
            batch, self._pending = self._pending[: self.batch_max_pages], self._pending[self.batch_max_pages :]
            if not self._pending:
                self._arrived.clear()
            asyncio.create_task(self._run(batch))

    async def _run(self, batch: list[tuple[Any, asyncio.Future, float]]) -> None:
        started = time.perf_counter()
        now = asyncio.get_running_loop().time()
        waits = [now - arrived for _, _, arrived in batch]
        self.pages_waited += sum(waits)
        self.longest_wait = max(self.longest_wait, *waits)
        self.running += 1
        try:
            pages = await asyncio.get_running_loop().run_in_executor(
                self._threads, self.engine.recognize_batch, [image for image, _, _ in batch]
            )
        except Exception as exc:
            for _, future, _ in batch:
                if not future.done():
                    future.set_exception(exc)
        else:
            for (_, future, _), lines in zip(batch, pages, strict=True):
                if not future.done():
                    future.set_result(lines)
        finally:
            self.running -= 1
            self._slots.release()
            self.busy_seconds += time.perf_counter() - started
            self.batch_sizes[len(batch)] += 1

    async def close(self) -> None:
        """Stop what the engine started (surya: its child process and recognition server); the
        pool calls it before it kills the actor, which would skip the engine's atexit."""
        await asyncio.get_running_loop().run_in_executor(self._threads, self.engine.close)

    async def stats(self) -> dict[str, Any]:
        """Batches run so far by size (``{pages: batches}``), batches running, pages waiting,
        seconds spent in the engine, and seconds pages waited for their batch (summed, longest)."""
        return {
            "batch_sizes": dict(self.batch_sizes),
            "running": self.running,
            "waiting_pages": len(self._pending),
            "busy_seconds": round(self.busy_seconds, 3),
            "page_wait_seconds": round(self.pages_waited, 3),
            "longest_page_wait_seconds": round(self.longest_wait, 3),
        }


class LlmStage:
    """A threaded Ray actor holding ``parallel`` instances of the LLM back-end (several llama.cpp
    contexts, each its own copy of the weights: llama-cpp-python cannot share one model between
    contexts), so that ``parallel`` documents decode at once; Ray runs up to ``parallel`` calls
    in threads (``max_concurrency``) and llama.cpp releases the GIL while it decodes.

    ``complete`` is ``models.llm.LlmBackend.complete`` plus ``affinity``: the caller's key
    (one CPU worker); a continuation of that caller's previous call goes back to the instance
    that served it, where llama.cpp reuses the cached prompt (``_pick``)."""

    def __init__(self, models: ModelConfig, parallel: int = 1) -> None:
        self.instances = [llm_backend(models) for _ in range(parallel)]
        self.name = self.instances[0].name
        self._free: list[int] = list(range(parallel))
        self._last: dict[str, int] = {}
        self._cond = threading.Condition()
        self.calls = 0
        self.running = 0
        self.busy_seconds = 0.0

    def ping(self) -> str:
        return "ok"

    def backend_name(self) -> str:
        return self.name

    def complete(
        self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = (), affinity: str = ""
    ) -> str:
        with self._cond:
            self._cond.wait_for(lambda: self._pick(prompt, affinity) is not None)
            index = self._pick(prompt, affinity)
            self._free.remove(index)
            self.running += 1
        started = time.perf_counter()
        try:
            return self.instances[index].complete(prompt, json_schema, max_tokens, stop)
        finally:
            with self._cond:
                self._free.append(index)
                self.running -= 1
                self._last[affinity] = index
                self.calls += 1
                self.busy_seconds += time.perf_counter() - started
                self._cond.notify_all()

    def _pick(self, prompt: str, affinity: str) -> int | None:
        """The instance for this call, or None to wait. A continuation of the caller's previous
        prompt and answer waits for the instance that holds them: read afresh elsewhere, the
        same document would get another answer (llama.cpp's greedy output depends on how a
        prompt was batched; ``models.llama_cpp_backend``), and the answer must not depend on load."""
        wanted = self._last.get(affinity)
        if wanted is not None and self.instances[wanted].continues(prompt):
            return wanted if wanted in self._free else None
        return min(self._free) if self._free else None

    def stats(self) -> dict[str, Any]:
        """Calls answered, calls running, and the seconds spent decoding, summed over the instances."""
        return {
            "calls": self.calls,
            "running": self.running,
            "busy_seconds": round(self.busy_seconds, 3),
            "parallel": len(self.instances),
        }


def _stage_actor(stage: str, actor_name: str):
    """The handle of the stage actor named ``actor_name``, looked up once per proxy: a named
    actor's handle stays valid across Ray's restarts of it. WorkerLost when there is none."""
    import ray

    try:
        return ray.get_actor(actor_name)
    except ValueError as exc:  # the name is unknown (the pool is closing)
        raise WorkerLost(f"{stage} stage {actor_name} not found") from exc


def _stage_call(stage: str, actor, method: str, *args: Any) -> Any:
    """Call a stage actor and wait; a lost actor becomes WorkerLost (the queue retries)."""
    import ray

    try:
        return ray.get(getattr(actor, method).remote(*args))
    except ray.exceptions.RayTaskError as exc:
        raise exc.cause from None  # the engine's own error, as a local engine would raise it
    except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.OutOfMemoryError) as exc:
        raise WorkerLost(f"{stage} stage lost mid-batch ({type(exc).__name__}); the job is retried") from exc


class RemoteOcr(OcrEngine):
    """An ``models.ocr.OcrEngine`` whose pages go to the OCR stage actor named ``actor_name``
    (a name, not a handle, crosses into the worker, so a restarted worker finds the stage again)."""

    def __init__(self, actor_name: str) -> None:
        self.actor = _stage_actor("OCR", actor_name)
        self.name = _stage_call("OCR", self.actor, "engine_name")

    def recognize(self, image) -> list:
        return _stage_call("OCR", self.actor, "recognize", image)


class RemoteLlm(LlmBackend):
    """A ``models.llm.LlmBackend`` whose prompts go to the LLM stage actor named ``actor_name``;
    ``affinity`` identifies this worker to the stage (see ``LlmStage``)."""

    def __init__(self, actor_name: str, affinity: str) -> None:
        self.actor = _stage_actor("LLM", actor_name)
        self.affinity = affinity
        self.name = _stage_call("LLM", self.actor, "backend_name")

    def complete(self, prompt: str, json_schema: dict | None, max_tokens: int, stop: tuple[str, ...] = ()) -> str:
        return _stage_call("LLM", self.actor, "complete", prompt, json_schema, max_tokens, stop, self.affinity)


__all__ = ["OcrStage", "LlmStage", "RemoteOcr", "RemoteLlm"]
