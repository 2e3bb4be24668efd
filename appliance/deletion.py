"""Deleting an invoice (issue 28; DESIGN.md decisions: "Deleting an invoice removes its file and
rows; the ledger keeps the amount"): a tenant admin on the review page, an operator with
``appliance invoice delete``, both through ``delete_invoice``.

What goes: the stored file and its cached page images (``appliance.uploads.remove_stored``), and
the rows of the invoice, its file, its job, its corrections, its Idempotency-Key record and the
lesson it taught its vendor's profile (withdrawn as a rejection withdraws it, so the profile is
rebuilt without it). What stays: the ledger. It is append-only, so nothing in it is changed or
removed; the invoice's debit keeps its row, and one more row, ``invoice_deleted`` with a delta of
0, records who deleted the invoice and the credits its rows had moved (the balance does not
change). No refund, whatever the invoice's state: the spec debits an upload when it is accepted
(2.1, section 8), before any extraction, and refunds only when the queue refuses it (3.1 rule 4);
a refund that depended on whether a worker had leased the job yet would make the same click
cost a credit or not by timing. An operator who wants to give credits back grants them
(``appliance credits grant``), which the ledger shows as such. An invoice slot with no file was
never debited and leaves no ledger row.

A job a worker holds right now (leased, lease not expired) is refused (JobBusy, 409/75), as
``appliance.queue.admin.reprocess`` refuses it: the worker reads the file and would write its
result over rows that are gone. A queued job is deleted with the rest; the dispatcher leases in a
transaction of its own, so it either leased first (refused here) or finds nothing.

Order: the rows are deleted and the file removed inside one transaction, the file just before
COMMIT, so that no failure leaves the file of an invoice whose rows are gone (nothing would
find it again); a failure to remove the file rolls the rows back, and a failed COMMIT leaves rows
whose file is gone, which a second delete finishes. A second delete of the same id is NotFound
and changes nothing.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from appliance import ledger, profiles
from appliance.db import Database, fetchone
from appliance.errors import JobBusy, NotFound
from appliance.tenants import parse_uuid
from appliance.uploads import remove_stored

# The tables whose rows belong to one invoice, by its id, children first (foreign keys are on).
INVOICE_TABLES = ("corrections", "idempotency_keys", "jobs", "files", "invoice_texts")
LEDGER_REASON = "invoice_deleted"


@dataclass(frozen=True)
class Deleted:
    """What ``delete_invoice`` did: the invoice and its tenant, the bytes removed from disk (the
    stored file and its page images; 0 when retention had removed them already), and the credits
    the invoice's ledger rows had moved, which stay debited."""

    invoice_id: str
    tenant_id: str
    bytes_freed: int
    credits_kept: int


async def delete_invoice(db: Database, invoice_id: str, tenant_id: str | None, by: str) -> Deleted:
    """Delete invoice ``invoice_id`` of tenant ``tenant_id`` (None: the operator, any tenant) as
    the module docstring says; ``by`` (an e-mail or login name) goes into the ledger's note.

    Raises NotFound (404/66) for a malformed or unknown id, another tenant's, or one deleted
    already; JobBusy (409/75) while a worker holds its job; OSError when the stored file exists
    but cannot be removed (nothing is deleted then)."""
    canonical = parse_uuid(invoice_id)
    async with db.transaction() as conn:
        row = await fetchone(conn, "SELECT id, tenant_id FROM invoices WHERE id = ?", (canonical or "",))
        if row is None or (tenant_id is not None and row["tenant_id"] != tenant_id):
            raise NotFound("Invoice not found (it does not exist or was deleted)")
        await _refuse_if_leased(conn, canonical)
        stored = await fetchone(conn, "SELECT path FROM files WHERE invoice_id = ?", (canonical,))
        await profiles.unlearn(conn, canonical, by)
        for table in INVOICE_TABLES:
            await conn.execute(f"DELETE FROM {table} WHERE invoice_id = ?", (canonical,))
        await conn.execute("DELETE FROM invoices WHERE id = ?", (canonical,))
        kept = await _record_in_ledger(conn, row["tenant_id"], canonical, by)
        freed = await asyncio.to_thread(remove_stored, Path(stored["path"])) if stored else 0
    if stored:  # again: a page image rendered while the transaction ran (page_images removes its own too)
        await asyncio.to_thread(remove_stored, Path(stored["path"]))
    db.changes.notify(canonical)  # long polls of the invoice answer now (404)
    return Deleted(canonical, row["tenant_id"], freed, kept)


async def _refuse_if_leased(conn, invoice_id: str) -> None:
    job = await fetchone(conn, "SELECT id, state, lease_until FROM jobs WHERE invoice_id = ?", (invoice_id,))
    if job is not None and job["state"] == "leased" and (job["lease_until"] or 0) >= time.time():
        until = datetime.fromtimestamp(job["lease_until"], UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        raise JobBusy(
            f"Invoice {invoice_id} is being extracted right now (job {job['id']}, lease until {until}); "
            "delete it once extraction has finished"
        )


async def _record_in_ledger(conn, tenant_id: str, invoice_id: str, by: str) -> int:
    """The ``invoice_deleted`` row (delta 0) when the invoice has ledger rows; returns the credits
    they moved (positive: debited), which stay as they are."""
    row = await fetchone(
        conn,
        "SELECT COUNT(*) AS n, COALESCE(-SUM(delta), 0) AS kept FROM ledger WHERE tenant_id = ? AND invoice_id = ?",
        (tenant_id, invoice_id),
    )
    if row["n"]:
        note = f"invoice deleted by {by}; its debit of {row['kept']} credit(s) is kept"
        await ledger.post(conn, tenant_id, 0, LEDGER_REASON, invoice_id=invoice_id, note=note)
    return row["kept"]
