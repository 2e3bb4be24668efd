"""Tenants and their API keys (spec section 5, DESIGN.md "API keys").

A key is ``inv_`` plus 32 random bytes (url-safe base64); only its SHA-256 and a short visible
prefix are stored. One active key per tenant: rotate revokes the old one in the same
transaction, so the old key fails on the very next request.

Every create, rotate and revoke writes a row of ``api_key_events`` (who, when, which key) in the
transaction of the change, whether the operator's CLI or an admin's web page asked for it; a
key's ``last_used_at`` is kept to within ``LAST_USED_RESOLUTION_SECONDS``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass

from appliance import ledger
from appliance.db import Database, fetchone, utc_ago, utcnow
from appliance.errors import BadRequest, NotFound

KEY_PREFIX = "inv_"
VISIBLE_PREFIX = 10  # characters of a key stored in clear: "inv_" and 6 of the secret's
OPERATOR = "operator (CLI)"  # who, in the audit list, for changes the operator's CLI made
LAST_USED_RESOLUTION_SECONDS = 60  # a key's last_used_at is written at most once a minute


@dataclass(frozen=True)
class Tenant:
    id: str
    name: str


def hash_key(key: str) -> str:
    """SHA-256 hex of an API key, the only form in which keys are stored."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def parse_uuid(value: str) -> str | None:
    """The canonical form of a UUID string, or None when it is not one (malformed ids are 404s)."""
    try:
        return str(uuid.UUID(str(value)))
    except (ValueError, AttributeError, TypeError):
        return None


def masked(prefix: str) -> str:
    """How a key is shown after its creation (spec section 5): its visible prefix and an ellipsis."""
    return f"{prefix}…"


async def _issue_key(conn, tenant_id: str, by: str) -> str:
    """Revoke the tenant's active key, if any, and make a new one: one ``created`` event, or one
    ``rotated`` event naming the key it replaced. Inside the caller's transaction."""
    key, key_id, now = new_key(), str(uuid.uuid4()), utcnow()
    old = await fetchone(conn, "SELECT id FROM api_keys WHERE tenant_id = ? AND revoked_at IS NULL", (tenant_id,))
    await conn.execute(
        "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL", (now, tenant_id)
    )
    await conn.execute(
        "INSERT INTO api_keys (id, tenant_id, prefix, key_hash, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)",
        (key_id, tenant_id, key[:VISIBLE_PREFIX], hash_key(key), now, by),
    )
    action = "rotated" if old is not None else "created"
    await _audit(conn, tenant_id, action, key_id, by, now, replaced=old["id"] if old is not None else None)
    return key


async def _audit(conn, tenant_id: str, action: str, key_id: str, by: str, at: str, replaced: str | None = None):
    await conn.execute(
        "INSERT INTO api_key_events (tenant_id, action, key_id, replaced_key_id, by, at) VALUES (?, ?, ?, ?, ?, ?)",
        (tenant_id, action, key_id, replaced, by, at),
    )


async def create_tenant(db: Database, name: str, credits: int = 0, by: str = OPERATOR) -> tuple[Tenant, str]:
    """Create a tenant with an API key and an opening grant of ``credits``; returns (tenant, key).
    The key's ``created`` event names ``by``.

    Raises BadRequest for an empty name or negative credits.
    """
    name = name.strip()
    if not name:
        raise BadRequest("tenant name must not be empty")
    if credits < 0:
        raise BadRequest("credits must not be negative")
    tenant = Tenant(str(uuid.uuid4()), name)
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO tenants (id, name, balance, created_at) VALUES (?, ?, 0, ?)", (tenant.id, name, utcnow())
        )
        key = await _issue_key(conn, tenant.id, by)
        if credits:
            await ledger.post(conn, tenant.id, credits, "operator_grant", note="opening credits")
    return tenant, key


async def _require_tenant(conn, tenant_id: str) -> None:
    canonical = parse_uuid(tenant_id)
    if canonical is None or await fetchone(conn, "SELECT 1 FROM tenants WHERE id = ?", (canonical,)) is None:
        raise NotFound(f"tenant {tenant_id} not found")


async def _tenant_key(conn, tenant_id: str, key_id: str):
    """The active key ``key_id`` of the tenant: NotFound when the tenant has no key of that id
    (another tenant's key is not found either), BadRequest when it is revoked already."""
    canonical = parse_uuid(key_id)
    row = await fetchone(
        conn, "SELECT id, prefix, revoked_at FROM api_keys WHERE id = ? AND tenant_id = ?", (canonical, tenant_id)
    )
    if canonical is None or row is None:
        raise NotFound(f"API key {key_id} not found")
    if row["revoked_at"] is not None:
        raise BadRequest(f"API key {masked(row['prefix'])} was revoked already: create a new key instead")
    return row


async def create_key(db: Database, tenant_id: str, by: str) -> str:
    """A key for a tenant that has no active one (after a revoke); returns it, to be shown once
    (spec section 5). BadRequest when the tenant has an active key (one per tenant: rotate it),
    NotFound for an unknown tenant. Written with a ``created`` event naming ``by``."""
    async with db.transaction() as conn:
        await _require_tenant(conn, tenant_id)
        tenant = parse_uuid(tenant_id)
        active = await fetchone(
            conn, "SELECT prefix FROM api_keys WHERE tenant_id = ? AND revoked_at IS NULL", (tenant,)
        )
        if active is not None:
            raise BadRequest(
                f"This workspace has an active key ({masked(active['prefix'])}): rotate it to get a new one "
                "(one active key per workspace)"
            )
        return await _issue_key(conn, tenant, by)


