"""The review pages in a real browser (issue 13): Debian's Chromium, headless, driven by selenium
through Debian's chromedriver (nothing downloads a browser; .ci/run installs both packages). A
real ``appliance serve`` with fake models: log in, open the queue, open the invoice, zoom the
page, correct the total and one line item, approve with Alt+A (which opens the next invoice that
needs attention: none, so the queue); then the API's ``GET /api/v1/invoices/{id}`` has the
corrected ``data``. A second test: a reviewer of tenant A gets 404 for tenant B's invoice, and a form
posted without its CSRF token is refused. The browser and the waits are
``tests.support.browser``'s; ``tests.support.screenshots`` takes docs/'s pictures of the pages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.server import ServerProcess, cli
from tests.conftest import FAKE_MODELS, merged, write_config
from tests.support import browser as browser_support
from tests.support.browser import OLD_PAGE_MARK, click_and_wait_for_next_page, wait_for_next_page
from tests.support.docs import INVOICE_LINES, text_pdf

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not browser_support.installed(),
        reason="Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver; "
        ".ci/run does)",
    ),
]


@pytest.fixture
def browser():
    with browser_support.chromium() as driver:
        yield driver


@pytest.fixture
def appliance(tmp_path):
    config = write_config(tmp_path, merged(FAKE_MODELS, {"pool": {"backend": "inline", "workers": 1}}))
    server = ServerProcess(config).start()
    yield server, config
    server.stop()


def tenant_with_reviewer(config: Path, name: str) -> tuple[str, str, str, str]:
    """(tenant id, API key, reviewer e-mail, password), made with the operator CLI."""
    created = cli(config, "tenant", "create", "--name", name, "--credits", "5", "--json")
    made = json.loads(created.stdout.splitlines()[-1])
    email = f"clerk@{name}.example"
    user = cli(config, "user", "add", made["tenantId"], "--email", email, "--json")
    assert user.returncode == 0, user.stderr
    return made["tenantId"], made["apiKey"], email, json.loads(user.stdout.splitlines()[-1])["password"]


def ready_invoice(server: ServerProcess, key: str) -> str:
    return server.upload_ready(key, text_pdf(INVOICE_LINES), "acme.pdf", "application/pdf")


def log_in(browser, server: ServerProcess, email: str, password: str) -> None:
    browser_support.log_in(browser, server.url, email, password)


def test_review_correct_and_approve_in_the_browser(browser, appliance):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    server, config = appliance
    _, key, email, password = tenant_with_reviewer(config, "acme")
    invoice_id = ready_invoice(server, key)
    log_in(browser, server, email, password)
    click_and_wait_for_next_page(
        browser, browser.find_element(By.CSS_SELECTOR, f'a[href="/review/invoices/{invoice_id}"]')
    )
    assert browser.current_url.endswith(invoice_id)
    wait = WebDriverWait(browser, 10)
    total = browser.find_element(By.ID, "f.total_amount")
    total.click()  # its evidence box is drawn on the page
    box = wait.until(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, ".page .box")))
    assert box.size["width"] > 0
    page = browser.find_element(By.CSS_SELECTOR, ".page")
    width = page.size["width"]
    browser.find_element(By.ID, "zoom-in").click()  # zoom on the page image (static/invoice.js)
    wait.until(lambda b: page.size["width"] > width * 1.2)
    assert browser.find_element(By.ID, "zoom-level").text == "125%"
    browser.find_element(By.ID, "zoom-fit").click()
    wait.until(lambda b: abs(page.size["width"] - width) < 2)
    total.clear()
    total.send_keys("120.00")
    line = browser.find_element(By.ID, "l.1.description")
    line.clear()
    line.send_keys("Claw hammer")
    browser.execute_script(OLD_PAGE_MARK)
    ActionChains(browser).key_down(Keys.ALT).send_keys("a").key_up(Keys.ALT).perform()  # Alt+A: save and approve
    wait_for_next_page(browser)
    # nothing else needs attention: the queue's Needs Attention view
    assert browser.current_url.endswith("/review/?status=attention"), browser.current_url
    browser.get(f"{server.url}/review/invoices/{invoice_id}")
    trail = browser.find_element(By.ID, "trail").text
    assert "Total" in trail and "approved" in trail
    status, invoice = server.request("GET", f"/api/v1/invoices/{invoice_id}", key)
    assert status == 200 and invoice["status"] == "approved"
    assert invoice["data"]["total_amount"] == 120.0
    assert invoice["data"]["line_items"][0]["description"] == "Claw hammer"
    assert invoice["evidence"]["total_amount"]["source"] == "human"


def test_another_tenants_invoice_and_a_form_without_its_token(browser, appliance):
    from selenium.webdriver.common.by import By

    server, config = appliance
    _, _, email_a, password_a = tenant_with_reviewer(config, "a")
    _, key_b, _, _ = tenant_with_reviewer(config, "b")
    theirs = ready_invoice(server, key_b)
    log_in(browser, server, email_a, password_a)
    browser.get(f"{server.url}/review/invoices/{theirs}")
    assert '"statusCode": 404' in browser.page_source or "Invoice not found" in browser.page_source
    # a page of another site posting to ours carries no token (and SameSite=Strict keeps the cookie home)
    browser.get(server.url + "/review/")
    browser.execute_script(
        OLD_PAGE_MARK + "const f = document.createElement('form'); f.method = 'post'; f.action = '/review/logout';"
        "document.body.appendChild(f); f.submit();"
    )
    wait_for_next_page(browser)
    assert "security token is missing" in browser.find_element(By.TAG_NAME, "body").text
    status, invoice = server.request("GET", f"/api/v1/invoices/{theirs}", key_b)
    assert invoice["status"] != "approved"
