"""The queue as an operator sees and steers it: list jobs, put a job back in the queue (retry),
reprocess an invoice, optionally forcing an extraction tier (spec 3.1 rule 3).

Neither retry nor reprocess debits: the debit belongs to the upload (``appliance.queue.jobs``). Both
reset ``attempts`` (the operator asks for a fresh run) and make the job due now; the running
dispatcher finds it on its next poll (``queue.poll_seconds``). A job leased right now is refused
(JobBusy): its worker will write a result that would race the new run. A lease that has expired
counts as free, as it does for the dispatcher. An invoice whose file retention removed
(``appliance.retention``) is refused (BadRequest): there is nothing to extract again, and a
failed run would replace its data.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from appliance.db import Database, fetchone, utcnow
from appliance.errors import BadRequest, JobBusy, NotFound
from appliance.tenants import parse_uuid
from pipeline.schema import ProcessingStatus

STATES = ("queued", "leased", "done", "failed")  # "failed": done, and the invoice failed
TIERS = (0, 1, 2)
_KEEP = object()  # retry keeps the job's forced tier; reprocess sets or clears it


async def list_jobs(db: Database, state: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """Jobs, newest first, at most ``limit``; ``state`` filters (one of STATES). Times are ISO
    8601 UTC (``availableAt``, ``leaseUntil`` None when not leased). Raises BadRequest."""
    if state is not None and state not in STATES:
        raise BadRequest(f"unknown state {state!r}: one of {', '.join(STATES)}")
    where, params = "", []
    if state == "failed":
        where = "WHERE j.state = 'done' AND i.processing_status = 'failed'"
    elif state:
        where, params = "WHERE j.state = ?", [state]
    rows = await db.fetchall(
        "SELECT j.*, i.processing_status FROM jobs j JOIN invoices i ON i.id = j.invoice_id "
        f"{where} ORDER BY j.created_at DESC, j.id LIMIT ?",
        (*params, limit),
    )
    return [_job(row) for row in rows]


async def retry(db: Database, ident: str) -> dict[str, Any]:
    """Put the job named by ``ident`` (a job id or its invoice's id) back in the queue now,
    attempts reset, forced tier kept. Returns the job as ``list_jobs`` shows it.
    Raises NotFound, JobBusy (leased right now), BadRequest (file removed by retention)."""
    return await _requeue(db, ident, _KEEP)


async def reprocess(db: Database, invoice_id: str, force_tier: int | None = None) -> dict[str, Any]:
    """Run extraction again for an invoice, with no second debit; ``force_tier`` 0 (e-invoice XML
    only), 1 (vendor template only), 2 (rules + LLM only) or None (the usual routing).
    The invoice goes back to ``processingStatus`` queued; its data stays readable meanwhile.
    Raises NotFound (unknown invoice), BadRequest (bad tier, no file attached, file removed by
    retention), JobBusy."""
    if force_tier is not None and force_tier not in TIERS:
        raise BadRequest(f"unknown tier {force_tier}: 0 (e-invoice XML), 1 (vendor template) or 2 (rules + LLM)")
    canonical = parse_uuid(invoice_id)
    if canonical is None or await db.fetchone("SELECT 1 FROM invoices WHERE id = ?", (canonical,)) is None:
        raise NotFound(f"Invoice not found: {invoice_id}")
    if await db.fetchone("SELECT 1 FROM jobs WHERE invoice_id = ?", (canonical,)) is None:
        raise BadRequest(f"Invoice {canonical} has no file attached: nothing to reprocess")
    return await _requeue(db, canonical, force_tier)


async def _requeue(db: Database, ident: str, force_tier: Any) -> dict[str, Any]:
    canonical = parse_uuid(ident)
    now = time.time()
    async with db.transaction() as conn:
        row = (
            await fetchone(conn, "SELECT * FROM jobs WHERE id = ? OR invoice_id = ?", (canonical, canonical))
            if canonical
            else None
        )
        if row is None:
            raise NotFound(f"No job for {ident}: give a job id or an invoice id")
        if row["state"] == "leased" and (row["lease_until"] or 0) >= now:
            raise JobBusy(
                f"Job {row['id']} is being processed right now (lease until "
                f"{_iso(row['lease_until'])}); retry once it is done"
            )
        await _refuse_if_purged(conn, row["invoice_id"])
        tier = row["force_tier"] if force_tier is _KEEP else force_tier
        stamp = utcnow()
        await conn.execute(
            "UPDATE jobs SET state = 'queued', attempts = 0, busy_retries = 0, available_at = ?, lease_until = NULL, "
            "lease_owner = NULL, force_tier = ?, updated_at = ? WHERE id = ?",
            (now, tier, stamp, row["id"]),
        )
        # status stays as it is (a human decision included) until a worker takes the job
        await conn.execute(
            "UPDATE invoices SET processing_status = ?, updated_at = ? WHERE id = ?",
            (ProcessingStatus.QUEUED, stamp, row["invoice_id"]),
        )
        # read back inside the transaction: a moment later the dispatcher may have leased it
        return _job(
            await fetchone(
                conn,
                "SELECT j.*, i.processing_status FROM jobs j JOIN invoices i ON i.id = j.invoice_id WHERE j.id = ?",
                (row["id"],),
            )
        )


async def _refuse_if_purged(conn, invoice_id: str) -> None:
    file = await fetchone(conn, "SELECT purged_at FROM files WHERE invoice_id = ?", (invoice_id,))
    if file is not None and file["purged_at"]:
        raise BadRequest(
            f"Invoice {invoice_id} has no file any more: retention removed it on {file['purged_at'][:10]} "
            "(retention.days); its extracted data stays, but it cannot be extracted again"
        )


def _job(row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "state": row["state"],
        "invoiceId": row["invoice_id"],
        "tenantId": row["tenant_id"],
        "processingStatus": row["processing_status"],
        "attempts": row["attempts"],
        "busyRetries": row["busy_retries"],
        "lastError": row["last_error"],
        "forceTier": row["force_tier"],
        "availableAt": _iso(row["available_at"]),
        "leaseUntil": _iso(row["lease_until"]) if row["state"] == "leased" else None,
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
    }


def _iso(epoch: float | None) -> str | None:
    """Epoch seconds (how the queue stores times, for cheap comparisons) as ISO 8601 UTC."""
    if epoch is None:
        return None
    stamp = datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")
