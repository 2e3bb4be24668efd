"""Tenants of an appliance a benchmark starts, made through its CLI."""

from __future__ import annotations

import json
from pathlib import Path

from bench.server import cli


def create_tenant(config: Path, name: str, credits: int, what: str | None = None) -> str:
    """``appliance tenant create`` with ``credits``; returns its API key. SystemExit naming
    ``what`` (default: the NAME tenant) when the CLI fails."""
    made = cli(config, "tenant", "create", "--name", name, "--credits", str(credits), "--json")
    if made.returncode != 0:
        raise SystemExit(f"cannot create {what or f'the {name} tenant'}: {made.stderr[-2000:]}")
    return json.loads(made.stdout.strip().splitlines()[-1])["apiKey"]
