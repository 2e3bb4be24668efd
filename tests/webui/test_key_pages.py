"""The API key settings pages (issue 28; spec section 5): an admin sees the workspace's keys as
masked prefixes, rotates (the old key fails its next API request, the new one works, both checked
against the API here), revokes (401 with the spec's body) and creates; the secret is on the answer
to Create or Rotate once and on no page after; every change is in the audit list with its admin.
Refused: a reviewer (403 page), a form without its CSRF token (403), another tenant's key (404),
a second Rotate of the same key (400), Create while a key is active (400)."""

from __future__ import annotations

import re

from appliance.tenants import OPERATOR, list_keys
from tests.api.test_auth import UNAUTHORIZED
from tests.webui.test_app import PREFIX, logged_in
from tests.webui.test_vendor_pages import token_of

ADMIN = "admin@example.com"


def secret_of(html: str) -> str:
    return re.search(r'<code id="new-key">([^<]+)</code>', html).group(1)


def key_of(headers: dict[str, str]) -> str:
    return headers["Authorization"][len("Bearer ") :]


async def api_balance(harness, key: str):
    """GET /api/v1/credits/balance with ``key``: (status, body)."""
    response = await harness.client.get("/api/v1/credits/balance", headers={"Authorization": f"Bearer {key}"})
    return response.status, await response.json()


async def test_an_admin_rotates_and_the_new_key_works_at_once(harness):
    tenant_id, headers = await harness.tenant()
    old = key_of(headers)
    assert (await api_balance(harness, old))[0] == 200  # its last use is on the page below
    (row,) = await list_keys(harness.db, tenant_id)
    client, _ = await logged_in(harness, tenant_id, ADMIN, role="admin")
    try:
        page = await (await client.get(PREFIX + "/keys")).text()
        assert row["masked"] in page and old not in page and old[10:] not in page
        assert 'id="create"' not in page and "not since it was made" not in page  # active, and used
        assert f"created <code>{row['masked']}</code>" in page and OPERATOR in page
        assert f'href="{PREFIX}/keys"' in page  # the admin's navigation has it
        rotated = await client.post(
            f"{PREFIX}/keys/{row['id']}/rotate", data={"csrf": token_of(page)}, allow_redirects=False
        )
        assert rotated.status == 200 and rotated.headers["Cache-Control"] == "no-store"
        new = secret_of(await rotated.text())
        assert await api_balance(harness, old) == (401, UNAUTHORIZED)  # the old key stops at once
        assert await api_balance(harness, new) == (200, {"balance": 10, "creditCostPerInvoice": 1})
        later = await (await client.get(PREFIX + "/keys")).text()
        assert new not in later and new[10:] not in later and new[:10] + "…" in later  # shown once only
        audit = later.split('id="audit"', 1)[1]
        assert f"rotated <code>{row['masked']}</code> → <code>{new[:10]}…</code>" in audit and ADMIN in audit
    finally:
        await client.close()


async def test_revoke_then_create(harness):
    tenant_id, headers = await harness.tenant()
    (row,) = await list_keys(harness.db, tenant_id)
    client, _ = await logged_in(harness, tenant_id, ADMIN, role="admin")
    try:
        page = await (await client.get(PREFIX + "/keys")).text()
        revoked = await client.post(
            f"{PREFIX}/keys/{row['id']}/revoke", data={"csrf": token_of(page)}, allow_redirects=False
        )
        assert revoked.status == 302 and revoked.headers["Location"] == PREFIX + "/keys"
        assert await api_balance(harness, key_of(headers)) == (401, UNAUTHORIZED)
        page = await (await client.get(PREFIX + "/keys")).text()
        assert 'id="create"' in page and "refuses every request" in page
        again = await client.post(
            f"{PREFIX}/keys/{row['id']}/revoke", data={"csrf": token_of(page)}, allow_redirects=False
        )
        assert again.status == 400 and "revoked already" in await again.text()
        created = await client.post(PREFIX + "/keys", data={"csrf": token_of(page)}, allow_redirects=False)
        assert created.status == 200
        fresh = secret_of(await created.text())
        assert (await api_balance(harness, fresh))[0] == 200
        twice = await client.post(PREFIX + "/keys", data={"csrf": token_of(page)}, allow_redirects=False)
        assert twice.status == 400 and "rotate it" in await twice.text()
        assert fresh not in await twice.text()
    finally:
        await client.close()
    actions = [(r["action"], r["by"]) for r in await harness.db.fetchall("SELECT * FROM api_key_events ORDER BY id")]
    assert actions == [("created", OPERATOR), ("revoked", ADMIN), ("created", ADMIN)]


