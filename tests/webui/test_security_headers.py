"""The security headers of the review app (issue 28, ``webui.security``) on pages, redirects,
error pages and files, and no inline script anywhere: the invoice page's script is a static file
the CSP allows. tests/webui/test_isolation.py checks the headers on every route of the router."""

from __future__ import annotations

import re

from tests.webui.test_app import PREFIX, logged_in, ready_invoice
from webui.security import CSP, STATIC

NOTHING = "00000000-0000-0000-0000-000000000000"


def check_headers(response, where: str) -> None:
    headers = response.headers
    csp = headers.get("Content-Security-Policy", "")
    assert csp == CSP, where
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["frame-ancestors"] == "'none'" and directives["script-src"] == "'self'", where
    assert headers.get("X-Content-Type-Options") == "nosniff", where
    assert headers.get("Referrer-Policy") == "no-referrer" and headers.get("X-Frame-Options") == "DENY", where
    assert headers.get("Cache-Control") == "no-store", where


def check_no_inline_script(html: str, where: str) -> None:
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html, re.I), f"{where}: inline <script>"
    assert not re.search(r"\son[a-z]+\s*=", html, re.I), f"{where}: an on...= handler attribute"
    assert "javascript:" not in html.lower(), where


async def test_errors_redirects_and_files_carry_the_headers_too(harness):
    for path, status in (("/login", 200), ("/", 302), ("/no-such-page", 404), (f"/invoices/{NOTHING}", 302)):
        response = await harness.client.get(PREFIX + path, allow_redirects=False)
        assert response.status == status, path
        check_headers(response, path)
    forged = await harness.client.post(PREFIX + "/login", data={})
    assert forged.status == 403
    check_headers(forged, "POST /login without a token")
    script = await harness.client.get(PREFIX + "/static/invoice.js")
    assert script.status == 200 and script.content_type in ("application/javascript", "text/javascript")
    assert script.headers["Cache-Control"] == "no-cache" and script.headers["X-Content-Type-Options"] == "nosniff"
    assert "addEventListener" in await script.text()
    assert (await harness.client.get(PREFIX + "/static/")).status in (403, 404)  # no index
    assert (await harness.client.get(PREFIX + "/static/../app.py")).status in (403, 404)


async def test_the_invoice_page_loads_its_script_from_a_file(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await ready_invoice(harness, headers)
    client, _ = await logged_in(harness, tenant_id)
    try:
        page = await (await client.get(f"{PREFIX}/invoices/{invoice_id}")).text()
        assert f'<script src="{PREFIX}/static/invoice.js" defer></script>' in page
        image = await client.get(f"{PREFIX}/invoices/{invoice_id}/pages/1")
        assert image.status == 200 and image.headers["Cache-Control"] == "no-store"  # invoice data
    finally:
        await client.close()


def test_no_template_has_inline_script():
    templates = STATIC.parent / "templates"
    for template in templates.glob("*.html"):
        check_no_inline_script(template.read_text(), template.name)
