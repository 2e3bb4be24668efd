"""Retention (issue 28): with ``retention.days`` N above 0, the stored file of an invoice approved
more than N days ago is removed with its page images (``appliance.uploads.remove_stored``). The
invoice keeps everything else: its rows (extracted data, evidence, corrections, review trail),
its ledger rows, and the row of its file, which still finds duplicates by SHA-256 and is marked
``purged_at`` with the bytes freed. N counts from the approval (``decided_at``), not the upload:
an invoice approved today after weeks in the queue keeps its file N more days.

The server sweeps every ``retention.interval_minutes``, first at start (``run_periodically``, a
task beside the dispatcher's, which ``server.run.serve`` starts and cancels); ``appliance
retention run`` sweeps now. Each file is one short transaction: the candidate is checked again
inside it (still approved, approved long enough ago, no job queued or leased: a reprocess needs
the file), the file removed just before COMMIT, and the totals ``retention_files_deleted`` and
``retention_bytes_freed`` of ``counters`` moved with it. ``appliance.metrics`` reads them, so
they survive restarts and count the CLI's sweeps too.

After it: the review page shows the data without the page and says why; reprocess and retry
are refused (``appliance.queue.admin``, BadRequest); ``appliance backup`` lists the file as
missing; ``appliance training export`` leaves the invoice out.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import astuple, dataclass
from pathlib import Path

from appliance.db import Database, fetchone, utc_ago, utcnow
from appliance.errors import BadRequest
from appliance.settings import Settings
from appliance.uploads import remove_stored

log = logging.getLogger(__name__)

DAY = 86400
BATCH = 200  # candidates read per query; each is removed in a transaction of its own
FILES_COUNTER, BYTES_COUNTER = "retention_files_deleted", "retention_bytes_freed"
# A file retention may remove, given the approval cut-off (``?``): ``f`` the file, ``i`` its invoice.
PAST_RETENTION = (
    "f.purged_at IS NULL AND i.status = 'approved' AND i.review_decision = 'approved' AND i.decided_at < ? "
    "AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.invoice_id = f.invoice_id AND j.state != 'done')"
)


@dataclass(frozen=True)
class Swept:
    """What a sweep did (or, for a dry run, would do): ``files`` removed, ``bytes`` freed (the
    stored files and their page images; a dry run counts the stored files' recorded sizes only),
    and ``failed``, files that could not be removed (logged; the next sweep tries again)."""

    files: int = 0
    bytes: int = 0
    failed: int = 0


async def sweep(db: Database, settings: Settings, days: int | None = None, *, dry_run: bool = False) -> Swept:
    """Remove the stored files of invoices approved more than ``days`` days ago (default
    ``retention.days``; 0 does nothing, retention is off), as the module docstring says.
    ``dry_run`` removes nothing and says what would go. Returns a Swept."""
    days = settings.retention.days if days is None else days
    if days <= 0:
        return Swept()
    cutoff = utc_ago(days * DAY)
    files = freed = failed = 0
    after = ""
    while True:
        rows = await db.fetchall(
            "SELECT f.id, f.path, f.size FROM files f JOIN invoices i ON i.id = f.invoice_id "
            f"WHERE {PAST_RETENTION} AND f.id > ? ORDER BY f.id LIMIT ?",
            (cutoff, after, BATCH),
        )
        if not rows:
            return Swept(files, freed, failed)
        after = rows[-1]["id"]
        for row in rows:
            if dry_run:
                files, freed = files + 1, freed + row["size"]
                continue
            try:
                removed = await _purge(db, row["id"], cutoff)
            except OSError as exc:
                log.warning("retention: cannot remove %s: %s", row["path"], exc)
                failed += 1
                continue
            if removed is not None:
                files, freed = files + 1, freed + removed


async def _purge(db: Database, file_id: str, cutoff: str) -> int | None:
    """Remove one file if it is still past retention; the bytes freed, None when it no longer is."""
    async with db.transaction() as conn:
        row = await fetchone(
            conn,
            f"SELECT f.path FROM files f JOIN invoices i ON i.id = f.invoice_id WHERE f.id = ? AND {PAST_RETENTION}",
            (file_id, cutoff),
        )
        if row is None:  # corrected (no longer approved) or queued for a reprocess meanwhile
            return None
        freed = await asyncio.to_thread(remove_stored, Path(row["path"]))
        await conn.execute("UPDATE files SET purged_at = ?, purged_bytes = ? WHERE id = ?", (utcnow(), freed, file_id))
        for name, delta in ((FILES_COUNTER, 1), (BYTES_COUNTER, freed)):
            await conn.execute(
                "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + ?",
                (name, delta, delta),
            )
    return freed


async def run_now(db: Database, settings: Settings, days: int | None = None, *, dry_run: bool = False) -> Swept:
    """``appliance retention run``: ``sweep`` with ``days`` (default ``retention.days``).
    Raises BadRequest when that is 0 (retention off), rather than doing nothing silently."""
    days = settings.retention.days if days is None else days
    if days <= 0:
        raise BadRequest("retention is off (retention.days = 0): set retention.days or pass --days N")
    return await sweep(db, settings, days, dry_run=dry_run)


async def run_periodically(db: Database, settings: Settings) -> None:
    """The server's task: ``sweep`` now and every ``retention.interval_minutes`` until cancelled;
    returns at once when retention is off. A failed sweep is logged and tried again next time."""
    if settings.retention.days <= 0:
        log.info("retention: off (retention.days = 0): uploaded files are kept")
        return
    log.info(
        "retention: files of invoices approved more than %d day(s) ago are removed, every %d minute(s)",
        settings.retention.days,
        settings.retention.interval_minutes,
    )
    minutes = settings.retention.interval_minutes
    while True:
        try:
            swept = await sweep(db, settings)
            if swept.files or swept.failed:
                log.info("retention: %d file(s) removed, %d bytes freed, %d failed", *astuple(swept))
        except Exception:
            log.exception("retention: the sweep failed; trying again in %d minute(s)", minutes)
        await asyncio.sleep(minutes * 60)


async def totals(db: Database) -> tuple[int, int]:
    """(files removed, bytes freed) by retention since the database was made: ``counters``."""
    rows = await db.fetchall("SELECT name, value FROM counters WHERE name IN (?, ?)", (FILES_COUNTER, BYTES_COUNTER))
    values = {row["name"]: row["value"] for row in rows}
    return values.get(FILES_COUNTER, 0), values.get(BYTES_COUNTER, 0)
