"""Backup and restore of a data dir: the database, the uploaded files and a manifest.

A backup is a directory, or the same directory packed as ``.tar.gz``::

    manifest.json          format, time, migrations, row counts, every file with size and SHA-256
    appliance.db           a consistent snapshot (SQLite's online backup API; the server keeps writing)
    files/<tenant>/<id>    the uploads the snapshot refers to

The database is snapshotted first and then exactly the files its ``files`` table names are
copied: a file is renamed into place before the transaction that records it commits, so every
file of the snapshot exists. ``models/`` is left out (weights come back from their package or
the configured path), as are ``serve.lock`` and partial uploads.

Restore refuses while a server holds ``<data_dir>/serve.lock`` and holds that lock itself, so no
server starts half-way. It rewrites ``files.path`` for the new data dir and migrates.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tarfile
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from appliance.db import BUSY_TIMEOUT_MS, utcnow
from appliance.errors import BadRequest, NotFound
from appliance.settings import Settings

FORMAT = "invoice-appliance-backup/1"
DB_NAME = "appliance.db"
COUNTED = ("tenants", "api_keys", "ledger", "invoices", "files", "jobs", "vendors", "purchases")


@dataclass(frozen=True)
class Summary:
    """What a backup or restore covered: where, row counts per table, files and their bytes."""

    path: Path
    counts: dict[str, int]
    files: int
    bytes: int


def backup(settings: Settings, dest: Path) -> Summary:
    """Write a backup of ``settings.data_dir`` to ``dest`` (a new directory, or ``*.tar.gz``).

    Safe while a server runs. Raises NotFound when there is no database, BadRequest when
    ``dest`` exists (never overwritten), OSError on disk errors (a partial ``dest`` is removed).
    """
    dest = Path(dest)
    if not settings.db_path.is_file():
        raise NotFound(f"no database at {settings.db_path}: nothing to back up")
    if dest.exists():
        raise BadRequest(f"{dest} exists: choose a new path (a backup never overwrites)")
    packed = dest.name.endswith(".tar.gz")
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Build beside the destination, then rename: a crash never leaves something that looks whole.
    work = Path(tempfile.mkdtemp(prefix=".backup-", dir=dest.parent))
    try:
        folder = work / "backup"
        folder.mkdir()
        manifest = _write_backup(settings, folder)
        if packed:
            with tarfile.open(work / "backup.tar.gz", "w:gz") as tar:
                tar.add(folder, arcname=".")
            os.replace(work / "backup.tar.gz", dest)
        else:
            os.replace(folder, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _summary(dest, manifest)


def _write_backup(settings: Settings, folder: Path) -> dict:
    snapshot = folder / DB_NAME
    _snapshot_db(settings.db_path, snapshot)
    files = []
    with _connect(snapshot) as conn:
        rows = conn.execute("SELECT id, tenant_id, path, size, sha256 FROM files ORDER BY id").fetchall()
        counts = _counts(conn)
        applied = _applied(conn)
    for file_id, tenant_id, path, size, sha256 in rows:
        relative = f"files/{tenant_id}/{file_id}"
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copy2(path, target)
        except FileNotFoundError:
            # Recorded but gone (removed by hand): the backup says so instead of failing.
            files.append({"path": relative, "size": size, "sha256": sha256, "missing": True})
            continue
        files.append({"path": relative, "size": size, "sha256": sha256})
    manifest = {
        "format": FORMAT,
        "created_at": utcnow(),
        "source_data_dir": str(settings.data_dir),
        "migrations": applied,
        "counts": counts,
        "database_sha256": _sha256(snapshot),
        "files": files,
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def _snapshot_db(source: Path, target: Path) -> None:
    """Copy a live database with SQLite's online backup API (one step: a consistent read snapshot)."""
    src = sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)  # pages=-1: all at once, so the copy is one point in time even under WAL
            problem = dst.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            dst.close()
    finally:
        src.close()
    if problem != "ok":
        raise OSError(f"the database snapshot fails SQLite's quick_check: {problem}")


