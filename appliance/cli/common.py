"""What the CLI command modules share: run one coroutine against the data dir's database.

It lives apart from ``appliance.cli.root`` so that the command modules, which ``root`` imports to
attach their commands, never import ``root`` back.
"""

from __future__ import annotations

import asyncio
import getpass
from collections.abc import Awaitable, Callable
from typing import Any

from appliance.settings import Settings


def with_db(settings: Settings, fn: Callable[[Any], Awaitable[Any]]) -> Any:
    """``fn(db)`` on the migrated database of ``settings.data_dir``, closed afterwards; returns
    its result. Raises what ``fn`` raises, and ConfigError when the data dir is unusable."""
    from appliance.datadir import prepare_data_dir
    from appliance.db import Database

    async def go() -> Any:
        prepare_data_dir(settings)
        db = await Database(settings.db_path).open()
        try:
            return await fn(db)
        finally:
            await db.close()

    return asyncio.run(go())


def operator_name() -> str:
    """Who runs the command, for the review trail: the login name, else ``operator``."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER (some containers)
        return "operator"
