"""Tenants and their API keys (spec section 5, DESIGN.md "API keys").

A key is ``inv_`` plus 32 random bytes (url-safe base64); only its SHA-256 and a short visible
prefix are stored. One active key per tenant: rotate revokes the old one in the same
transaction, so the old key fails on the very next request.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass

from appliance import ledger
from appliance.db import Database, fetchone, utcnow
from appliance.errors import BadRequest, NotFound

KEY_PREFIX = "inv_"


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


async def _issue_key(conn, tenant_id: str) -> str:
    key = new_key()
    now = utcnow()
    await conn.execute(
        "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL", (now, tenant_id)
    )
    await conn.execute(
        "INSERT INTO api_keys (id, tenant_id, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?)",
        (str(uuid.uuid4()), tenant_id, key[:10], hash_key(key), now),
    )
    return key


async def create_tenant(db: Database, name: str, credits: int = 0) -> tuple[Tenant, str]:
    """Create a tenant with an API key and an opening grant of ``credits``; returns (tenant, key).

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
        key = await _issue_key(conn, tenant.id)
        if credits:
            await ledger.post(conn, tenant.id, credits, "operator_grant", note="opening credits")
    return tenant, key


async def _require_tenant(conn, tenant_id: str) -> None:
    canonical = parse_uuid(tenant_id)
    if canonical is None or await fetchone(conn, "SELECT 1 FROM tenants WHERE id = ?", (canonical,)) is None:
        raise NotFound(f"tenant {tenant_id} not found")


async def rotate_key(db: Database, tenant_id: str) -> str:
    """Issue a new key for the tenant and revoke the old one; returns the new key. NotFound if unknown."""
    async with db.transaction() as conn:
        await _require_tenant(conn, tenant_id)
        return await _issue_key(conn, parse_uuid(tenant_id))


async def revoke_key(db: Database, tenant_id: str) -> int:
    """Revoke the tenant's active key; returns how many keys were revoked. NotFound if unknown."""
    async with db.transaction() as conn:
        await _require_tenant(conn, tenant_id)
        cursor = await conn.execute(
            "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL",
            (utcnow(), parse_uuid(tenant_id)),
        )
        return cursor.rowcount


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
    then confirmed with a constant-time compare.
    """
    digest = hash_key(key)
    row = await db.lookup(  # on every request: the loop's own thread (Database.lookup)
        "SELECT t.id, t.name, k.key_hash FROM api_keys k JOIN tenants t ON t.id = k.tenant_id "
        "WHERE k.key_hash = ? AND k.revoked_at IS NULL",
        (digest,),
    )
    if row is None or not hmac.compare_digest(row["key_hash"], digest):
        return None
    return Tenant(row["id"], row["name"])
