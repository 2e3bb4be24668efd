"""The pool of extraction workers: Ray actors (the product), or threads in this process
(``inline``, for tools and tests that need no cluster). Both have the same interface.

Each Ray actor wraps one ``Extractor`` and loads its models in its constructor. A small gate
actor limits OCR in flight to ``ocr.concurrency`` across the whole pool (spec section 8). The
document's bytes travel through Ray's object store, so an actor on another host of the cluster
can read them (DESIGN.md flow step 4).

Limits (``limits.job_timeout_seconds``, ``limits.worker_memory_mb``, carried in ModelConfig):
a document running past the timeout gets its actor killed (Ray restarts it) and comes back as
JobTimeout, a temporary error the queue retries; each actor caps its own memory
(pipeline.runtime.worker), so one bad file cannot take the appliance down.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import uuid
from pathlib import Path
from typing import Any, Protocol

from pipeline.context import JobContext, ModelConfig, StageConfig
from pipeline.errors import JobTimeout, TemporaryError, WorkerLost
from pipeline.result import ExtractionResult

log = logging.getLogger(__name__)


def _timeout_error(seconds: float, what: str) -> JobTimeout:
    return JobTimeout(f"extraction ran past limits.job_timeout_seconds ({seconds:g} s); {what}")


def resolved_mode(stages: StageConfig) -> str:
    """``single`` or ``staged``: ``pool.mode = "auto"`` asks the connected Ray for GPUs."""
    if stages.mode != "auto":
        return stages.mode
    import ray

    return "staged" if ray.cluster_resources().get("GPU", 0) > 0 else "single"


class Pool(Protocol):
    """What the queue and the server use of a pool (STYLE.md 16: optional capabilities declared
    with defaults): ``size`` documents at once, ``submit`` one (an ``ExtractionResult``, or a
    ``pipeline.errors.TemporaryError`` to retry), ``healthy``, ``close``; and optionally
    ``check`` (probe the workers, seconds) and ``stage_stats`` (the batching actors' numbers)."""

    size: int

    def healthy(self) -> bool: ...

    async def submit(self, ctx: JobContext, data: bytes) -> ExtractionResult: ...

    async def close(self) -> None: ...

    async def check(self, timeout: float = 5.0) -> bool:
        """Optional: probe the workers now and update ``healthy``. Default: nothing to probe."""
        return self.healthy()

    async def stage_stats(self, timeout: float = 5.0) -> dict[str, dict]:
        """Optional: each batching actor's ``stats()``. Default: none ({})."""
        return {}


class InlinePool(Pool):
    """``size`` Extractors in threads of this process, sharing one OCR gate."""

    def __init__(self, models: ModelConfig, size: int = 1, ocr_concurrency: int = 1) -> None:
        from pipeline.runner import Extractor, LocalOcrGate

        gate = LocalOcrGate(ocr_concurrency)
        self.size = size
        self.timeout = models.job_timeout_seconds or None
        self._idle: asyncio.Queue | None = None
        self._workers = [Extractor(models, gate) for _ in range(size)]

    def healthy(self) -> bool:
        return True

    async def submit(self, ctx: JobContext, data: bytes) -> ExtractionResult:
        """Extract one document; raises ``pipeline.errors.TemporaryError`` (OcrBusy included)
        when it should be retried later."""
        if self._idle is None:
            self._idle = asyncio.Queue()
            for worker in self._workers:
                self._idle.put_nowait(worker)
        worker = await self._idle.get()
        future = asyncio.get_running_loop().run_in_executor(None, worker.extract, ctx, data)
        # a thread cannot be killed: on timeout the worker rejoins the idle queue only when it ends
        future.add_done_callback(lambda _: self._idle.put_nowait(worker))
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.timeout)
        except TimeoutError:
            raise _timeout_error(self.timeout, "its thread finishes in the background") from None

    async def close(self) -> None:
        self._workers.clear()


