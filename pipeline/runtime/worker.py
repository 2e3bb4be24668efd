"""What runs inside a pool worker process besides the pipeline: its memory limit, and an OCR gate
whose slots cannot leak when a worker is killed while holding one.

``limit_memory`` sets RLIMIT_DATA before the models load, so a decompression bomb or a runaway
allocation fails inside that worker (MemoryError, a TemporaryError for the queue; or the
process dies and Ray restarts it) instead of exhausting the appliance. RLIMIT_DATA, not
RLIMIT_AS: it counts private writable memory (heap, anonymous mappings) but not shared or file
mappings, and a Ray worker maps the whole object store (30 % of RAM under ``ray start``), which
made RLIMIT_AS abort Ray's own allocator. Measured with the real models (rapidocr + Gemma 3
270M): about 1.6 GB of data segment after loading (3.3 GB address space, 0.6 GB resident).
"""

from __future__ import annotations

import dataclasses
import logging
import resource
import threading
import time
from typing import Any

from pipeline.context import JobContext, ModelConfig
from pipeline.result import ExtractionResult
from pipeline.runner import Extractor

log = logging.getLogger(__name__)
MB = 1024 * 1024


def limit_memory(megabytes: int) -> None:
    """Cap this process's private writable memory (RLIMIT_DATA) at ``megabytes`` (0: leave it
    alone). Never raises a limit set lower (a hard limit cannot be raised without privileges)."""
    if megabytes <= 0:
        return
    wanted = megabytes * MB
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft == resource.RLIM_INFINITY or wanted < soft:
        resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))


class NamedOcrGate:
    """The pool's ``LeasedOcrGate`` actor, found by its name, as a worker's ``OcrGate``: a slot
    is taken in this worker's name (its Ray actor id), so that the pool can hand it back the
    moment Ray reports this worker dead (``LeasedOcrGate.release_holder``). A name, not a
    handle, crosses into the worker, so that a restarted worker finds the gate again."""

    def __init__(self, actor_name: str) -> None:
        self.actor_name = actor_name

    def _call(self, method: str) -> bool:
        import ray

        holder = ray.get_runtime_context().get_actor_id() or ""
        return ray.get(getattr(ray.get_actor(self.actor_name), method).remote(holder))

    def try_acquire(self) -> bool:
        """Take a slot; False when every slot is in use."""
        return self._call("try_acquire")

    def release(self) -> None:
        """Give this worker's slot back."""
        self._call("release")


class LimitedExtractor(Extractor):
    """An Extractor in a Ray actor: it first caps its process's memory
    (``ModelConfig.worker_memory_mb``; in the server's own process it would cap the server) and
    takes OCR slots from the pool's gate actor named ``gate_name``."""

    def __init__(self, models: ModelConfig, gate_name: str) -> None:
        limit_memory(models.worker_memory_mb)
        super().__init__(models, NamedOcrGate(gate_name))

    def extract(self, ctx: JobContext, data: bytes) -> ExtractionResult:
        """``Extractor.extract``, with a profile book the pool left in the object store
        (``BookHandle``) fetched and unpickled once per version."""
        return super().extract(resolved_books(self, ctx), data)

    def memory_limit(self) -> int:
        """The memory limit (RLIMIT_DATA) of this worker in bytes (-1: none); for tests and operators."""
        return resource.getrlimit(resource.RLIMIT_DATA)[0]


BOOKS_CACHED = 4  # profile book versions a worker keeps unpickled


def resolved_books(worker: Any, ctx: JobContext) -> JobContext:
    """``ctx`` with its ``BookHandle`` replaced by the book it names: from ``worker``'s cache
    of the last ``BOOKS_CACHED`` versions, else fetched from Ray's object store."""
    from pipeline.profiles.book import BookHandle

    handle = ctx.profiles
    if not isinstance(handle, BookHandle):
        return ctx
    import ray

    cache: dict = worker.__dict__.setdefault("_books", {})
    book = cache.get(handle.key)
    if book is None:
        book = cache[handle.key] = ray.get(handle.ref[0])
        while len(cache) > BOOKS_CACHED:
            cache.pop(next(iter(cache)))
    return dataclasses.replace(ctx, profiles=book)


class StagedExtractor(LimitedExtractor):
    """A CPU-stage worker of ``pool.mode = "staged"``: the pipeline of ``Extractor`` with no
    model of its own; its pages go to the OCR stage actor and its prompts to the LLM stage
    actor, both found by name (``pipeline.runtime.batching``). ``llm_stage`` empty: no model (``llm.enabled``
    false)."""

    def __init__(self, models: ModelConfig, gate_name: str, ocr_stage: str, llm_stage: str = "") -> None:
        import uuid

        from pipeline.runtime.batching import RemoteLlm, RemoteOcr

        limit_memory(models.worker_memory_mb)
        llm = RemoteLlm(llm_stage, affinity=str(uuid.uuid4())) if llm_stage else None
        Extractor.__init__(self, models, NamedOcrGate(gate_name), ocr=RemoteOcr(ocr_stage), llm=llm)


class LeasedOcrGate:
    """``ocr.concurrency`` slots, each held at most ``lease_seconds`` (0: forever).

    A worker killed while it holds a slot (job timeout, crash, out of memory) never releases it:
    the pool, told by Ray that the worker died, frees its slots at once (``release_holder``;
    slots are held in a worker's actor id). As a backstop, since no job outlives
    ``limits.job_timeout_seconds``, a slot held longer (the pool passes twice the timeout, a
    margin) is reclaimed; otherwise one dead worker would keep OCR "busy" for ever, and busy
    retries do not count as attempts. Seen from a worker through ``NamedOcrGate``.
    """

    def __init__(self, capacity: int = 1, lease_seconds: float = 0) -> None:
        self.capacity = capacity
        self.lease_seconds = lease_seconds
        self._held: list[tuple[float, str]] = []  # (monotonic acquisition time, holder), oldest first
        self._lock = threading.Lock()

    def try_acquire(self, holder: str = "") -> bool:
        """Take a slot for ``holder`` (a worker's Ray actor id; "" for anonymous); False when full."""
        with self._lock:
            now = time.monotonic()
            if self.lease_seconds > 0:
                kept = [(t, h) for t, h in self._held if now - t < self.lease_seconds]
                if len(kept) < len(self._held):
                    log.warning(
                        "reclaimed %d OCR slot(s) held past %.0f s by a lost worker",
                        len(self._held) - len(kept),
                        self.lease_seconds,
                    )
                self._held = kept
            if len(self._held) >= self.capacity:
                return False
            self._held.append((now, holder))
            return True

    def release(self, holder: str = "") -> None:
        """Give back one slot of ``holder`` (its oldest; any slot when it holds none)."""
        with self._lock:
            for index, (_, owner) in enumerate(self._held):
                if owner == holder:
                    del self._held[index]
                    return
            if self._held:
                self._held.pop(0)

    def release_holder(self, holder: str) -> int:
        """Give back every slot ``holder`` holds: the pool calls it as soon as Ray reports that
        worker dead (issue 12: a killed worker's slot otherwise stalled all OCR until its lease
        ran out). Returns the number of slots freed."""
        with self._lock:
            kept = [(t, h) for t, h in self._held if h != holder]
            freed = len(self._held) - len(kept)
            self._held = kept
        if freed:
            log.warning("released %d OCR slot(s) of lost worker %s", freed, holder)
        return freed
