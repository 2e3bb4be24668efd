"""A vendor's template in a real browser (issue 28), with tests/webui/test_browser.py's Chromium,
fixtures and skip: an admin opens the vendor an extraction made, writes its template in the
editor, tries it on the vendor's invoice (the fields it reads appear; nothing is saved), fixes a
typo the check names by its line, saves it, and the next upload of the vendor is read by it
(tier 1). Chromium's console shows no Content-Security-Policy refusal."""

from __future__ import annotations

from bench.server import cli
from tests.appliance.test_vendors import ACME_TEMPLATE
from tests.support.docs import INVOICE_LINES, text_pdf
from tests.webui.test_browser import (  # noqa: F401 (fixtures)
    appliance,
    browser,
    click_and_wait_for_next_page,
    log_in,
    pytestmark,
    ready_invoice,
    tenant_with_reviewer,
)
from tests.webui.test_browser_settings import admin_logged_in, csp_refusals


def type_template(browser, text: str) -> None:
    """Replace the editor's text with ``text``, typed as a person types it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    editor = browser.find_element(By.ID, "template")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys(text)


def test_an_admin_writes_tries_and_saves_a_template_in_the_browser(browser, appliance):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    server, config = appliance
    tenant_id, key = admin_logged_in(browser, server, config)
    invoice_id = ready_invoice(server, key)
    click_and_wait_for_next_page(browser, browser.find_element(By.LINK_TEXT, "Vendors"))
    click_and_wait_for_next_page(browser, browser.find_element(By.LINK_TEXT, "ACME Tools GmbH"))
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "open-template"))
    vendor_url = browser.current_url.rsplit("/template", 1)[0]
    typo = ACME_TEMPLATE.replace(r"(\d+\.\d\d)", r"(\d+\.\d\d").lstrip("\n")
    type_template(browser, typo)
    Select(browser.find_element(By.ID, "trial-invoice")).select_by_value(invoice_id)
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "try-template"))
    error = browser.find_element(By.ID, "template-error").text
    assert "line 6, fields.amount" in error and "does not compile" in error, error
    type_template(browser, ACME_TEMPLATE.lstrip("\n"))
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "try-template"))
    fields = browser.find_element(By.ID, "preview-fields").text
    assert "Invoice number INV-2024-001" in fields and "Total 119.00" in fields, fields
    assert browser.find_element(By.ID, "unsaved").is_displayed()  # tried, not saved
    vendor = cli(config, "vendor", "show", vendor_url.rsplit("/", 1)[1])
    assert '"template": null' in vendor.stdout, vendor.stdout
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "save-template"))
    assert "Saved template: ACME Tools GmbH" in browser.find_element(By.CLASS_NAME, "state-line").text
    assert not browser.find_elements(By.ID, "unsaved")
    assert csp_refusals(browser) == []
    again = server.upload_ready(
        key,
        text_pdf([*INVOICE_LINES[:2], "Invoice No: INV-2024-002", *INVOICE_LINES[3:]]),
        "acme-2.pdf",
        "application/pdf",
    )
    shown = cli(config, "invoice", "show", again)
    assert '"extractionTier": 1' in shown.stdout and "template:ACME Tools GmbH" in shown.stdout, shown.stdout
