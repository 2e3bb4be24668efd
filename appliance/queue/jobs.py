"""The durable extraction queue in SQLite, with leases (DESIGN.md "Flow of one invoice" step 4).

A job is ``queued`` until the dispatcher leases it (``leased``, ``lease_until`` set) and ``done``
when its result is written. A lease that expires (a crash, a killed worker) makes the job
leasable again, so a restart loses no job and never debits twice (the debit belongs to the
upload, not to the job).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass

from appliance.db import Database, fetchone, utcnow
from pipeline.schema import InvoiceStatus, ProcessingStatus


@dataclass(frozen=True)
class LeasedJob:
    id: str
    invoice_id: str
    tenant_id: str
    attempts: int
    busy_retries: int


async def enqueue(conn, invoice_id: str, tenant_id: str) -> str:
    """Insert a queued job for the invoice inside the caller's transaction; returns the job id."""
    job_id = str(uuid.uuid4())
    now = utcnow()
    await conn.execute(
        "INSERT INTO jobs (id, invoice_id, tenant_id, state, available_at, created_at, updated_at) "
        "VALUES (?, ?, ?, 'queued', ?, ?, ?)",
        (job_id, invoice_id, tenant_id, time.time(), now, now),
    )
    return job_id


async def depth(conn, tenant_id: str | None = None) -> int:
    """Jobs not yet done (queued or leased): the backlog that ``queue.max_depth`` bounds, or with
    ``tenant_id`` that tenant's share of it (``queue.max_depth_per_tenant``)."""
    if tenant_id is None:
        row = await fetchone(conn, "SELECT COUNT(*) AS n FROM jobs WHERE state != 'done'")
    else:
        row = await fetchone(
            conn, "SELECT COUNT(*) AS n FROM jobs WHERE state != 'done' AND tenant_id = ?", (tenant_id,)
        )
    return row["n"]


async def lease(db: Database, owner: str, lease_seconds: float, limit: int = 1) -> list[LeasedJob]:
    """Lease up to ``limit`` due jobs (queued and available, or leased with an expired lease).

    Increments ``attempts`` and marks the invoice ``processing``. Fair across tenants (issue 12:
    a batch of 10,000 from one tenant must not hold another tenant's one invoice for hours):
    tenants take turns, each tenant's oldest due job first, and at equal turns the tenant served
    least recently (never served first) goes first; within a tenant, oldest first.
    """
    now = time.time()
    async with db.transaction() as conn:
        async with conn.execute(
            "WITH due AS (SELECT id, invoice_id, tenant_id, attempts, busy_retries, available_at, "
            "  ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY available_at) AS turn FROM jobs "
            "  WHERE (state = 'queued' AND available_at <= ?) OR (state = 'leased' AND lease_until < ?)), "
            "served AS (SELECT tenant_id, MAX(updated_at) AS last FROM jobs WHERE state != 'queued' "
            "  GROUP BY tenant_id) "
            "SELECT due.id, due.invoice_id, due.tenant_id, due.attempts, due.busy_retries FROM due "
            "LEFT JOIN served ON served.tenant_id = due.tenant_id "
            "ORDER BY due.turn, served.last IS NOT NULL, served.last, due.available_at LIMIT ?",
            (now, now, limit),
        ) as cursor:
            rows = list(await cursor.fetchall())
        jobs = []
        stamp = utcnow()
        for row in rows:
            await conn.execute(
                "UPDATE jobs SET state = 'leased', lease_until = ?, lease_owner = ?, attempts = attempts + 1, "
                "updated_at = ? WHERE id = ?",
                (now + lease_seconds, owner, stamp, row["id"]),
            )
            await conn.execute(
                "UPDATE invoices SET processing_status = ?, status = ?, updated_at = ? WHERE id = ?",
                (ProcessingStatus.PROCESSING, InvoiceStatus.PROCESSING, stamp, row["invoice_id"]),
            )
            jobs.append(
                LeasedJob(row["id"], row["invoice_id"], row["tenant_id"], row["attempts"] + 1, row["busy_retries"])
            )
        return jobs


async def release_orphans(db: Database, owner: str) -> int:
    """Return every lease not held by ``owner`` to the queue (at start: the previous process died).

    Only one appliance serves a data dir (the server holds a lock file), so such leases are dead.
    """
    async with db.transaction() as conn:
        cursor = await conn.execute(
            "UPDATE jobs SET state = 'queued', lease_until = NULL, lease_owner = NULL, available_at = ?, "
            "updated_at = ? WHERE state = 'leased' AND (lease_owner IS NULL OR lease_owner != ?)",
            (time.time(), utcnow(), owner),
        )
        await conn.execute(
            "UPDATE invoices SET processing_status = ?, status = ? "
            "WHERE id IN (SELECT invoice_id FROM jobs WHERE state = 'queued') AND processing_status = ?",
            (ProcessingStatus.QUEUED, InvoiceStatus.PENDING, ProcessingStatus.PROCESSING),
        )
        return cursor.rowcount


async def retry_later(db: Database, job: LeasedJob, delay: float, error: str, *, busy: bool) -> None:
    """Put a leased job back in the queue after ``delay`` seconds.

    A busy retry (OCR stage in use) does not count as an attempt: nothing failed.
    """
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE jobs SET state = 'queued', lease_until = NULL, lease_owner = NULL, available_at = ?, "
            "last_error = ?, attempts = attempts - ?, busy_retries = busy_retries + ?, updated_at = ? "
            "WHERE id = ?",
            (time.time() + delay, error, 1 if busy else 0, 1 if busy else 0, utcnow(), job.id),
        )
        await conn.execute(
            "UPDATE invoices SET processing_status = ?, updated_at = ? WHERE id = ?",
            (ProcessingStatus.QUEUED, utcnow(), job.invoice_id),
        )


async def finish(conn, job_id: str, error: str | None = None) -> None:
    """Mark a job done inside the caller's transaction (the one that writes the result)."""
    await conn.execute(
        "UPDATE jobs SET state = 'done', lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ?",
        (error, utcnow(), job_id),
    )