def restore(settings: Settings, source: Path, *, force: bool = False) -> Summary:
    """Restore a backup (directory or ``.tar.gz``) into ``settings.data_dir``, then migrate it.

    Raises ConfigError while a server holds the data dir, BadRequest for something that is not
    a backup, a file whose SHA-256 does not match, or an existing database without ``force``;
    NotFound when ``source`` does not exist.
    """
    from appliance.datadir import lock_data_dir, prepare_data_dir

    source = Path(source)
    if not source.exists():
        raise NotFound(f"{source} does not exist")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    lock = lock_data_dir(settings)  # ConfigError when a server runs on this data dir
    try:
        if settings.db_path.exists() and not force:
            raise BadRequest(f"{settings.db_path} exists: pass --force to replace it with the backup")
        with _unpacked(source) as folder:
            manifest = _read_manifest(folder)
            _verify(folder, manifest)
            _install(settings, folder, manifest)
        prepare_data_dir(settings)  # a backup of an older version gets the newer migrations
    finally:
        lock.close()
    return _summary(source, manifest)


@contextmanager
def _unpacked(source: Path):
    if source.is_dir():
        yield source
        return
    with tempfile.TemporaryDirectory(prefix="restore-") as tmp:
        try:
            with tarfile.open(source, "r:*") as tar:
                tar.extractall(tmp, filter="data")  # no absolute paths, links out or devices
        except (tarfile.TarError, OSError) as exc:
            raise BadRequest(f"{source} is not a readable backup archive: {exc}") from exc
        yield Path(tmp)


def _read_manifest(folder: Path) -> dict:
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise BadRequest(f"{folder} has no readable manifest.json: is it an appliance backup?") from exc
    if manifest.get("format") != FORMAT:
        raise BadRequest(f"unknown backup format {manifest.get('format')!r} (this version reads {FORMAT})")
    return manifest


def _verify(folder: Path, manifest: dict) -> None:
    """Check the database and every file against the manifest before touching the data dir."""
    if _sha256(folder / DB_NAME) != manifest["database_sha256"]:
        raise BadRequest("the backup's database does not match its manifest (damaged copy?)")
    for entry in manifest["files"]:
        if entry.get("missing"):
            continue
        if _sha256(folder / entry["path"]) != entry["sha256"]:
            raise BadRequest(f"{entry['path']} does not match its SHA-256 in the manifest (damaged copy?)")


def _install(settings: Settings, folder: Path, manifest: dict) -> None:
    """Copy db and files in, each swapped into place by rename, and point ``files.path`` here."""
    staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=settings.data_dir))
    try:
        db = staging / DB_NAME
        shutil.copy2(folder / DB_NAME, db)
        with _connect(db) as conn:
            conn.execute("UPDATE files SET path = ? || '/' || tenant_id || '/' || id", (str(settings.files_dir),))
        new = staging / "new"
        (new / "files").mkdir(parents=True)
        for entry in manifest["files"]:
            if not entry.get("missing"):
                (new / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(folder / entry["path"], new / entry["path"])
        _match_owner(settings.data_dir, [db, new])
        # An old -wal beside the new database would be replayed into it: remove before the swap.
        for suffix in ("-wal", "-shm"):
            Path(f"{settings.db_path}{suffix}").unlink(missing_ok=True)
        os.replace(db, settings.db_path)
        if settings.files_dir.exists():
            os.replace(settings.files_dir, staging / "files.old")
        os.replace(new / "files", settings.files_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _match_owner(data_dir: Path, paths: list[Path]) -> None:
    """Run as root (``sudo appliance restore``), give what was restored to the data dir's owner,
    or the service user could not write its own database."""
    if os.geteuid() != 0:
        return
    owner = data_dir.stat()
    for top in paths:
        for path in [top, *top.rglob("*")]:
            os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)


@contextmanager
def _connect(path: Path):
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


def _counts(conn: sqlite3.Connection) -> dict[str, int]:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {
        name: conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]  # names from COUNTED only
        for name in COUNTED
        if name in tables
    }


def _applied(conn: sqlite3.Connection) -> list[str]:
    try:
        return [row[0] for row in conn.execute("SELECT name FROM _sqlite_migrations ORDER BY rowid")]
    except sqlite3.OperationalError:  # no migration table: a database of another layout
        return []


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1024 * 1024), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _summary(path: Path, manifest: dict) -> Summary:
    present = [f for f in manifest["files"] if not f.get("missing")]
    return Summary(path, manifest["counts"], len(present), sum(f["size"] for f in present))
