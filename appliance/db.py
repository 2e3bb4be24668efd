"""The one SQLite connection of a process and its transactions (aiosqlite), and its point reads.

All writes of a process go through one connection, serialised by a lock, each inside
``BEGIN IMMEDIATE`` so that other processes (the CLI) wait on SQLite's busy timeout instead of
failing. Rows come back as ``sqlite3.Row``.

``lookup``/``lookup_all`` are for the hot reads of the API (key, invoice, balance): an indexed
read takes SQLite tens of microseconds, while a trip through aiosqlite's thread and the write
lock cost the poll endpoint most of its time (issue 12: 627 polls/s against 2,646 for a minimal
app, bench/results/api.md). They run on the event loop's own thread through a second, read-only
connection: in WAL mode a reader never waits for a writer, and each statement sees every commit
made before it, by this process or another (a key the CLI revoked is refused at the next request).
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiosqlite

from appliance.changes import InvoiceChanges

BUSY_TIMEOUT_MS = 10_000


def utcnow() -> str:
    """Now as an ISO 8601 UTC timestamp with milliseconds and a ``Z`` (spec: date-time)."""
    return utc_ago(0)


def utc_ago(seconds: float) -> str:
    """``seconds`` before now, as ``utcnow`` writes it: a cut-off to compare stored timestamps with."""
    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Database:
    """One aiosqlite connection. Use ``transaction()`` for writes and ``read()`` for reads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: aiosqlite.Connection | None = None
        self._reader: sqlite3.Connection | None = None
        self._lock = asyncio.Lock()
        self.changes = InvoiceChanges()  # long polls wait here; invoices.record_result notifies

    async def open(self) -> Database:
        self._conn = await aiosqlite.connect(self.path, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        await self._conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        await self._conn.execute("PRAGMA foreign_keys=ON")
        await self._conn.execute("PRAGMA synchronous=NORMAL")
        async with self._conn.execute("PRAGMA journal_mode") as cursor:
            wal = (await cursor.fetchone())[0] == "wal"
        if wal:  # without WAL a reader could wait for a writer, on the event loop: lookups take the thread
            uri = self.path.resolve().as_uri() + "?mode=ro"
            self._reader = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            self._reader.row_factory = sqlite3.Row
            self._reader.execute("PRAGMA busy_timeout=0")  # busy: take the thread instead (lookup)
        return self

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    def _read_now(self, sql: str, params, many: bool):
        """Run a read on the read-only connection, here and now; None when SQLite says busy."""
        try:
            cursor = self._reader.execute(sql, params)
            try:
                return cursor.fetchall() if many else [cursor.fetchone()]
            finally:
                cursor.close()  # ends the statement's read snapshot at once
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return None
            raise

    async def lookup(self, sql: str, params=()) -> sqlite3.Row | None:
        """One row of an indexed read (a primary key or unique index: microseconds), on the event
        loop's thread (module docstring); through aiosqlite like ``fetchone`` when there is no
        read-only connection (no WAL) or SQLite reports busy. Never for scans or aggregates."""
        if self._reader is not None:
            rows = self._read_now(sql, params, many=False)
            if rows is not None:
                return rows[0]
        return await self.fetchone(sql, params)

    async def lookup_all(self, sql: str, params=()) -> list[sqlite3.Row]:
        """The rows of an indexed read (a few rows by an index), as ``lookup``."""
        if self._reader is not None:
            rows = self._read_now(sql, params, many=True)
            if rows is not None:
                return rows
        return await self.fetchall(sql, params)

    @asynccontextmanager
    async def transaction(self):
        """``BEGIN IMMEDIATE`` … ``COMMIT``; rolls back on any exception and re-raises it."""
        async with self._lock:
            conn = self._conn
            assert conn is not None, "Database.open() was not awaited"
            await conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                await conn.execute("ROLLBACK")
                raise
            await conn.execute("COMMIT")

    @asynccontextmanager
    async def read(self):
        """The connection for reads, serialised with writes so a read never sees half a transaction."""
        async with self._lock:
            assert self._conn is not None, "Database.open() was not awaited"
            yield self._conn

    async def fetchone(self, sql: str, params=()) -> sqlite3.Row | None:
        async with self.read() as conn:
            async with conn.execute(sql, params) as cursor:
                return await cursor.fetchone()

    async def fetchall(self, sql: str, params=()) -> list[sqlite3.Row]:
        async with self.read() as conn:
            async with conn.execute(sql, params) as cursor:
                return list(await cursor.fetchall())


async def fetchone(conn, sql: str, params=()) -> sqlite3.Row | None:
    """One row from ``conn`` inside a transaction."""
    async with conn.execute(sql, params) as cursor:
        return await cursor.fetchone()
