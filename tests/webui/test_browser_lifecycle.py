"""An invoice's life in a real browser (issue 28), with tests/webui/test_browser.py's Chromium,
fixtures and skip: an admin reprocesses an e-invoice forcing tier 0, approves it, downloads its
accounting CSV and its CII e-invoice (checked against the official XSD and read back by our
tier 0 as the same invoice number), then deletes it, after which no file of it is left in the data
dir. Downloads are fetched with the browser's own session cookie (headless Chromium saves
attachments to disk, out of the test's sight). Chromium's console shows no CSP refusal."""

from __future__ import annotations

import csv
import io
import json
import time
import urllib.request
from datetime import UTC, datetime

from bench.server import cli
from pipeline.einvoice.reader import read_einvoice
from tests.appliance.test_export_einvoice import hybrid_invoice
from tests.support.export import TENANT_VAT
from tests.webui.test_browser import (  # noqa: F401 (fixtures)
    appliance,
    browser,
    click_and_wait_for_next_page,
    log_in,
    pytestmark,
    tenant_with_reviewer,
)
from tests.webui.test_browser_settings import admin_of, csp_refusals


def fetch(browser, url: str) -> tuple[int, bytes]:
    """GET ``url`` with the browser's cookies: (status, body)."""
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())
    request = urllib.request.Request(url, headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read()


def shown(config, invoice_id: str) -> dict:
    """The operator's view of an invoice (``appliance invoice show``)."""
    out = cli(config, "invoice", "show", invoice_id)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout[out.stdout.index("{") :])


def test_reprocess_approve_export_and_delete_in_the_browser(browser, appliance):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    server, config = appliance
    tenant_id, key, _, _ = tenant_with_reviewer(config, "acme")
    assert cli(config, "tenant", "update", tenant_id, "--tax-id", TENANT_VAT).returncode == 0
    invoice_id = server.upload_ready(key, hybrid_invoice(), "hybrid.pdf", "application/pdf")
    files = config.parent / "data" / "files"
    assert [p for p in files.rglob("*") if p.is_file()], "the upload is stored"
    email, password = admin_of(config, tenant_id, "acme")
    log_in(browser, server, email, password)
    page = f"{server.url}/review/invoices/{invoice_id}"

    browser.get(page)
    Select(browser.find_element(By.ID, "tier")).select_by_value("0")
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "reprocess"))
    deadline = time.monotonic() + 60
    while (state := shown(config, invoice_id))["processingStatus"] in ("queued", "processing"):
        assert time.monotonic() < deadline, state
        time.sleep(0.5)
    assert state["processingStatus"] == "completed" and state["extractionTier"] == 0, state

    browser.get(page)
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "approve"))
    assert shown(config, invoice_id)["status"] == "approved"

    today = datetime.now(UTC).date().isoformat()
    browser.get(f"{server.url}/review/export?from={today}&to={today}")
    assert "1 approved invoice(s)" in browser.find_element(By.ID, "count").text
    status, body = fetch(browser, f"{server.url}/review/export/invoices.csv?from={today}&to={today}")
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert status == 200 and [r["invoice_number"] for r in rows] == ["INV-2024-001"], rows

    browser.get(page)
    cii = browser.find_element(By.LINK_TEXT, "CII XML").get_attribute("href")
    status, xml = fetch(browser, cii)
    from facturx import xml_check_xsd

    assert status == 200 and xml_check_xsd(xml, flavor="factur-x", level="en16931")
    read = read_einvoice(xml)
    assert read is not None and read.fields["invoice_number"] == "INV-2024-001"

    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "delete"))
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "confirm-delete"))
    assert cli(config, "invoice", "show", invoice_id).returncode == 66  # gone
    assert not [p for p in files.rglob("*") if p.is_file()], "no file of the invoice is left"
    assert csp_refusals(browser) == []
