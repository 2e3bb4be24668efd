"""Shared fixtures: real SQLite files in tmp_path, a real aiohttp server on loopback, the real
dispatcher, and an in-process pool whose models are fakes chosen through the config (the same
plug-in setting an operator uses). The appliance is assembled as ``appliance serve`` assembles
it (``server.run.assemble``); ``bench.server`` runs a real ``appliance serve`` process."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from appliance.db import Database
from appliance.settings import LimitSettings, LlmSettings, OcrSettings, ReviewSettings, Settings, load_settings
from appliance.tenants import create_tenant
from bench.server import merged, toml_value, write_config  # noqa: F401 (fixtures' helpers, imported by tests)
from pipeline.context import ModelConfig
from server.run import assemble, running_pipeline
from tests.paths import DATA, SHARED  # noqa: E402

DATASETS = SHARED / "datasets"
needs_datasets = pytest.mark.skipif(
    not DATASETS.is_dir(),
    reason="../shared/datasets is absent: it exists beside CI's clone, not on a customer's machine",
)

# The fakes are not calibrated: their arbiter table trusts a key field the rules read (alone or
# alike with the model), so that job-flow tests can reach ``completed``.
RULES_TRUSTED_TABLE = str(DATA / "arbiter_rules_trusted.json")
FAKE_MODELS = {
    "ocr": {"engine": "tests.fakes.ocr:TextOcr"},
    "llm": {"backend": "tests.fakes.llm:EchoLLM", "arbiter_table": RULES_TRUSTED_TABLE},
    # the fakes' documents are decided by the test arbiter table; tests of the learned scorer
    # switch it on (tests/pipeline/decision/test_scorer.py, the end-to-end model tests)
    "review": {"scorer": False},
    "pool": {"backend": "inline", "workers": 2},
    "queue": {"backoff_seconds": 0.05, "poll_seconds": 0.05},
}


@dataclass
class Harness:
    """A running appliance (API + dispatcher + inline pool) and helpers to drive it."""

    client: TestClient
    db: Database
    settings: Settings
    queue_open: bool = True
    tenants: list = field(default_factory=list)

    async def tenant(self, credits: int = 10, name: str = "acme") -> tuple[str, dict[str, str]]:
        tenant, key = await create_tenant(self.db, name, credits)
        return tenant.id, {"Authorization": f"Bearer {key}"}

    async def upload(
        self,
        headers: dict[str, str],
        data: bytes,
        *,
        filename: str = "invoice.pdf",
        content_type: str = "application/pdf",
        path: str = "/api/v1/invoices/upload",
        fields: dict[str, str] | None = None,
        params: dict[str, str] | None = None,
    ):
        from aiohttp import FormData

        form = FormData()
        for key, value in (fields or {}).items():
            form.add_field(key, value)
        form.add_field("file", data, filename=filename, content_type=content_type)
        return await self.client.post(path, data=form, headers=headers, params=params or {})

    async def wait_ready(self, headers: dict[str, str], invoice_id: str, timeout: float = 60) -> dict:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            response = await self.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)
            body = await response.json()
            if body.get("ready"):
                return body
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"invoice {invoice_id} not ready after {timeout} s: {body}")
            await asyncio.sleep(0.05)

    async def balance(self, headers: dict[str, str]) -> int:
        response = await self.client.get("/api/v1/credits/balance", headers=headers)
        return (await response.json())["balance"]


def fake_models(
    ocr: str = "tests.fakes.ocr:TextOcr",
    llm: str = "tests.fakes.llm:EchoLLM",
    review: dict[str, Any] | None = None,
    **limits: Any,
) -> ModelConfig:
    """What workers load, with fake back-ends, derived from Settings as the appliance derives it;
    ``limits`` are ``[limits]`` keys (``job_timeout_seconds``, ``worker_memory_mb``), ``review``
    ``[review]`` keys (the learned scorer is off unless ``review`` switches it on)."""
    return Settings(
        ocr=OcrSettings(engine=ocr),
        llm=LlmSettings(backend=llm, arbiter_table=RULES_TRUSTED_TABLE),
        review=ReviewSettings(**{"scorer": False, **(review or {})}),
        limits=LimitSettings(**limits),
    ).worker_models()


def make_settings(tmp_path: Path, *layers: dict[str, dict[str, Any]]) -> Settings:
    config = write_config(tmp_path, merged(FAKE_MODELS, *layers))
    return load_settings(config, env={})


@pytest.fixture(scope="module")
def ray_session(tmp_path_factory):
    """A local Ray (2 CPUs, token auth) for one test module, shut down after it (measurements.md:
    one start costs about 2 s)."""
    import ray

    from pipeline.runtime.pool import connect_ray

    connect_ray("", num_cpus=2, object_store_mb=100, token_file=tmp_path_factory.mktemp("ray") / "token")
    yield
    ray.shutdown()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path)


@pytest.fixture
async def migrated_db(tmp_path: Path):
    """An open ``Database`` on a freshly migrated SQLite file in ``tmp_path``, closed after the test."""
    from appliance.db import Database
    from appliance.migrations import migrate

    migrate(tmp_path / "appliance.db")
    db = await Database(tmp_path / "appliance.db").open()
    yield db
    await db.close()


@pytest.fixture
async def harness_factory(tmp_path: Path):
    """Start appliances with given settings; everything is stopped at the end of the test."""
    stack: list = []

    async def start(settings: Settings) -> Harness:
        harness = Harness(client=None, db=None, settings=settings)  # type: ignore[arg-type]
        assembled = await assemble(
            settings, queue_ready=lambda: harness.queue_open and assembled.readiness.queue_ready()
        )
        db = harness.db = assembled.db
        pipeline = running_pipeline(settings, db, assembled.metrics)
        assembled.readiness.attach(*await pipeline.__aenter__())
        client = TestClient(TestServer(assembled.app, host="127.0.0.1"))
        await client.start_server()
        harness.client = client
        stack.append((client, pipeline, db))
        return harness

    yield start
    for client, pipeline, db in reversed(stack):
        await client.close()
        await pipeline.__aexit__(None, None, None)
        await db.close()


@pytest.fixture
async def harness(harness_factory, settings) -> Harness:
    return await harness_factory(settings)
