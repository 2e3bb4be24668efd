"""The OpenAPI document the appliance serves, written to a file without a running server
(``python -m tests.support.openapi_document OUT``; scripts/generate-client uses it)."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from api.app import OPENAPI_URL, make_app
from appliance.datadir import prepare_data_dir
from appliance.db import Database
from tests.conftest import make_settings


async def served_document() -> dict:
    """``GET /api/docs/openapi.json`` of an app on a fresh data dir."""
    settings = make_settings(Path(tempfile.mkdtemp(prefix="openapi-")))
    prepare_data_dir(settings)
    db = await Database(settings.db_path).open()
    client = TestClient(TestServer(make_app(db, settings, queue_ready=lambda: True)))
    await client.start_server()
    try:
        return await (await client.get(OPENAPI_URL)).json()
    finally:
        await client.close()
        await db.close()


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(asyncio.run(served_document()), indent=2, sort_keys=True) + "\n")
