"""The data dir: its folders and database made or migrated, and the lock that lets one server
own it (``appliance init``, ``serve``, ``backup``/``restore`` and every CLI command that opens
the database). Lives apart from ``server.run`` so that none of those imports the web
server to make a folder. Must not import ``api``.
"""

from __future__ import annotations

import fcntl
import os
from typing import IO

from appliance.errors import ConfigError
from appliance.migrations import migrate
from appliance.settings import Settings


def prepare_data_dir(settings: Settings) -> list[str]:
    """Create the data dir and its folders and migrate the database (``appliance init``); idempotent.

    Returns the migration steps applied now. Raises ConfigError when the dir is not writable.
    """
    try:
        for folder in (settings.data_dir, settings.files_dir, settings.models_dir):
            folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the data dir {settings.data_dir}: {exc}") from exc
    if not os.access(settings.data_dir, os.W_OK):
        raise ConfigError(f"the data dir {settings.data_dir} is not writable by this user")
    return migrate(settings.db_path)


def lock_data_dir(settings: Settings) -> IO[str]:
    """Hold an exclusive lock on ``<data_dir>/serve.lock``: one server per data dir, since the
    dispatcher treats leases of other processes as dead. Returns the open lock file (closing it
    releases the lock). Raises ConfigError when held elsewhere."""
    handle = open(settings.data_dir / "serve.lock", "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        handle.close()
        raise ConfigError(f"another appliance is already serving {settings.data_dir}") from exc
    return handle
