"""An appliance assembled by ``server.run.assemble``, as ``serve`` does it (web app first,
pipeline later, readiness and metrics wired in), on a real aiohttp test server, for the probe and
metrics tests; ``tests.conftest``'s harness is the same assembly with its pipeline started."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp import FormData
from aiohttp.test_utils import TestClient, TestServer

from appliance.db import Database
from appliance.metrics import Metrics
from appliance.readiness import Readiness
from appliance.settings import Settings
from appliance.tenants import create_tenant
from server.run import assemble, running_pipeline
from tests.support.docs import png_with_text


@dataclass
class Served:
    """The app is up; ``start_pipeline()`` loads the (fake) models and attaches readiness."""

    client: TestClient
    db: Database
    settings: Settings
    readiness: Readiness
    metrics: Metrics
    pipeline: Any = None
    pool: Any = None
    dispatcher: Any = None

    async def start_pipeline(self) -> None:
        self.pipeline = running_pipeline(self.settings, self.db, self.metrics)
        self.pool, self.dispatcher = await self.pipeline.__aenter__()
        self.readiness.attach(self.pool, self.dispatcher)

    async def stop_pipeline(self) -> None:
        if self.pipeline is not None:
            pipeline, self.pipeline = self.pipeline, None
            await pipeline.__aexit__(None, None, None)

    async def tenant(self, credits: int = 10) -> dict[str, str]:
        _, key = await create_tenant(self.db, "acme", credits)
        return {"Authorization": f"Bearer {key}"}

    async def upload_png(self, headers: dict[str, str], text: str):
        form = FormData()
        form.add_field("file", png_with_text(text), filename="a.png", content_type="image/png")
        return await self.client.post("/api/v1/invoices/upload", data=form, headers=headers)

    async def wait_ready(self, headers: dict[str, str], invoice_id: str, timeout: float = 30) -> dict:
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            body = await (await self.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).json()
            if body.get("ready"):
                return body
            await asyncio.sleep(0.05)
        raise AssertionError(f"invoice {invoice_id} not ready after {timeout} s")


@pytest.fixture
async def served_factory():
    """``await served_factory(settings, queue_ready=None)``: an app whose pipeline is not started
    yet. ``queue_ready`` replaces the readiness gate (to queue jobs no dispatcher takes)."""
    started: list[Served] = []

    async def start(settings: Settings, queue_ready: Callable[[], bool] | None = None) -> Served:
        assembled = await assemble(settings, queue_ready)
        client = TestClient(TestServer(assembled.app, host="127.0.0.1"))
        await client.start_server()
        served = Served(client, assembled.db, settings, assembled.readiness, assembled.metrics)
        started.append(served)
        return served

    yield start
    for served in reversed(started):
        await served.client.close()
        await served.stop_pipeline()
        await served.db.close()
