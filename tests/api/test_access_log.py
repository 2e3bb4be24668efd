"""``log.access`` (api.access_log): "changes" logs every request but successful reads, "all"
every request, "off" none."""

from __future__ import annotations

import logging

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from api.access_log import runner_options


def app() -> web.Application:
    async def ok(request: web.Request) -> web.Response:
        return web.json_response({}, status=int(request.query.get("status", "200")))

    application = web.Application()
    application.router.add_route("*", "/x", ok)
    return application


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("changes", ['"POST /x?status=202 HTTP/1.1" 202', '"GET /x?status=404 HTTP/1.1" 404']),
        ("all", ['"GET /x HTTP/1.1" 200', '"POST /x?status=202 HTTP/1.1" 202', '"GET /x?status=404 HTTP/1.1" 404']),
        ("off", []),
    ],
)
async def test_which_requests_get_a_line(mode, expected, caplog):
    caplog.set_level(logging.INFO, logger="aiohttp.access")
    server = TestServer(app())
    await server.start_server(**runner_options(mode))  # the runner's options, as server.run passes them
    client = TestClient(server)
    await client.start_server()
    try:
        assert (await client.get("/x")).status == 200
        assert (await client.post("/x?status=202")).status == 202
        assert (await client.get("/x?status=404")).status == 404
    finally:
        await client.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "aiohttp.access"]
    assert len(lines) == len(expected), lines
    for line, text in zip(lines, expected, strict=True):
        assert text in line