async def test_a_stale_rotate_and_unknown_or_another_tenants_key(harness):
    tenant_a, headers_a = await harness.tenant(name="a")
    tenant_b, headers_b = await harness.tenant(name="b")
    (mine,) = await list_keys(harness.db, tenant_a)
    (theirs,) = await list_keys(harness.db, tenant_b)
    client, _ = await logged_in(harness, tenant_a, ADMIN, role="admin")
    try:
        token = token_of(await (await client.get(PREFIX + "/keys")).text())
        assert (await client.post(f"{PREFIX}/keys/{mine['id']}/rotate", data={"csrf": token})).status == 200
        stale = await client.post(f"{PREFIX}/keys/{mine['id']}/rotate", data={"csrf": token})  # a second press
        assert stale.status == 400 and "revoked already" in await stale.text()
        assert 'id="new-key"' not in await stale.text()
        for key_id in (theirs["id"], "00000000-0000-0000-0000-000000000000", "nope"):
            for action in ("rotate", "revoke"):
                response = await client.post(f"{PREFIX}/keys/{key_id}/{action}", data={"csrf": token})
                assert response.status == 404, (key_id, action)
                assert theirs["masked"] not in await response.text()
        listing = await (await client.get(PREFIX + "/keys")).text()
        assert theirs["masked"] not in listing
    finally:
        await client.close()
    assert (await api_balance(harness, key_of(headers_b)))[0] == 200  # b's key untouched
    assert (await api_balance(harness, key_of(headers_a)))[0] == 401  # a's was rotated


async def test_without_the_csrf_token_nothing_changes(harness):
    tenant_id, headers = await harness.tenant()
    (row,) = await list_keys(harness.db, tenant_id)
    client, _ = await logged_in(harness, tenant_id, ADMIN, role="admin")
    try:
        for path in (f"/keys/{row['id']}/rotate", f"/keys/{row['id']}/revoke", "/keys"):
            for form in ({}, {"csrf": "forged"}):
                response = await client.post(PREFIX + path, data=form, allow_redirects=False)
                assert response.status == 403 and "security token" in await response.text(), path
    finally:
        await client.close()
    assert (await api_balance(harness, key_of(headers)))[0] == 200
    assert len(await harness.db.fetchall("SELECT 1 FROM api_key_events")) == 1


async def test_a_reviewer_gets_a_403_page_and_no_link(harness):
    tenant_id, headers = await harness.tenant()
    (row,) = await list_keys(harness.db, tenant_id)
    client, _ = await logged_in(harness, tenant_id)  # a reviewer
    try:
        queue = await (await client.get(PREFIX + "/")).text()
        assert f'href="{PREFIX}/keys"' not in queue and f'href="{PREFIX}/billing"' not in queue
        page = await client.get(PREFIX + "/keys")
        text = await page.text()
        assert page.status == 403 and page.content_type == "text/html" and "administrators" in text
        assert row["masked"] not in text
        token = token_of(queue)
        for path in (f"/keys/{row['id']}/rotate", f"/keys/{row['id']}/revoke", "/keys"):
            response = await client.post(PREFIX + path, data={"csrf": token}, allow_redirects=False)
            assert response.status == 403, path
    finally:
        await client.close()
    assert (await api_balance(harness, key_of(headers)))[0] == 200
