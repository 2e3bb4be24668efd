"""The review pages over HTTP (issue 13): log-in with lock-out, the session cookie, CSRF on
every form, a tenant's pages never showing another tenant's invoice, corrections and decisions
through the CLI's functions so that the API's ``data`` carries them. The browser itself drives
the same pages in tests/webui/test_browser.py."""

from __future__ import annotations

import re
import time

from appliance.users import LOCKOUT_FAILURES, add_user, disable_user, reset_password
from tests.support.docs import png_with_text, receipt_text
from webui.app import _field_errors
from webui.session import COOKIE

PREFIX = "/review"


async def csrf_of(client, path: str) -> str:
    html = await (await client.get(PREFIX + path)).text()
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


async def logged_in(harness, tenant_id: str, email: str = "clerk@example.com", role: str = "reviewer"):
    """A fresh client session logged in as a new user of ``tenant_id`` (a reviewer by default)."""
    import aiohttp

    _, password = await add_user(harness.db, tenant_id, email, role)
    base = str(harness.client.make_url("/")).rstrip("/")  # a browser of its own: its own cookie jar
    client = aiohttp.ClientSession(base_url=base, cookie_jar=aiohttp.CookieJar(unsafe=True))
    token = await csrf_of(client, "/login")
    response = await client.post(
        PREFIX + "/login", data={"csrf": token, "email": email, "password": password}, allow_redirects=False
    )
    assert response.status == 302 and response.headers["Location"] == PREFIX + "/"
    return client, password


async def ready_invoice(harness, headers, text="Total EUR 12.50") -> str:
    response = await harness.upload(headers, png_with_text(receipt_text(text)), content_type="image/png")
    invoice_id = (await response.json())["invoice"]["id"]
    await harness.wait_ready(headers, invoice_id)
    return invoice_id


async def test_pages_need_a_log_in(harness):
    cookie = (await harness.client.get(PREFIX + "/login")).headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/review" in cookie
    for path in ("/", "/invoices/00000000-0000-0000-0000-000000000000"):
        response = await harness.client.get(PREFIX + path, allow_redirects=False)
        assert response.status == 302 and response.headers["Location"] == PREFIX + "/login"


async def test_correct_and_approve_reach_the_api(harness):
    tenant_id, headers = await harness.tenant()
    invoice_id = await ready_invoice(harness, headers)
    client, _ = await logged_in(harness, tenant_id)
    try:
        queue = await (await client.get(PREFIX + "/")).text()
        assert invoice_id in queue
        page = await (await client.get(f"{PREFIX}/invoices/{invoice_id}")).text()
        assert 'name="f.total_amount"' in page and 'value="12.50"' in page  # money: the currency's decimals
        image = await client.get(f"{PREFIX}/invoices/{invoice_id}/pages/1")
        assert image.status == 200 and image.content_type == "image/png"
        token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        saved = await client.post(
            f"{PREFIX}/invoices/{invoice_id}",
            data={"csrf": token, "f.total_amount": "13.50", "f.invoice_number": "", "action": "approve"},
            allow_redirects=False,
        )
        assert saved.status == 302, await saved.text()
    finally:
        await client.close()
    body = await (await harness.client.get(f"/api/v1/invoices/{invoice_id}", headers=headers)).json()
    assert body["data"]["total_amount"] == 13.5 and body["status"] == "approved"
    assert body["evidence"]["total_amount"]["source"] == "human"


async def test_another_tenants_invoice_is_404_and_a_form_without_csrf_is_403(harness):
    tenant_a, _ = await harness.tenant(name="a")
    tenant_b, headers_b = await harness.tenant(name="b")
    theirs = await ready_invoice(harness, headers_b)
    client, _ = await logged_in(harness, tenant_a)
    try:
        missing = await client.get(f"{PREFIX}/invoices/{theirs}")
        assert missing.status == 404 and missing.content_type == "text/html"  # a page for people, not JSON
        assert "Invoice not found" in await missing.text()
        assert (await client.get(f"{PREFIX}/invoices/{theirs}/pages/1")).status == 404
        assert theirs not in await (await client.get(PREFIX + "/")).text()
        forged = await client.post(f"{PREFIX}/invoices/{theirs}", data={"f.total_amount": "1", "action": "approve"})
        assert forged.status == 403 and "security token is missing" in await forged.text()
        no_token = await client.post(PREFIX + "/logout", data={})
        assert no_token.status == 403
    finally:
        await client.close()
    body = await (await harness.client.get(f"/api/v1/invoices/{theirs}", headers=headers_b)).json()
    assert body["status"] != "approved" and body["data"]["total_amount"] == 12.5


