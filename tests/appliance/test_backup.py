"""``appliance backup`` / ``restore``: a snapshot taken while the server writes restores into a new
data dir with the same invoices, ledger and files, and the restored appliance serves them."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import tarfile
from pathlib import Path

import pytest

from appliance.backup import backup, restore
from appliance.datadir import lock_data_dir
from appliance.errors import BadRequest, ConfigError
from bench.server import cli
from tests.conftest import FAKE_MODELS, make_settings, write_config
from tests.support.docs import INVOICE_LINES, png_with_text, text_pdf


def table(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


INVOICES = "SELECT id, tenant_id, status, processing_status, data_json FROM invoices ORDER BY id"
LEDGER = "SELECT id, tenant_id, delta, reason, invoice_id FROM ledger ORDER BY id"


async def test_backup_while_serving_then_restore_elsewhere(harness, harness_factory, tmp_path):
    _, headers = await harness.tenant(credits=20)
    first = []
    for n in range(3):
        response = await harness.upload(headers, text_pdf(INVOICE_LINES), filename=f"a{n}.pdf")
        first.append((await response.json())["invoice"]["id"])
    for invoice_id in first:
        await harness.wait_ready(headers, invoice_id)

    async def keep_uploading():
        for n in range(6):
            await harness.upload(
                headers, png_with_text(f"Total {n}.50"), filename=f"b{n}.png", content_type="image/png"
            )
            await asyncio.sleep(0.01)

    archive = tmp_path / "backups" / "snap.tar.gz"
    writer = asyncio.create_task(keep_uploading())
    await asyncio.sleep(0.02)
    # In a thread, so the server keeps accepting uploads and writing results during the snapshot.
    summary = await asyncio.to_thread(backup, harness.settings, archive)
    await writer
    assert summary.counts["invoices"] >= 3 and summary.files == summary.counts["files"]
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "./manifest.json" in names and "./appliance.db" in names

    target = make_settings(tmp_path / "elsewhere")
    restored = restore(target, archive)
    assert restored.counts == summary.counts
    snap_invoices = table(target.db_path, INVOICES)
    snap_ledger = table(target.db_path, LEDGER)
    assert len(snap_invoices) == summary.counts["invoices"]
    # The snapshot is a point in time of the source: every row it has is the source's row
    # (results written after it may differ, so compare the first, finished invoices exactly).
    source_invoices = {row[0]: row for row in table(harness.settings.db_path, INVOICES)}
    for row in snap_invoices:
        assert row[0] in source_invoices
        if row[0] in first:
            assert row == source_invoices[row[0]]
    source_ledger = table(harness.settings.db_path, LEDGER)
    assert snap_ledger == source_ledger[: len(snap_ledger)]
    # Files are where the new data dir says, with their recorded content.
    for path, sha256 in table(target.db_path, "SELECT path, sha256 FROM files"):
        assert Path(path).parent.parent == target.files_dir
        assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == sha256

    # The restored appliance serves the same invoice to the same key.
    served = await harness_factory(target)
    again = await served.client.get(f"/api/v1/invoices/{first[0]}", headers=headers)
    assert again.status == 200
    original = await harness.client.get(f"/api/v1/invoices/{first[0]}", headers=headers)
    assert (await again.json())["data"] == (await original.json())["data"]


async def test_directory_backup_restores_exactly_and_guards(harness, tmp_path):
    _, headers = await harness.tenant(credits=5)
    response = await harness.upload(headers, png_with_text("Total 9.99"), filename="x.png", content_type="image/png")
    await harness.wait_ready(headers, (await response.json())["invoice"]["id"])
    folder = tmp_path / "snap-dir"
    backup(harness.settings, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format"] == "invoice-appliance-backup/1" and len(manifest["files"]) == 1
    assert "models" not in {p.name for p in folder.iterdir()}
    with pytest.raises(BadRequest):
        backup(harness.settings, folder)  # never overwrites

    target = make_settings(tmp_path / "new")
    target.data_dir.mkdir(parents=True)
    held = lock_data_dir(target)  # a server running on the target
    try:
        with pytest.raises(ConfigError, match="already serving"):
            restore(target, folder)
    finally:
        held.close()
    restore(target, folder)
    assert table(target.db_path, INVOICES) == table(harness.settings.db_path, INVOICES)
    assert table(target.db_path, LEDGER) == table(harness.settings.db_path, LEDGER)
    with pytest.raises(BadRequest, match="--force"):
        restore(target, folder)
    restore(target, folder, force=True)  # replaces, and the files dir is swapped whole
    assert len([p for p in target.files_dir.rglob("*") if p.is_file()]) == 1

    (folder / manifest["files"][0]["path"]).write_bytes(b"tampered")
    with pytest.raises(BadRequest, match="SHA-256"):
        restore(target, folder, force=True)


def test_cli_backup_and_restore(tmp_path):
    config = write_config(tmp_path / "src", FAKE_MODELS)
    created = cli(config, "tenant", "create", "--name", "cli", "--credits", "7")
    assert created.returncode == 0, created.stderr
    made = cli(config, "backup", str(tmp_path / "b.tar.gz"))
    assert made.returncode == 0, made.stderr
    assert "0 invoice(s)" in made.stdout
    target = write_config(tmp_path / "dst", FAKE_MODELS)
    done = cli(target, "restore", str(tmp_path / "b.tar.gz"))
    assert done.returncode == 0, done.stderr
    assert table(tmp_path / "dst" / "data" / "appliance.db", "SELECT balance FROM tenants") == [(7,)]
    refused = cli(target, "restore", str(tmp_path / "b.tar.gz"))
    assert refused.returncode == 65 and "--force" in refused.stderr
