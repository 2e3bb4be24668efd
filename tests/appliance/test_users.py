"""``appliance.users`` on a real SQLite file (issue 28): server-side sessions end on log-out,
expiry, disable and password reset; the lock-out counts every failure of parallel guesses."""

from __future__ import annotations

import asyncio
import time

import pytest

from appliance.tenants import create_tenant
from appliance.users import (
    LOCKOUT_FAILURES,
    LoginFailed,
    add_user,
    disable_user,
    end_session,
    log_in,
    open_session,
    reset_password,
    session_user,
)

EMAIL = "clerk@example.com"


@pytest.fixture
def db(migrated_db):
    return migrated_db


@pytest.fixture
async def user(db):
    tenant, _ = await create_tenant(db, "acme")
    return await add_user(db, tenant.id, EMAIL)


async def test_a_session_ends_on_log_out_and_not_before(db, user):
    account, _ = user
    secret, other = await open_session(db, account, 3600), await open_session(db, account, 3600)
    assert await session_user(db, secret) == account
    await end_session(db, secret)
    assert await session_user(db, secret) is None
    assert await session_user(db, other) == account  # the user's other browser stays logged in
    await end_session(db, secret)  # a second log-out of the same session changes nothing


async def test_disable_and_reset_end_every_session_of_the_user(db, user):
    account, _ = user
    first, second = await open_session(db, account, 3600), await open_session(db, account, 3600)
    await reset_password(db, EMAIL)
    assert await session_user(db, first) is None and await session_user(db, second) is None
    third = await open_session(db, account, 3600)
    await disable_user(db, EMAIL)
    assert await session_user(db, third) is None


async def test_an_expired_unknown_or_malformed_session_has_no_user(db, user):
    account, _ = user
    expired = await open_session(db, account, 0)  # ends the moment it opens
    assert await session_user(db, expired) is None
    assert await session_user(db, "never-opened") is None
    assert await session_user(db, ["not", "a", "secret"]) is None
    await open_session(db, account, 3600)  # a log-in removes expired rows on the way
    rows = await db.fetchall("SELECT expires_at FROM user_sessions")
    assert len(rows) == 1 and rows[0]["expires_at"] > time.time()


async def test_the_database_keeps_no_session_secret(db, user):
    secret = await open_session(db, user[0], 3600)
    row = await db.fetchone("SELECT id FROM user_sessions")
    assert secret not in row["id"] and len(row["id"]) == 64  # its SHA-256


async def test_parallel_wrong_passwords_all_count_and_lock_the_account(db, user):
    """Before issue 28 each attempt wrote the count it read before its ~50 ms of Argon2, so 20
    guesses in parallel counted as one and never locked the account."""
    _, password = user
    results = await asyncio.gather(*(log_in(db, EMAIL, "wrong") for _ in range(20)), return_exceptions=True)
    assert all(isinstance(result, LoginFailed) for result in results)
    row = await db.fetchone("SELECT failed_logins, locked_until FROM users")
    assert row["locked_until"] is not None and row["locked_until"] > time.time()
    assert row["failed_logins"] == 0  # the lock took the LOCKOUT_FAILURES failures; the rest did not count
    with pytest.raises(LoginFailed):
        await log_in(db, EMAIL, password)  # locked: even the right password is refused


async def test_failures_below_the_threshold_add_up_and_a_log_in_clears_them(db, user):
    _, password = user
    await asyncio.gather(*(log_in(db, EMAIL, "wrong") for _ in range(LOCKOUT_FAILURES - 1)), return_exceptions=True)
    row = await db.fetchone("SELECT failed_logins, locked_until FROM users")
    assert row["failed_logins"] == LOCKOUT_FAILURES - 1 and row["locked_until"] is None
    assert (await log_in(db, EMAIL, password)).email == EMAIL
    assert (await db.fetchone("SELECT failed_logins FROM users"))["failed_logins"] == 0


async def test_a_disabled_user_cannot_log_in_with_the_right_password(db, user):
    _, password = user
    await disable_user(db, EMAIL)
    with pytest.raises(LoginFailed):
        await log_in(db, EMAIL, password)