async def test_lock_out_and_disable_end_access(harness):
    tenant_id, _ = await harness.tenant()
    client, password = await logged_in(harness, tenant_id)
    try:
        assert (await client.get(PREFIX + "/", allow_redirects=False)).status == 200
        await disable_user(harness.db, "clerk@example.com")  # as `appliance user disable` does
        assert (await client.get(PREFIX + "/", allow_redirects=False)).status == 302  # the session ended
    finally:
        await client.close()
    _, other = await add_user(harness.db, tenant_id, "other@example.com")
    token = await csrf_of(harness.client, "/login")
    for _ in range(LOCKOUT_FAILURES):
        wrong = await harness.client.post(
            PREFIX + "/login", data={"csrf": token, "email": "other@example.com", "password": "wrong"}
        )
        assert wrong.status == 401
    right = await harness.client.post(
        PREFIX + "/login", data={"csrf": token, "email": "other@example.com", "password": other}
    )
    assert right.status == 401  # locked: even the right password is refused
    unknown = await harness.client.post(
        PREFIX + "/login", data={"csrf": token, "email": "nobody@example.com", "password": "wrong"}
    )
    # ... with the very page an unknown e-mail gets, so a guesser cannot tell that the account exists
    page = (await right.text()).replace("other@example.com", "nobody@example.com")  # the form keeps the e-mail typed
    assert unknown.status == 401 and await unknown.text() == page
    assert "locked for 15 minutes" in await right.text()


def cookie_of(harness, client) -> str:
    """The value of the session cookie in ``client``'s jar: a copy an attacker could have taken."""
    return client.cookie_jar.filter_cookies(harness.client.make_url(PREFIX + "/"))[COOKIE].value


async def replayed(harness, cookie: str, path: str):
    """GET ``path`` with a copied session cookie, from a client with no jar of its own."""
    import aiohttp

    base = str(harness.client.make_url("/")).rstrip("/")
    async with aiohttp.ClientSession(base_url=base, cookie_jar=aiohttp.DummyCookieJar()) as thief:
        response = await thief.get(PREFIX + path, headers={"Cookie": f"{COOKIE}={cookie}"}, allow_redirects=False)
        await response.read()
        return response


async def test_log_out_ends_the_session_for_every_copy_of_its_cookie(harness):
    """Issue 28: the session lived only in the cookie, so a copy taken before log-out kept working
    for 12 h. Now log-out ends it on the server, and the copy is sent to the log-in page."""
    tenant_id, headers = await harness.tenant()
    invoice_id = await ready_invoice(harness, headers)
    client, _ = await logged_in(harness, tenant_id)
    try:
        copy = cookie_of(harness, client)
        assert (await replayed(harness, copy, "/")).status == 200  # the copy works while the session lasts
        token = await csrf_of(client, "/")
        out = await client.post(PREFIX + "/logout", data={"csrf": token}, allow_redirects=False)
        assert out.status == 302 and out.headers["Location"] == PREFIX + "/login"
    finally:
        await client.close()
    for path in ("/", f"/invoices/{invoice_id}", f"/invoices/{invoice_id}/pages/1"):
        response = await replayed(harness, copy, path)
        assert response.status == 302 and response.headers["Location"] == PREFIX + "/login", path


async def test_a_password_reset_ends_open_sessions(harness):
    tenant_id, _ = await harness.tenant()
    client, _ = await logged_in(harness, tenant_id)
    try:
        await reset_password(harness.db, "clerk@example.com")  # as `appliance user reset-password` does
        response = await client.get(PREFIX + "/", allow_redirects=False)
        assert response.status == 302 and response.headers["Location"] == PREFIX + "/login"
    finally:
        await client.close()


async def test_a_cookie_without_a_server_side_session_is_no_log_in(harness):
    """A cookie as the appliance wrote them before issue 28 (user id and epoch, no session on the
    server), correctly encrypted with the appliance's key, opens nothing."""
    import json

    from cryptography.fernet import Fernet

    tenant_id, _ = await harness.tenant()
    user, _ = await add_user(harness.db, tenant_id, "old@example.com")
    key = (harness.settings.data_dir / "session.key").read_bytes().strip()
    cookie = Fernet(key).encrypt(
        json.dumps({"created": int(time.time()), "session": {"user": user.id, "epoch": 0}}).encode()
    )
    response = await replayed(harness, cookie.decode(), "/")
    assert response.status == 302 and response.headers["Location"] == PREFIX + "/login"


def test_validation_errors_stand_beside_their_fields():
    assert _field_errors(["line items sum to 20.00, subtotal is 100.00", "something else"]) == {
        "subtotal": ["line items sum to 20.00, subtotal is 100.00"],
        "line_items": ["line items sum to 20.00, subtotal is 100.00"],
    }
