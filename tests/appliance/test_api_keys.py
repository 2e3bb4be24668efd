"""``appliance.tenants``' API keys on a real SQLite file (issue 28, the web app's API key
settings): create, rotate and revoke by key id for one tenant only, each with its audit row
written in the same transaction, the list that never shows a secret, and ``last_used_at`` kept
to the minute without a write per request."""

from __future__ import annotations

import sqlite3

import pytest

from appliance.errors import BadRequest, NotFound
from appliance.tenants import (
    OPERATOR,
    authenticate,
    create_key,
    create_tenant,
    key_events,
    list_keys,
    revoke_key,
    rotate_key,
)

ADMIN = "admin@example.com"


@pytest.fixture
def db(migrated_db):
    return migrated_db


async def test_the_operators_tenant_key_is_audited_and_listed_masked(db):
    tenant, key = await create_tenant(db, "acme")
    (listed,) = await list_keys(db, tenant.id)
    assert listed["masked"] == key[:10] + "…" and key not in str(listed)
    assert listed["createdBy"] == OPERATOR and listed["active"] and listed["lastUsedAt"] is None
    assert [(e["action"], e["key"], e["by"]) for e in await key_events(db, tenant.id)] == [
        ("created", listed["masked"], OPERATOR)
    ]


async def test_rotate_by_id_revokes_the_old_key_and_says_who(db):
    tenant, old = await create_tenant(db, "acme")
    (old_row,) = await list_keys(db, tenant.id)
    new = await rotate_key(db, tenant.id, key_id=old_row["id"], by=ADMIN)
    assert await authenticate(db, old) is None and (await authenticate(db, new)).id == tenant.id
    newest, previous = await list_keys(db, tenant.id)
    assert newest["active"] and newest["createdBy"] == ADMIN and not previous["active"]
    event = (await key_events(db, tenant.id))[0]
    assert event == {
        "action": "rotated",
        "key": newest["masked"],
        "replaced": previous["masked"],
        "by": ADMIN,
        "at": newest["createdAt"],
    }
    with pytest.raises(BadRequest, match="revoked already"):  # Rotate pressed twice
        await rotate_key(db, tenant.id, key_id=old_row["id"], by=ADMIN)


async def test_revoke_then_create_and_create_refused_while_a_key_is_active(db):
    tenant, key = await create_tenant(db, "acme")
    with pytest.raises(BadRequest, match="rotate it"):
        await create_key(db, tenant.id, by=ADMIN)
    (row,) = await list_keys(db, tenant.id)
    assert await revoke_key(db, tenant.id, key_id=row["id"], by=ADMIN) == 1
    assert await authenticate(db, key) is None
    with pytest.raises(BadRequest, match="revoked already"):
        await revoke_key(db, tenant.id, key_id=row["id"], by=ADMIN)
    assert await revoke_key(db, tenant.id) == 0  # the CLI's revoke with nothing active
    fresh = await create_key(db, tenant.id, by=ADMIN)
    assert (await authenticate(db, fresh)).id == tenant.id
    assert [(e["action"], e["by"]) for e in await key_events(db, tenant.id)] == [
        ("created", ADMIN),
        ("revoked", ADMIN),
        ("created", OPERATOR),
    ]


async def test_another_tenants_key_id_is_not_found_and_nothing_changes(db):
    mine, _ = await create_tenant(db, "a")
    theirs, their_key = await create_tenant(db, "b")
    (their_row,) = await list_keys(db, theirs.id)
    for call in (rotate_key, revoke_key):
        with pytest.raises(NotFound):
            await call(db, mine.id, key_id=their_row["id"], by=ADMIN)
    with pytest.raises(NotFound):
        await rotate_key(db, mine.id, key_id="not-a-uuid", by=ADMIN)
    assert (await authenticate(db, their_key)).id == theirs.id
    assert len(await key_events(db, mine.id)) == 1 and len(await key_events(db, theirs.id)) == 1


async def test_the_audit_row_is_in_the_transaction_of_the_change(db):
    """When the audit row cannot be written, the key does not change either."""
    tenant, key = await create_tenant(db, "acme")
    async with db.transaction() as conn:
        await conn.execute(
            "CREATE TRIGGER audit_down BEFORE INSERT ON api_key_events BEGIN SELECT RAISE(ABORT, 'audit down'); END"
        )
    for change in (rotate_key, revoke_key):
        with pytest.raises(sqlite3.IntegrityError, match="audit down"):
            await change(db, tenant.id, by=ADMIN)
        assert (await authenticate(db, key)).id == tenant.id
    assert len(await list_keys(db, tenant.id)) == 1


async def test_last_used_is_written_once_a_minute(db):
    tenant, key = await create_tenant(db, "acme")
    await authenticate(db, key)
    first = (await list_keys(db, tenant.id))[0]["lastUsedAt"]
    assert first is not None
    await authenticate(db, key)
    assert (await list_keys(db, tenant.id))[0]["lastUsedAt"] == first  # within the minute: no write
    async with db.transaction() as conn:
        await conn.execute("UPDATE api_keys SET last_used_at = '2020-01-01T00:00:00.000Z'")
    await authenticate(db, key)
    assert (await list_keys(db, tenant.id))[0]["lastUsedAt"] >= first  # a stale one is written again
    assert await authenticate(db, key + "x") is None