def ray_auth(token_file: Path | None, create: bool = True) -> str:
    """Keep Ray's token authentication on (Ray's default when ``RAY_AUTH_MODE`` is unset)
    unless the operator set ``RAY_AUTH_MODE=disabled`` (theirs to choose, e.g. on an isolated
    network), and return the mode in force.

    Why on: whoever reaches Ray's gRPC servers (GCS, raylet, workers) can run code in the
    appliance. A local Ray listens on loopback only (``connect_ray``), which still leaves every
    other user of the host; a cluster's nodes listen on the LAN. The token is read from
    ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH`` when the operator set one, else from
    ``token_file`` (64 hex digits, mode 0600), which is written on first start when ``create``
    (a local Ray) and must hold the cluster's token when joining one (RuntimeError naming the
    file when it is missing). ``token_file`` None leaves the choice to Ray
    (``~/.ray/auth_token``)."""
    # Left unset, Ray turns token mode on itself in ray.init (a new local cluster, or a token
    # at hand when joining) and refreshes its cached config; setting the variable here, after
    # `import ray`, would leave this driver thinking auth is off while its raylet requires it.
    mode = os.environ.get("RAY_AUTH_MODE", "token").lower()
    if mode != "token" or token_file is None:
        return mode
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return mode
    if not token_file.exists():
        if not create:
            raise RuntimeError(
                f"Ray token authentication is on but {token_file} does not exist: copy the cluster's token "
                "there (`ray get-auth-token` on the head node), or set RAY_AUTH_TOKEN"
            )
        token_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))  # 256 bits, as `ray` generates its own
    os.environ["RAY_AUTH_TOKEN_PATH"] = str(token_file)
    return mode


def connect_ray(
    address: str = "", num_cpus: int = 0, object_store_mb: int = 200, token_file: Path | None = None
) -> None:
    """Start a local Ray (``address`` empty) or join a cluster (``auto``, ``ray://…``); idempotent.

    A local Ray listens on loopback only (every port of its processes). The dashboard stays off
    (plain ``ray``). Token authentication is on unless the operator turned it off for a local Ray
    (``ray_auth``; ``token_file`` is ``<data_dir>/ray-auth-token`` in the appliance); joining a
    cluster without it is refused. Raises RuntimeError when joining with RAY_AUTH_MODE other than
    ``token`` or without the cluster's token, and what ``ray.init`` raises.
    """
    mode = ray_auth(token_file, create=not address)
    if address and mode != "token":
        raise RuntimeError(
            f"joining the Ray cluster at {address} requires Ray's token authentication, and RAY_AUTH_MODE is "
            f"{mode!r}: unset RAY_AUTH_MODE, start every node with RAY_AUTH_MODE=token and the same token, and "
            "put that token in the appliance's ray-auth-token file (README: Ray security)"
        )
    if not address:
        # Ray's node address decides where its gRPC servers (GCS, raylet, workers, agents) listen.
        # On Linux Ray takes the host's LAN address even when told 127.0.0.1 (it "resolves"
        # localhost for other nodes' sake); Ray's own switch for single-host platforms keeps it on
        # loopback. Set before `import ray` for the processes it starts, and in the constant in
        # case ray was imported already (issue 12, finding 1).
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    import ray

    if ray.is_initialized():
        return
    if not address:
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": True,
        "configure_logging": False,
        "ignore_reinit_error": True,
    }
    if address:
        if mode == "token" and "RAY_AUTH_MODE" not in os.environ:
            # ray.init never turns token mode on for an explicit address; Ray's own switch sets
            # the variable and refreshes the config it cached at import (ray pinned in the lock).
            from ray._private.authentication.authentication_token_setup import _enable_token_auth

            _enable_token_auth()
        ray.init(address=address, **kwargs)
        log.info("joined the Ray cluster at %s (auth %s)", address, mode)
    else:
        ray.init(num_cpus=num_cpus or os.cpu_count() or 2, object_store_memory=object_store_mb * 1024 * 1024, **kwargs)
        log.info("started a local Ray (%d CPUs, auth %s)", num_cpus or os.cpu_count() or 2, mode)


SHIP_BOOKS_FROM = 50  # profiles from which a tenant's book travels by reference, not in each job
BOOKS_KEPT = 16  # profile book versions kept in the object store


