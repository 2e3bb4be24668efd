"""The README's pictures of the web application (docs/web-*.png), taken again with one command:
``scripts/screenshots [DIR]`` (default ``docs``), which runs ``python -m tests.support.screenshots``.

A real ``appliance serve`` in a scratch folder, with the tests' fake models (tests/conftest.py's
FAKE_MODELS: the text of our own generated PDFs, tests/support/docs.py, no third-party document),
a demo workspace made with the operator CLI (an admin, a few invoices of three vendors, one
approved, a credit grant) and Debian's headless Chromium (``tests.support.browser``) going through
the pages as an admin does: log in, the queue, an invoice, the vendors, a vendor's template tried
on an invoice, the API keys right after a rotation (the new key of this throw-away workspace shown
once), billing, export, and the delete confirmation. Each page is saved ``WIDTH`` CSS pixels wide,
as tall as its content (``MIN_HEIGHT`` to ``MAX_HEIGHT``), as a 256-colour optimised PNG (Pillow).
tests/webui/test_screenshots.py takes them into a scratch folder, so the script keeps working.
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.server import ServerProcess, cli, merged, write_config
from tests.support import browser as chromium_support
from tests.support.browser import click_and_wait_for_next_page
from tests.support.docs import INVOICE_LINES, text_pdf

WIDTH, HEIGHT, MIN_HEIGHT, MAX_HEIGHT = 1280, 800, 400, 2000
ADMIN = "ana@demo.example"
# (file name, what the README says it shows), in the order they are taken
PAGES = (
    ("web-login.png", "log-in"),
    ("web-queue.png", "the queue, Needs Attention first"),
    ("web-invoice.png", "one invoice, the total's evidence box drawn on its page"),
    ("web-vendors.png", "the vendors, and the form for a new one"),
    ("web-vendor-template.png", "a vendor's template, tried on one of its invoices"),
    ("web-api-keys.png", "the API keys right after a rotation, the new key shown once"),
    ("web-billing.png", "billing: balance, packages, purchases, ledger, settings"),
    ("web-export.png", "the export of approved invoices"),
    ("web-delete.png", "the confirmation before an invoice is deleted"),
)
GLOBEX = [
    "Globex Corporation",
    "Industriestrasse 7, 70565 Stuttgart",
    "USt-IdNr.: DE123456789",
    "Invoice No: G-2024-0917",
    "Invoice Date: 2024-03-11",
    "Description Qty Price Amount",
    "Consulting 4 120.00 480.00",
    "Travel 1 60.00 60.00",
    "Subtotal 540.00",
    "VAT 19% 102.60",
    "Total EUR 642.60",
]
INITECH = [  # its total is not subtotal + VAT: it needs review
    "Initech Ltd",
    "1 Office Park, Leeds LS1 4AP",
    "Invoice No: IN-5531",
    "Invoice Date: 2024-03-12",
    "Description Qty Price Amount",
    "Printer toner 3 25.00 75.00",
    "Subtotal 75.00",
    "VAT 20% 15.00",
    "Total GBP 95.00",
]
# What the vendor page's editor gets typed: the ACME invoices' template, line items included.
ACME_TEMPLATE = r"""issuer: ACME Tools GmbH
keywords:
  - ACME Tools
fields:
  invoice_number: Invoice No:\s+(\S+)
  amount: Total EUR\s+(\d+\.\d\d)
  amount_untaxed: Subtotal\s+(\d+\.\d\d)
  date: Invoice Date:\s+(\d{4}-\d{2}-\d{2})
lines:
  start: Description
  end: Subtotal
  line: (?P<name>\w+)\s+(?P<qty>\d+)\s+(?P<price_unit>\d+\.\d\d)\s+(?P<price_subtotal>\d+\.\d\d)
options:
  currency: EUR
  date_formats:
    - "%Y-%m-%d"
"""


@dataclass(frozen=True)
class Demo:
    """The demo workspace: its admin's password and the ids of its invoices by name."""

    password: str
    invoices: dict[str, str]


def acme(number: str, lines: list[str]) -> bytes:
    """An invoice of ACME Tools GmbH (tests.support.docs.INVOICE_LINES' vendor)."""
    head = [line.replace("INV-2024-001", number) for line in INVOICE_LINES[:5]]
    return text_pdf(head + lines)


