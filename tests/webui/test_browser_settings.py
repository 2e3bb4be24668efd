"""The API key and billing pages in a real browser (issue 28), with tests/webui/test_browser.py's
Chromium, fixtures and skip: an admin rotates the key (the page shows it once; the API takes the
new one at once and refuses the old), then revokes it; buys credits through the fake Stripe run as
its own process (tests/fakes/stripe_api.py, which sends its signed webhook), comes back to the
success address set on the billing page, and the balance rises once. Chromium's console shows no
Content-Security-Policy refusal on any page visited, the invoice page with its script included."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bench.server import ServerProcess, cli, free_port
from tests.api.test_auth import UNAUTHORIZED
from tests.conftest import FAKE_MODELS, merged, write_config
from tests.webui.test_browser import (  # noqa: F401 (fixtures)
    appliance,
    browser,
    click_and_wait_for_next_page,
    log_in,
    pytestmark,
    ready_invoice,
    tenant_with_reviewer,
)

WEBHOOK_SECRET = "whsec_browser_0123456789abcdef"
ROOT = Path(__file__).resolve().parents[2]


def admin_of(config: Path, tenant_id: str, name: str) -> tuple[str, str]:
    """(e-mail, password) of a new admin of ``tenant_id``, made with the operator CLI."""
    email = f"admin@{name}.example"
    made = cli(config, "user", "add", tenant_id, "--email", email, "--role", "admin", "--json")
    assert made.returncode == 0, made.stderr
    return email, json.loads(made.stdout.splitlines()[-1])["password"]


def admin_logged_in(browser, server: ServerProcess, config: Path, name: str = "acme") -> tuple[str, str]:
    """(tenant id, API key) of a new tenant ``name`` (with 5 credits) whose new admin
    (``admin_of``) ``browser`` is logged in as."""
    tenant_id, key, _, _ = tenant_with_reviewer(config, name)
    email, password = admin_of(config, tenant_id, name)
    log_in(browser, server, email, password)
    return tenant_id, key


def csp_refusals(browser) -> list[str]:
    """The console's Content-Security-Policy messages since the last call (none is right)."""
    return [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]


def balance(server: ServerProcess, key: str) -> tuple[int, dict]:
    return server.request("GET", "/api/v1/credits/balance", key)


def test_an_admin_rotates_then_revokes_the_key_in_the_browser(browser, appliance):  # noqa: F811
    from selenium.webdriver.common.by import By

    server, config = appliance
    _, old = admin_logged_in(browser, server, config)
    invoice_id = ready_invoice(server, old)
    browser.get(f"{server.url}/review/invoices/{invoice_id}")
    browser.find_element(By.ID, "f.total_amount").click()  # the page's script (a static file) draws the box
    click_and_wait_for_next_page(browser, browser.find_element(By.LINK_TEXT, "API keys"))
    assert old[:10] + "…" in browser.page_source and old not in browser.page_source
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "rotate"))
    new = browser.find_element(By.ID, "new-key").text
    assert new.startswith("inv_") and new != old
    assert balance(server, old) == (401, UNAUTHORIZED)  # the old key stopped at once
    assert balance(server, new)[0] == 200
    browser.get(server.url + "/review/keys")
    assert new not in browser.page_source and new[:10] + "…" in browser.page_source  # shown once
    audit = browser.find_element(By.ID, "audit").text
    assert "rotated" in audit and "admin@acme.example" in browser.page_source  # admin_of's e-mail
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "revoke"))
    assert balance(server, new) == (401, UNAUTHORIZED)
    assert browser.find_element(By.ID, "create").is_displayed()
    assert csp_refusals(browser) == []


@pytest.fixture
def stripe_appliance(tmp_path):
    """A real ``appliance serve`` paying through the fake Stripe, a process of its own that sends
    its signed webhook to the appliance when a session is paid."""
    fake_port = free_port()
    stripe = {
        "secret_key": "sk_test_browser",
        "webhook_secret": WEBHOOK_SECRET,
        "api_base": f"http://127.0.0.1:{fake_port}",
        "max_network_retries": 0,
    }
    sections = {"pool": {"backend": "inline", "workers": 1}, "stripe": stripe}
    config = write_config(tmp_path, merged(FAKE_MODELS, sections))
    server = ServerProcess(config)
    fake = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.stripe_api", "--port", str(fake_port)]
        + ["--webhook-url", f"{server.url}/webhooks/stripe", "--webhook-secret", WEBHOOK_SECRET],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", fake_port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and fake.poll() is None, "the fake Stripe did not start"
                time.sleep(0.1)
        server.start()
        yield server, config, stripe["api_base"]
    finally:
        server.stop()
        fake.terminate()
        fake.wait(10)


def test_buy_credits_in_the_browser_and_come_back(browser, stripe_appliance):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    server, config, stripe_base = stripe_appliance
    tenant_id, key = admin_logged_in(browser, server, config)  # 5 credits
    click_and_wait_for_next_page(browser, browser.find_element(By.LINK_TEXT, "Billing"))
    success = server.url + "/review/billing/return?session_id={CHECKOUT_SESSION_ID}"
    browser.find_element(By.ID, "successUrl").send_keys(success)
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "save-settings"))
    assert browser.find_element(By.ID, "successUrl").get_attribute("value") == success
    browser.find_element(By.ID, "buy-starter").click()  # the answer's Refresh goes on to Stripe's page
    WebDriverWait(browser, 20).until(lambda b: "/pay/cs_test_" in b.current_url, message="no payment page")
    session_id = browser.current_url.rsplit("/", 1)[1]
    request = urllib.request.Request(
        f"{stripe_base}/v1/checkout/sessions/{session_id}", headers={"Authorization": "Bearer sk_test_browser"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.loads(answer.read())["success_url"] == success  # the tenant's own address
    browser.get(success.replace("{CHECKOUT_SESSION_ID}", session_id))  # where Stripe would send the customer
    notice = browser.find_element(By.ID, "notice").text
    assert "the balance is 105" in notice  # added here, or by the webhook just before
    browser.refresh()
    assert "were added already; the balance is 105" in browser.find_element(By.ID, "notice").text
    assert balance(server, key) == (200, {"balance": 105, "creditCostPerInvoice": 1})
    assert csp_refusals(browser) == []
