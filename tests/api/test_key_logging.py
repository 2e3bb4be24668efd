"""No log line carries key material: requests on every route of the OpenAPI document, with the
good key and with near-miss bad keys, are logged (at DEBUG, the most verbose) without the key,
its SHA-256 (what the database stores) or a wrong key a client sent. Both in-process (every
logger, caplog) and in the real server process with its production access log."""

from __future__ import annotations

import json
import logging

import pytest

from appliance.tenants import hash_key
from bench.server import ServerProcess, cli, multipart
from tests.api.test_auth import openapi_operations
from tests.conftest import FAKE_MODELS, merged, write_config
from tests.support.docs import INVOICE_LINES, text_pdf

BODIES = {
    "/api/v1/credits/checkout": {"packageId": "00000000-0000-0000-0000-000000000000"},
    "/api/v1/credits/checkout/confirm": {"sessionId": "cs_test_x"},
}


def secrets_of(key: str) -> list[str]:
    """What must never be logged: the key, the bad keys built from it, their hashes, and the
    part after the short visible prefix (a prefix alone is what operators may see)."""
    return [key, key + "x", key[:-1], hash_key(key), hash_key(key + "x"), key[12:]]


@pytest.fixture
def production_loggers():
    """The logger levels ``appliance serve`` sets up (appliance.logs), restored afterwards."""
    from appliance.logs import QUIET_LOGGERS, quiet_noisy_loggers

    saved = {name: logging.getLogger(name).level for name in QUIET_LOGGERS}
    quiet_noisy_loggers()
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


async def test_in_process_logs_carry_no_key(harness, caplog, production_loggers):
    caplog.set_level(logging.DEBUG)
    _, headers = await harness.tenant(credits=5)
    key = headers["Authorization"][len("Bearer ") :]
    for method, path in await openapi_operations(harness):
        for auth in (headers, {"Authorization": f"Bearer {key}x"}, {"Authorization": key[:-1]}):
            await harness.client.request(method, path, headers=auth, json=BODIES.get(path))
    accepted = await harness.upload(headers, text_pdf(INVOICE_LINES))
    await harness.wait_ready(headers, (await accepted.json())["invoice"]["id"])
    assert caplog.records, "nothing was logged: the test would prove nothing"
    text = caplog.text + "".join(repr(r.args) for r in caplog.records)
    for secret in secrets_of(key):
        assert secret not in text


@pytest.mark.slow
def test_server_process_log_carries_no_key(tmp_path):
    config = write_config(tmp_path, merged(FAKE_MODELS, {"log": {"level": "DEBUG", "access": "all"}}))
    made = cli(config, "tenant", "create", "--name", "logs", "--credits", "3", "--json")
    key = json.loads(made.stdout.strip().splitlines()[-1])["apiKey"]
    server = ServerProcess(config).start()
    try:
        document = json.loads(
            __import__("urllib.request").request.urlopen(server.url + "/api/docs/openapi.json").read()
        )
        for path, methods in document["paths"].items():
            concrete = path.replace("{invoiceId}", "00000000-0000-0000-0000-000000000000").replace(
                "{id}", "00000000-0000-0000-0000-000000000000"
            )
            for method in methods:
                for attempt in (key, key + "x"):
                    body = json.dumps(BODIES.get(concrete, {})).encode() if method == "post" else None
                    server.request(method.upper(), concrete, attempt, body, "application/json" if body else None)
        body, ctype = multipart(text_pdf(INVOICE_LINES), "a.pdf", "application/pdf")
        assert server.request("POST", "/api/v1/invoices/upload", key, body, ctype)[0] == 202
    finally:
        server.stop()
    log = server.log.read_text(errors="replace")
    assert "/api/v1/credits/balance" in log, "the access log is missing: the test would prove nothing"
    for secret in secrets_of(key):
        assert secret not in log