async def rotate_key(db: Database, tenant_id: str, *, key_id: str | None = None, by: str = OPERATOR) -> str:
    """Issue a new key for the tenant and revoke the old one in the same transaction; returns the
    new key (shown once). With ``key_id`` (the web app's Rotate), that key must be the tenant's
    active one: NotFound when the tenant has no such key, BadRequest when it is revoked already
    (a second press of Rotate). NotFound for an unknown tenant. One ``rotated`` event (``created``
    when there was no active key) naming ``by``."""
    async with db.transaction() as conn:
        await _require_tenant(conn, tenant_id)
        tenant = parse_uuid(tenant_id)
        if key_id is not None:
            await _tenant_key(conn, tenant, key_id)
        return await _issue_key(conn, tenant, by)


async def revoke_key(db: Database, tenant_id: str, *, key_id: str | None = None, by: str = OPERATOR) -> int:
    """Revoke the tenant's active key; returns how many keys were revoked (0 or 1). With
    ``key_id`` that key must be the tenant's active one (NotFound, BadRequest as ``rotate_key``).
    NotFound for an unknown tenant. A ``revoked`` event naming ``by`` for each key revoked."""
    async with db.transaction() as conn:
        await _require_tenant(conn, tenant_id)
        tenant, now = parse_uuid(tenant_id), utcnow()
        if key_id is not None:
            await _tenant_key(conn, tenant, key_id)
        cursor = await conn.execute(
            "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL RETURNING id",
            (now, tenant),
        )
        revoked = [row["id"] for row in await cursor.fetchall()]
        await cursor.close()
        for revoked_id in revoked:
            await _audit(conn, tenant, "revoked", revoked_id, by, now)
        return len(revoked)


async def list_keys(db: Database, tenant_id: str) -> list[dict]:
    """The tenant's keys, newest first, never the secret (spec section 5: a masked prefix only):
    ``{id, masked, createdAt, createdBy, lastUsedAt, revokedAt, active}``; timestamps as
    ``utcnow`` writes them, ``createdBy`` None for keys made before the audit existed,
    ``lastUsedAt`` None when unknown (never used since) and otherwise exact to
    ``LAST_USED_RESOLUTION_SECONDS``."""
    rows = await db.fetchall(
        "SELECT id, prefix, created_at, created_by, last_used_at, revoked_at FROM api_keys "
        "WHERE tenant_id = ? ORDER BY created_at DESC, rowid DESC",
        (tenant_id,),
    )
    return [
        {
            "id": r["id"],
            "masked": masked(r["prefix"]),
            "createdAt": r["created_at"],
            "createdBy": r["created_by"],
            "lastUsedAt": r["last_used_at"],
            "revokedAt": r["revoked_at"],
            "active": r["revoked_at"] is None,
        }
        for r in rows
    ]


async def key_events(db: Database, tenant_id: str, limit: int = 100) -> list[dict]:
    """The tenant's audit list of keys, newest first, at most ``limit`` rows:
    ``{action, key, replaced, by, at}`` where ``action`` is created, rotated or revoked, ``key``
    the masked key made or revoked, ``replaced`` the masked key a rotation revoked (else None)."""
    rows = await db.fetchall(
        "SELECT e.action, e.by, e.at, k.prefix, r.prefix AS replaced FROM api_key_events e "
        "JOIN api_keys k ON k.id = e.key_id LEFT JOIN api_keys r ON r.id = e.replaced_key_id "
        "WHERE e.tenant_id = ? ORDER BY e.id DESC LIMIT ?",
        (tenant_id, limit),
    )
    return [
        {
            "action": r["action"],
            "key": masked(r["prefix"]),
            "replaced": masked(r["replaced"]) if r["replaced"] else None,
            "by": r["by"],
            "at": r["at"],
        }
        for r in rows
    ]


async def update_tenant(
    db: Database, tenant_id: str, *, company_name: str | None = None, tax_id: str | None = None
) -> None:
    """Set the tenant's own company name and tax id: invoices it issued are ``receivable``."""
    async with db.transaction() as conn:
        await _require_tenant(conn, tenant_id)
        if company_name is not None:
            await conn.execute(
                "UPDATE tenants SET company_name = ? WHERE id = ?",
                (company_name.strip() or None, parse_uuid(tenant_id)),
            )
        if tax_id is not None:
            await conn.execute(
                "UPDATE tenants SET tax_id = ? WHERE id = ?", (tax_id.strip() or None, parse_uuid(tenant_id))
            )


async def authenticate(db: Database, key: str) -> Tenant | None:
    """The tenant whose active key is ``key``, or None.

    Lookup is by the SHA-256 of the key (an index hit that reveals nothing about the key),
    then confirmed with a constant-time compare. The key's ``last_used_at`` is written when it is
    older than ``LAST_USED_RESOLUTION_SECONDS`` (or unknown): one write a minute per key, not one
    per request.
    """
    digest = hash_key(key)
    row = await db.lookup(  # on every request: the loop's own thread (Database.lookup)
        "SELECT t.id, t.name, k.id AS key_id, k.key_hash, k.last_used_at FROM api_keys k "
        "JOIN tenants t ON t.id = k.tenant_id WHERE k.key_hash = ? AND k.revoked_at IS NULL",
        (digest,),
    )
    if row is None or not hmac.compare_digest(row["key_hash"], digest):
        return None
    stale = utc_ago(LAST_USED_RESOLUTION_SECONDS)
    if row["last_used_at"] is None or row["last_used_at"] < stale:
        async with db.transaction() as conn:  # a request in parallel may have written it: then no-op
            await conn.execute(
                "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
                (utcnow(), row["key_id"], stale),
            )
    return Tenant(row["id"], row["name"])
