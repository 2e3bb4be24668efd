"""The one SQLite connection of a process and its transactions (aiosqlite).

All writes of a process go through one connection, serialised by a lock, each inside
``BEGIN IMMEDIATE`` so that other processes (the CLI) wait on SQLite's busy timeout instead of
failing. Rows come back as ``sqlite3.Row``.
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import aiosqlite

BUSY_TIMEOUT_MS = 10_000


def utcnow() -> str:
    """Now as an ISO 8601 UTC timestamp with milliseconds and a ``Z`` (spec: date-time)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Database:
    """One aiosqlite connection. Use ``transaction()`` for writes and ``read()`` for reads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    async def open(self) -> Database:
        self._conn = await aiosqlite.connect(self.path, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        await self._conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        await self._conn.execute("PRAGMA foreign_keys=ON")
        await self._conn.execute("PRAGMA synchronous=NORMAL")
        return self

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

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
