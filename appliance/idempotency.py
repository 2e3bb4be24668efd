"""Idempotency keys on uploads (issue 12; the convention of Stripe's API): a client that lost a
202 retries with the same ``Idempotency-Key`` header and gets the first 202 again, without a
second debit or a second invoice.

A key is the tenant's: ``(tenant, key)`` holds the first accepted upload's fingerprint and its
202 body for ``TTL_SECONDS`` (24 h). The same key with the same request (same endpoint, same
file bytes, file name and ``vendorId``; multipart boundaries may differ between retries) replays
that body; with another request it is 422. The record is written in the transaction that debits
the upload, so two requests racing with one key debit once: the second one's insert conflicts,
its transaction rolls back, and it replays the first. Only accepted uploads are recorded: a
refused one (402, 413, 503...) kept nothing, so its retry runs again.

Imports nothing of ``api``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from appliance.db import Database, fetchone, utc_ago, utcnow
from appliance.errors import BadRequest, IdempotencyKeyReused

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"  # "true" on a replayed 202, as Stripe's API says it
TTL_SECONDS = 24 * 3600
MAX_KEY_LENGTH = 255


@dataclass(frozen=True)
class Claim:
    """An upload's ``key`` and the ``fingerprint`` of what it sends (``fingerprint()``)."""

    key: str
    fingerprint: str


class KeyTaken(Exception):
    """Raised inside the accepting transaction when another request recorded the key first."""


def key_of(headers: Mapping[str, str]) -> str | None:
    """The ``Idempotency-Key`` header, or None without one. BadRequest (400) when it is empty,
    longer than MAX_KEY_LENGTH characters or not printable ASCII (a UUID is the usual choice)."""
    key = headers.get(HEADER)
    if key is None:
        return None
    if not key or len(key) > MAX_KEY_LENGTH or not all(" " <= ch <= "~" for ch in key):
        raise BadRequest(f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters (a UUID, say)")
    return key


def fingerprint(path: str, sha256: str, filename: str | None, vendor_id: str | None) -> str:
    """SHA-256 (hex) of what makes two uploads the same request: the request path (the endpoint
    and, for an attach, its slot), the file's SHA-256, its file name and the ``vendorId`` text."""
    return hashlib.sha256(json.dumps([path, sha256, filename, vendor_id]).encode()).hexdigest()


async def find(db: Database, tenant_id: str, key: str) -> sqlite3.Row | None:
    """The tenant's live record of ``key`` (``fingerprint``, ``response_json``), or None."""
    return await db.lookup(
        "SELECT fingerprint, response_json FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND created_at >= ?",
        (tenant_id, key, utc_ago(TTL_SECONDS)),
    )


def replay(record: sqlite3.Row, claim: Claim) -> dict[str, Any]:
    """The first 202 body of ``record`` when ``claim`` sends the same request; else
    IdempotencyKeyReused (422)."""
    if record["fingerprint"] != claim.fingerprint:
        raise IdempotencyKeyReused(
            f"This {HEADER} was used within 24 hours for another request (another file, file name, "
            "vendorId or endpoint); use a new key for a new upload"
        )
    return json.loads(record["response_json"])


async def record(conn, tenant_id: str, claim: Claim, invoice_id: str, response: dict[str, Any]) -> None:
    """Record ``claim`` with its 202 ``response`` inside the caller's transaction; drops expired
    records first. Raises KeyTaken when a live record of the key exists (the caller's
    transaction must then roll back)."""
    await conn.execute("DELETE FROM idempotency_keys WHERE created_at < ?", (utc_ago(TTL_SECONDS),))
    if await fetchone(conn, "SELECT 1 FROM idempotency_keys WHERE tenant_id = ? AND key = ?", (tenant_id, claim.key)):
        raise KeyTaken(claim.key)
    await conn.execute(
        "INSERT INTO idempotency_keys (tenant_id, key, fingerprint, invoice_id, response_json, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (tenant_id, claim.key, claim.fingerprint, invoice_id, json.dumps(response), utcnow()),
    )