def _cli_json(config: Path, *args: str) -> dict:
    done = cli(config, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def seed(server: ServerProcess, config: Path) -> Demo:
    """The demo workspace, made with the operator CLI and uploaded through the API."""
    tenant = _cli_json(config, "tenant", "create", "--name", "Demo GmbH", "--credits", "20", "--json")
    admin = _cli_json(config, "user", "add", tenant["tenantId"], "--email", ADMIN, "--role", "admin", "--json")
    key = tenant["apiKey"]
    documents = {
        "acme-1": text_pdf(INVOICE_LINES),
        "acme-2": acme("INV-2024-014", ["Chisel 3 12.00 36.00", "Subtotal 36.00", "VAT 19% 6.84", "Total EUR 42.84"]),
        "globex": text_pdf(GLOBEX),
        "initech": text_pdf(INITECH),
    }
    invoices = {
        name: server.upload_ready(key, data, f"{name}.pdf", "application/pdf") for name, data in documents.items()
    }
    approved = cli(config, "invoice", "approve", invoices["acme-1"], "--by", ADMIN)
    assert approved.returncode == 0, approved.stderr
    granted = cli(config, "credits", "grant", tenant["tenantId"], "100")
    assert granted.returncode == 0, granted.stderr
    return Demo(admin["password"], invoices)


def save(browser, path: Path) -> Path:
    """The page as tall as its content (MIN_HEIGHT to MAX_HEIGHT), WIDTH wide, as an optimised PNG."""
    from PIL import Image

    height, chrome = browser.execute_script(  # headless Chromium's window is taller than its page
        "return [document.body.scrollHeight + 24, window.outerHeight - window.innerHeight]"
    )
    browser.set_window_size(WIDTH, max(MIN_HEIGHT, min(int(height), MAX_HEIGHT)) + int(chrome))
    image = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    image = image.crop((0, 0, min(image.width, WIDTH), image.height))
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)
    browser.set_window_size(WIDTH, HEIGHT)
    return path


def walk(browser, server: ServerProcess, demo: Demo, out: Path) -> list[Path]:
    """Go through the pages as the demo's admin and save each (``PAGES``' names) into ``out``."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    review = server.url + "/review"
    shots = iter(name for name, _ in PAGES)
    taken: list[Path] = []

    def shot() -> None:
        taken.append(save(browser, out / next(shots)))

    browser.get(review + "/login")
    browser.find_element(By.ID, "email").send_keys(ADMIN)
    shot()
    browser.find_element(By.ID, "password").send_keys(demo.password)
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "login"))
    shot()  # the queue
    browser.get(f"{review}/invoices/{demo.invoices['initech']}")
    browser.find_element(By.ID, "f.total_amount").click()  # its evidence box, drawn by static/invoice.js
    shot()
    browser.get(review + "/vendors")
    shot()
    click_and_wait_for_next_page(browser, browser.find_element(By.LINK_TEXT, "ACME Tools GmbH"))
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "open-template"))
    editor = browser.find_element(By.ID, "template")
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(Keys.DELETE)
    editor.send_keys(ACME_TEMPLATE)
    Select(browser.find_element(By.ID, "trial-invoice")).select_by_value(demo.invoices["acme-2"])
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "try-template"))
    browser.find_element(By.ID, "preview-fields")
    shot()
    browser.get(review + "/keys")
    click_and_wait_for_next_page(browser, browser.find_element(By.ID, "rotate"))
    browser.find_element(By.ID, "new-key")
    shot()
    browser.get(review + "/billing")
    shot()
    browser.get(review + "/export")
    shot()
    browser.get(f"{review}/invoices/{demo.invoices['acme-2']}/delete")
    browser.find_element(By.ID, "confirm-delete")
    shot()
    return taken


def take(out: Path) -> list[Path]:
    """Take every picture of ``PAGES`` into ``out`` (made if missing); returns their paths."""
    from tests.conftest import FAKE_MODELS

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="screenshots-") as scratch:
        sections = merged(
            FAKE_MODELS, {"pool": {"backend": "inline", "workers": 1}, "stripe": {"secret_key": "sk_test_demo"}}
        )
        config = write_config(Path(scratch), sections)
        server = ServerProcess(config).start()
        try:
            demo = seed(server, config)
            with chromium_support.chromium(WIDTH, HEIGHT) as browser:
                return walk(browser, server, demo, out)
        finally:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    """``scripts/screenshots [DIR]``: take the pictures into DIR (default docs) and list them."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path("docs"), help="folder of the pictures (docs)")
    args = parser.parse_args(argv)
    for path in take(args.out):
        print(f"{path} {path.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