class RayPool(Pool):
    """``size`` Ray actors, each an Extractor, plus the OCR gate actor; with ``stages`` in staged
    mode the actors are CPU workers (``pipeline.runtime.worker.StagedExtractor``) and two more actors hold
    the models: the OCR stage and the LLM stage (``pipeline.runtime.batching``).

    ``start()`` creates them and waits until every actor has loaded its models (readiness).
    A dead actor is restarted by Ray (``max_restarts``); its job comes back as WorkerLost, and so
    do the jobs of a batch in flight on a stage actor that dies.
    """

    def __init__(
        self, models: ModelConfig, size: int = 2, ocr_concurrency: int = 1, stages: StageConfig | None = None
    ) -> None:
        self.models = models
        self.size = size
        self.ocr_concurrency = ocr_concurrency
        self.stages = stages or StageConfig()
        self.mode = "single"
        self._stage_actors: dict[str, Any] = {}  # "ocr"/"llm" -> actor (staged mode)
        self._actors: list[Any] = []
        self._idle: asyncio.Queue | None = None
        self._healthy = False
        self._gate = None
        self._reviving: dict[Any, asyncio.Task] = {}  # actor -> task that returns it once alive
        self._books: dict[str, Any] = {}  # profile book key -> its ObjectRef, oldest first (_light)

    async def start(self, timeout: float = 600) -> RayPool:
        import ray

        from pipeline.runtime.worker import LeasedOcrGate, LimitedExtractor, StagedExtractor

        self.mode = resolved_mode(self.stages)
        gate_cls = ray.remote(num_cpus=0, max_restarts=-1)(LeasedOcrGate)
        gate_name = f"ocr-gate-{uuid.uuid4()}"
        # a slot held longer than a job may run belongs to a killed worker (pipeline.runtime.worker)
        lease = 2 * self.models.job_timeout_seconds if self.models.job_timeout_seconds else 0
        if self.mode == "staged":
            names = await asyncio.wait_for(self._start_stages(), timeout)
            # documents in OCR at once: enough to fill ``ocr.concurrency`` batches (spec 8's busy rule stays)
            capacity = self.ocr_concurrency * self.stages.batch_max_pages
            self._gate = gate_cls.options(name=gate_name).remote(capacity, lease)
            actor_cls = ray.remote(num_cpus=0, max_restarts=-1, max_concurrency=1)(StagedExtractor)
            self._actors = [actor_cls.remote(self.models, gate_name, *names) for _ in range(self.size)]
        else:
            self._gate = gate_cls.options(name=gate_name).remote(self.ocr_concurrency, lease)
            actor_cls = ray.remote(num_cpus=0, max_restarts=-1, max_concurrency=1)(LimitedExtractor)
            self._actors = [actor_cls.remote(self.models, gate_name) for _ in range(self.size)]
        await asyncio.wait_for(asyncio.gather(*(a.ping.remote() for a in self._actors)), timeout)
        self._idle = asyncio.Queue()
        for actor in self._actors:
            self._idle.put_nowait(actor)
        self._healthy = True
        return self

    async def _start_stages(self) -> tuple[str, str]:
        """Start the OCR and LLM stage actors, wait until their models are loaded, and return
        their names (the LLM's "" when ``llm.enabled`` is false)."""
        import ray

        from pipeline.runtime.batching import LlmStage, OcrStage

        wanted = self.stages.ocr_num_gpus + (self.stages.llm_num_gpus if self.models.llm_enabled else 0)
        have = ray.cluster_resources().get("GPU", 0)
        if wanted > have:  # Ray would leave the stage actors pending for ever: say so now
            raise RuntimeError(
                f"ocr.num_gpus + llm.num_gpus reserve {wanted:g} GPU(s) but the Ray cluster has {have:g}: "
                "set them to 0 on a host without a GPU, or lower them (0.5 + 0.5 shares one GPU)"
            )
        run = uuid.uuid4()
        ocr_name = f"ocr-stage-{run}"
        ocr_cls = ray.remote(num_cpus=0, max_restarts=-1, max_concurrency=1000)(OcrStage)
        self._stage_actors["ocr"] = ocr_cls.options(name=ocr_name, num_gpus=self.stages.ocr_num_gpus).remote(
            self.models, self.ocr_concurrency, self.stages.batch_max_pages, self.stages.batch_window_ms
        )
        llm_name = ""
        if self.models.llm_enabled:
            llm_name = f"llm-stage-{run}"
            # two threads beyond the decoders answer ping and stats while every instance is busy
            llm_cls = ray.remote(num_cpus=0, max_restarts=-1, max_concurrency=self.stages.llm_parallel + 2)(LlmStage)
            self._stage_actors["llm"] = llm_cls.options(name=llm_name, num_gpus=self.stages.llm_num_gpus).remote(
                self.models, self.stages.llm_parallel
            )
        await asyncio.gather(*(_awaited(actor.ping.remote()) for actor in self._stage_actors.values()))
        log.info(
            "staged pool: OCR stage (%g GPU, batches of <= %d pages, %d ms window), LLM stage (%d parallel, %g GPU)",
            self.stages.ocr_num_gpus,
            self.stages.batch_max_pages,
            self.stages.batch_window_ms,
            self.stages.llm_parallel,
            self.stages.llm_num_gpus,
        )
        return ocr_name, llm_name

    async def stage_stats(self, timeout: float = 5.0) -> dict[str, dict]:
        """Each stage actor's ``stats()`` (OCR batch sizes, engine seconds; LLM calls); {} in single mode.
        A stage that does not answer within ``timeout`` seconds is left out."""
        out = {}
        for stage, actor in self._stage_actors.items():
            try:
                out[stage] = await asyncio.wait_for(_awaited(actor.stats.remote()), timeout)
            except Exception as exc:  # restarting or lost: stats are best effort
                log.debug("no stats from the %s stage: %s", stage, exc)
        return out

    def healthy(self) -> bool:
        return self._healthy

    async def check(self, timeout: float = 5.0) -> bool:
        """Ping every actor; updates and returns ``healthy()``: True while at least one worker
        (and, in staged mode, every stage actor) answers. One dead or restarting worker of
        several must not refuse every upload of every tenant: the others take the work. Busy
        actors answer after their job, so only dead ones (not slow ones) count."""
        import ray

        # an actor Ray is restarting (after a kill or crash) is slow, not dead: skip it
        workers = [a for a in self._actors if a not in self._reviving]
        stages = list(self._stage_actors.values())
        try:
            answers = await asyncio.wait_for(
                asyncio.gather(*(a.ping.remote() for a in workers + stages), return_exceptions=True), timeout
            )
        except TimeoutError:
            return self._healthy
        for answer in answers:
            if isinstance(answer, BaseException):
                log.warning("extraction pool: an actor does not answer: %s", answer)
        alive = sum(not isinstance(answer, BaseException) for answer in answers[: len(workers)])
        stages_ok = not any(isinstance(answer, ray.exceptions.RayError) for answer in answers[len(workers) :])
        self._healthy = (alive > 0 or (not workers and bool(self._reviving))) and stages_ok
        return self._healthy

    def _light(self, ctx: JobContext) -> JobContext:
        """``ctx`` with a large named profile book replaced by a ``BookHandle``: the book goes
        into Ray's object store once per version (the last ``BOOKS_KEPT`` are kept), and each
        worker unpickles it once (``LimitedExtractor``), instead of with every job."""
        import dataclasses

        import ray

        from pipeline.profiles.book import BookHandle

        book = ctx.profiles
        if book is None or isinstance(book, BookHandle) or not book.key or len(book) < SHIP_BOOKS_FROM:
            return ctx
        ref = self._books.get(book.key)
        if ref is None:
            ref = self._books[book.key] = ray.put(book)
            while len(self._books) > BOOKS_KEPT:
                self._books.pop(next(iter(self._books)))
        return dataclasses.replace(ctx, profiles=BookHandle(book.key, [ref]))

    async def submit(self, ctx: JobContext, data: bytes) -> ExtractionResult:
        """Extract one document on an idle actor; raises ``pipeline.errors.TemporaryError`` to
        retry (OcrBusy as the worker raised it; WorkerLost, JobTimeout from here)."""
        import ray

        assert self._idle is not None, "RayPool.start() was not awaited"
        actor = await self._idle.get()
        timeout = self.models.job_timeout_seconds or None
        lost = False
        try:
            ref = ray.put(data)
            result = actor.extract.remote(self._light(ctx), ref)
            try:
                return await asyncio.wait_for(_awaited(result), timeout)
            except TimeoutError:
                # a running sync actor task cannot be cancelled: kill the process, Ray restarts it
                ray.kill(actor, no_restart=False)
                lost = True
                raise _timeout_error(timeout, "the worker was restarted") from None
        except ray.exceptions.RayTaskError as exc:
            # the worker raised it: hand the queue the worker's own error (OcrBusy stays OcrBusy),
            # not Ray's wrapper, which is an instance of the cause too but carries Ray's traceback
            if isinstance(exc.cause, TemporaryError):
                raise exc.cause from None
            raise
        except (
            ray.exceptions.RayActorError,
            ray.exceptions.WorkerCrashedError,
            ray.exceptions.OutOfMemoryError,
        ) as exc:
            lost = True
            raise WorkerLost(f"extraction worker lost: {type(exc).__name__}") from exc
        finally:
            if lost:  # the retry must not spend an attempt on an actor that is still restarting
                # its OCR slot now, not when the slot's lease runs out (minutes of "OCR busy")
                self._gate.release_holder.remote(actor._actor_id.hex())
                self._reviving[actor] = asyncio.create_task(self._return_when_alive(actor))
            else:
                self._idle.put_nowait(actor)

    async def _return_when_alive(self, actor, within: float = 600) -> None:
        """Put a killed or crashed actor back in the idle queue once Ray has restarted it (it
        answers ``ping``), or after ``within`` seconds whatever happens, so the pool never shrinks."""
        import ray

        deadline = asyncio.get_running_loop().time() + within
        try:
            while asyncio.get_running_loop().time() < deadline:
                try:
                    await asyncio.wait_for(_awaited(actor.ping.remote()), 10)
                    return
                except (TimeoutError, ray.exceptions.RayError):
                    await asyncio.sleep(0.5)
        finally:
            self._reviving.pop(actor, None)
            self._idle.put_nowait(actor)

    async def close(self) -> None:
        import ray

        for task in list(self._reviving.values()):
            task.cancel()
        for actor in self._actors:
            ray.kill(actor)
        if self._gate is not None:
            ray.kill(self._gate)
        if "ocr" in self._stage_actors:  # let the engine stop its own children first
            try:
                await asyncio.wait_for(_awaited(self._stage_actors["ocr"].close.remote()), 30)
            except Exception as exc:
                log.warning("OCR stage did not close cleanly: %s", exc)
        for actor in self._stage_actors.values():
            ray.kill(actor)
        self._stage_actors.clear()
        self._actors.clear()
        self._healthy = False


async def _awaited(ref):
    return await ref  # awaiting the ObjectRef itself keeps Ray's error types (RayTaskError as its cause)


async def start_pool(
    kind: str,
    models: ModelConfig,
    size: int,
    ocr_concurrency: int,
    *,
    ray_address: str = "",
    num_cpus: int = 0,
    object_store_mb: int = 200,
    ray_token_file: Path | None = None,
    stages: StageConfig | None = None,
):
    """Start the pool named by ``kind`` (``ray`` or ``inline``) and wait until its models are
    loaded; ``ray_token_file`` as in ``connect_ray``; ``stages`` lays out a Ray pool (the
    inline pool is always single)."""
    if kind == "inline":
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: InlinePool(models, size, ocr_concurrency))
    if kind != "ray":
        raise ValueError(f"unknown pool kind {kind!r}; choose 'ray' or 'inline'")
    # ray.init takes seconds (a local Ray starts its processes): in a thread, so that the web
    # app's probes keep answering meanwhile (issue 12; Ray then leaves SIGTERM to us)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, connect_ray, ray_address, num_cpus, object_store_mb, ray_token_file)
    return await RayPool(models, size, ocr_concurrency, stages).start()
