"""Retention (issue 28, ``appliance.retention``): off by default; with ``retention.days`` the
stored files and page images of invoices approved longer ago are removed, and only those (not a
newer approval, not an unapproved or corrected invoice, not one queued for a reprocess); the
data stays readable; /metrics counts files and bytes; the server sweeps by itself and the CLI on
demand; a purged invoice cannot be reprocessed."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from appliance import retention, review
from appliance.db import utc_ago
from appliance.errors import BadRequest
from appliance.metrics import Metrics
from appliance.queue import admin
from appliance.settings import load_settings
from appliance.uploads import derived_dir
from bench.server import cli
from tests.appliance.test_profiles import invoice, uploaded
from tests.conftest import make_settings
from webui import page_images


async def approved(harness, headers, number: str, days_ago: float, *, image: bool = False) -> tuple[str, Path]:
    """An invoice approved ``days_ago`` days ago (and uploaded then), with its stored file; with
    ``image`` its first page rendered once, as the review page keeps it."""
    invoice_id, _ = await uploaded(harness, headers, invoice(number, "119.00"))
    await review.decide(harness.db, invoice_id, "approved", "ana")
    stamp = utc_ago(days_ago * retention.DAY)
    async with harness.db.transaction() as conn:
        await conn.execute(
            "UPDATE invoices SET decided_at = ?, created_at = ? WHERE id = ?", (stamp, stamp, invoice_id)
        )
    stored = Path((await harness.db.fetchone("SELECT path FROM files WHERE invoice_id = ?", (invoice_id,)))["path"])
    if image:
        await asyncio.to_thread(page_images.page_image, stored, "application/pdf", 1)
    return invoice_id, stored


async def test_off_by_default_then_only_old_approved_files_go_and_the_data_stays(harness):
    _, headers = await harness.tenant()
    old, old_file = await approved(harness, headers, "R-1", 40, image=True)
    recent, recent_file = await approved(harness, headers, "R-2", 5)
    corrected, corrected_file = await approved(harness, headers, "R-3", 40)
    await review.correct(harness.db, corrected, ["invoice_number=R-3b"], [], by="ana")  # approval withdrawn
    queued, queued_file = await approved(harness, headers, "R-4", 40)
    async with harness.db.transaction() as conn:  # queued for a reprocess that has not started yet
        await conn.execute(
            "UPDATE jobs SET state = 'queued', available_at = ? WHERE invoice_id = ?", (time.time() + 3600, queued)
        )
    pending, _ = await uploaded(harness, headers, invoice("R-5", "119.00"))  # never approved
    before = await harness.client.get(f"/api/v1/invoices/{old}", headers=headers)
    size = old_file.stat().st_size + page_images.cached_page(old_file, 1).stat().st_size

    assert harness.settings.retention.days == 0
    assert await retention.sweep(harness.db, harness.settings) == retention.Swept()
    with pytest.raises(BadRequest, match="retention is off"):
        await retention.run_now(harness.db, harness.settings)
    assert old_file.exists() and await retention.totals(harness.db) == (0, 0)

    dry = await retention.run_now(harness.db, harness.settings, 30, dry_run=True)
    assert (dry.files, dry.bytes) == (1, old_file.stat().st_size) and old_file.exists()
    swept = await retention.sweep(harness.db, harness.settings, days=30)
    assert swept == retention.Swept(files=1, bytes=size)
    assert not old_file.exists() and not derived_dir(old_file).exists()
    assert recent_file.exists() and corrected_file.exists() and queued_file.exists()
    after = await harness.client.get(f"/api/v1/invoices/{old}", headers=headers)
    assert after.status == 200 and (await after.json())["data"] == (await before.json())["data"]
    row = await harness.db.fetchone("SELECT purged_at, purged_bytes, sha256 FROM files WHERE invoice_id = ?", (old,))
    assert row["purged_at"] and row["purged_bytes"] == size and row["sha256"]  # the row stays: duplicates
    assert await retention.sweep(harness.db, harness.settings, days=30) == retention.Swept()  # nothing twice
    assert await retention.totals(harness.db) == (1, size)
    metrics = Metrics(harness.db)
    await metrics.refresh()
    text = metrics.render().decode()
    assert "appliance_retention_files_deleted_total 1.0" in text
    assert f"appliance_retention_bytes_freed_total {float(size)}" in text
    for again in (admin.reprocess(harness.db, old), admin.retry(harness.db, old)):
        with pytest.raises(BadRequest, match="retention removed it on"):
            await again
    assert (await harness.db.fetchone("SELECT processing_status FROM invoices WHERE id = ?", (old,)))[0] != "queued"
    pending_file = (await harness.db.fetchone("SELECT path FROM files WHERE invoice_id = ?", (pending,)))["path"]
    assert Path(pending_file).exists() and recent


def test_the_setting_and_its_environment_override(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[retention]\ndays = 30\ninterval_minutes = 5\n")
    settings = load_settings(config, env={})
    assert (settings.retention.days, settings.retention.interval_minutes) == (30, 5)
    assert load_settings(config, env={"APPLIANCE_RETENTION_DAYS": "7"}).retention.days == 7
    assert load_settings(None, data_dir=tmp_path, env={}).retention.days == 0  # off by default


async def test_the_server_sweeps_by_itself(harness_factory, tmp_path):
    harness = await harness_factory(make_settings(tmp_path, {"retention": {"days": 30}}))
    _, headers = await harness.tenant()
    old, old_file = await approved(harness, headers, "R-1", 31)
    task = asyncio.create_task(retention.run_periodically(harness.db, harness.settings))
    try:
        for _ in range(200):
            if not old_file.exists():
                break
            await asyncio.sleep(0.05)
        assert not old_file.exists()
        assert (await harness.db.fetchone("SELECT purged_at FROM files WHERE invoice_id = ?", (old,)))[0]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    off = make_settings(tmp_path / "off")
    await asyncio.wait_for(retention.run_periodically(harness.db, off), 1)  # off: returns at once


async def test_the_cli_runs_it_on_demand(harness, tmp_path):
    config = tmp_path / "config.toml"  # the harness's
    _, headers = await harness.tenant()
    _, old_file = await approved(harness, headers, "R-1", 10)
    off = await asyncio.to_thread(cli, config, "retention", "run")
    assert off.returncode == 65 and "retention is off" in off.stderr
    dry = await asyncio.to_thread(cli, config, "retention", "run", "--days", "7", "--dry-run")
    assert dry.returncode == 0 and "would remove 1 file(s)" in dry.stdout and old_file.exists()
    done = await asyncio.to_thread(cli, config, "retention", "run", "--days", "7")
    assert done.returncode == 0, done.stderr
    assert "removed 1 file(s), " in done.stdout and "bytes freed" in done.stdout
    assert not old_file.exists() and (await retention.totals(harness.db))[0] == 1


async def test_serve_starts_the_sweeps(tmp_path):
    """``appliance serve`` runs the sweeps beside the dispatcher (server.run.serve)."""
    import socket

    from appliance.datadir import prepare_data_dir
    from appliance.db import Database
    from appliance.invoices import create_slot
    from appliance.tenants import create_tenant
    from server.run import serve

    settings = make_settings(tmp_path, {"retention": {"days": 30}, "metrics": {"enabled": False}})
    prepare_data_dir(settings)
    db = await Database(settings.db_path).open()
    tenant, _ = await create_tenant(db, "t")
    invoice_id = await create_slot(db, tenant.id)
    stored = settings.files_dir / tenant.id / "f1"
    stored.parent.mkdir(parents=True)
    stored.write_bytes(b"%PDF-1.4 old")
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO files (id, tenant_id, invoice_id, path, size, sha256, media_type, created_at) "
            "VALUES ('f1', ?, ?, ?, 12, 'x', 'application/pdf', ?)",
            (tenant.id, invoice_id, str(stored), utc_ago(0)),
        )
        await conn.execute(
            "UPDATE invoices SET status = 'approved', processing_status = 'completed', review_decision = 'approved', "
            "decided_at = ? WHERE id = ?",
            (utc_ago(31 * retention.DAY), invoice_id),
        )
    await db.close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ready, stop = asyncio.Event(), asyncio.Event()
    server = asyncio.create_task(serve(settings, "127.0.0.1", port, ready, stop))
    try:
        await asyncio.wait_for(ready.wait(), 60)
        for _ in range(200):
            if not stored.exists():
                break
            await asyncio.sleep(0.05)
        assert not stored.exists()
    finally:
        stop.set()
        await asyncio.wait_for(server, 60)
