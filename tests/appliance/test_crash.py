"""Crash safety: kill -9 the server while a job is in flight and while an upload streams; after a
restart the job finishes, exactly one debit stands, and no partial file stays on disk."""

from __future__ import annotations

import json
import socket
import time

import pytest

from bench.server import ServerProcess, cli, multipart
from tests.conftest import FAKE_MODELS, merged, write_config
from tests.support.docs import png_with_text, receipt_text

pytestmark = pytest.mark.slow


def wait_for(predicate, timeout: float = 60, every: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("condition not met in time")


def test_kill_9_mid_job_and_mid_upload_loses_nothing(tmp_path):
    config = write_config(tmp_path, merged(FAKE_MODELS, {"pool": {"workers": 1}}))
    created = cli(config, "tenant", "create", "--name", "crash", "--credits", "3", "--json")
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout.strip().splitlines()[-1])["apiKey"]

    server = ServerProcess(config, env={"FAKE_OCR_SECONDS": "30"}).start()
    try:
        body, ctype = multipart(png_with_text(receipt_text("Total EUR 42.00")), "a.png", "image/png")
        status, accepted = server.request("POST", "/api/v1/invoices/upload", key, body, ctype)
        assert status == 202
        invoice_id = accepted["invoice"]["id"]
        wait_for(
            lambda: server.request("GET", f"/api/v1/invoices/{invoice_id}", key)[1]["processingStatus"] == "processing"
        )
        # a second upload that stops half-way: the server has a partial file on disk
        sock = socket.create_connection(("127.0.0.1", server.port))
        head = (
            f"POST /api/v1/invoices/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n"
            f"Content-Type: {ctype}\r\nContent-Length: {len(body) + 10_000_000}\r\n\r\n"
        ).encode()
        sock.sendall(head + body[: len(body) - 40] + b"\0" * 300_000)
        files_dir = tmp_path / "data" / "files"
        wait_for(lambda: list(files_dir.glob("*/.partial-*")))
        server.kill9()
        sock.close()
    finally:
        server.stop()

    server = ServerProcess(config).start()
    try:

        def ready():
            status, invoice = server.request("GET", f"/api/v1/invoices/{invoice_id}", key)
            return invoice if invoice["ready"] else None

        invoice = wait_for(ready, timeout=60)
        assert invoice["processingStatus"] == "completed"
        assert invoice["data"]["total_amount"] == 42.0
        assert server.request("GET", "/api/v1/credits/balance", key)[1]["balance"] == 2
        assert list(files_dir.glob("*/.partial-*")) == []
        assert len([p for p in files_dir.rglob("*") if p.is_file()]) == 1
    finally:
        server.stop()
