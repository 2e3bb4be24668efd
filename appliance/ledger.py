"""The credit ledger: every change of a tenant's balance is a row; ``tenants.balance`` is the
running sum, kept in the same transaction, and SQLite's CHECK keeps it from going below zero.

Reasons: ``upload_debit``, ``queue_refund`` (spec 3.1 rule 4), ``operator_grant``, ``purchase``,
and ``invoice_deleted`` (delta 0: the deleted invoice's debit stays, ``appliance.deletion``).
"""

from __future__ import annotations

from appliance.db import Database, fetchone, utcnow
from appliance.errors import BadRequest, InsufficientCredits, NotFound

KINDS = {"upload_debit": "debit", "queue_refund": "refund", "purchase": "purchase", "operator_grant": "grant"}
PAGE_SIZE = 50


async def post(
    conn, tenant_id: str, delta: int, reason: str, *, invoice_id: str | None = None, note: str | None = None
) -> int:
    """Write one ledger row and move the balance by ``delta`` credits; returns the new balance.

    Must run inside a transaction. Raises InsufficientCredits when the balance would go below 0.
    """
    row = await fetchone(conn, "SELECT balance FROM tenants WHERE id = ?", (tenant_id,))
    if row is None:
        raise NotFound(f"tenant {tenant_id} not found")
    balance = row["balance"] + delta
    if balance < 0:
        raise InsufficientCredits(
            f"Insufficient credits: balance {row['balance']}, {-delta} needed; buy credits and retry"
        )
    await conn.execute("UPDATE tenants SET balance = ? WHERE id = ?", (balance, tenant_id))
    await conn.execute(
        "INSERT INTO ledger (tenant_id, delta, reason, invoice_id, note, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (tenant_id, delta, reason, invoice_id, note, utcnow()),
    )
    return balance


async def balance(db: Database, tenant_id: str) -> int:
    """The tenant's balance in credits. Raises NotFound for an unknown tenant."""
    row = await db.lookup("SELECT balance FROM tenants WHERE id = ?", (tenant_id,))
    if row is None:
        raise NotFound(f"tenant {tenant_id} not found")
    return row["balance"]


async def grant(db: Database, tenant_id: str, credits: int, note: str | None = None) -> int:
    """Operator adjustment (``appliance credits grant``); negative takes credits back. Returns the balance."""
    if credits == 0:
        raise BadRequest("a grant of 0 credits changes nothing")
    async with db.transaction() as conn:
        return await post(conn, tenant_id, credits, "operator_grant", note=note)


async def ledger_sum(db: Database, tenant_id: str) -> int:
    """Sum of the tenant's ledger rows (equals the balance; tests check the invariant)."""
    row = await db.fetchone("SELECT COALESCE(SUM(delta), 0) AS s FROM ledger WHERE tenant_id = ?", (tenant_id,))
    return row["s"]


async def history(
    db: Database, tenant_id: str, before: int | None = None, limit: int = PAGE_SIZE
) -> tuple[list[dict], int | None]:
    """One page of the tenant's ledger, newest first: up to ``limit`` rows older than the row id
    ``before`` (None: from the newest), each ``{id, delta, kind, reason, invoiceId, note,
    createdAt}`` with ``delta`` in credits (negative for a debit) and ``kind`` from KINDS (debit,
    refund, purchase, grant; the reason itself for one it does not know). Returns the rows and
    the ``before`` of the next (older) page, None on the last page. Pages by row id, so rows
    written meanwhile neither repeat nor skip a row."""
    rows = await db.fetchall(
        "SELECT id, delta, reason, invoice_id, note, created_at FROM ledger "
        "WHERE tenant_id = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?",
        (tenant_id, before, before, limit + 1),
    )
    page = [
        {
            "id": r["id"],
            "delta": r["delta"],
            "kind": KINDS.get(r["reason"], r["reason"]),
            "reason": r["reason"],
            "invoiceId": r["invoice_id"],
            "note": r["note"],
            "createdAt": r["created_at"],
        }
        for r in rows[:limit]
    ]
    return page, (page[-1]["id"] if len(rows) > limit else None)
