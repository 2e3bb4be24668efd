"""``appliance config show``: the effective settings, each with where its value came from
(``default``, ``file PATH``, ``env NAME``, ``--data-dir``), secrets masked.

Owns only the presentation; the values and their origins come from
``appliance.settings.load_settings_with_origins``, the same parsing the server uses. Must not
import ``api``.
"""

from __future__ import annotations

import json
from typing import Any

from appliance.settings import SECRETS, SECTIONS, Settings

MASK = "********"  # the same for every secret: its length would say something about it
MAX_ALIGN = 60  # characters; origins of longer lines are not aligned


def effective(settings: Settings, origins: dict[str, str]) -> list[dict[str, Any]]:
    """``[{key, value, origin}]``, ``data_dir`` first, then ``section.key`` in declaration order.
    A secret that is set shows as MASK; an empty one stays empty (so "not set" is visible)."""
    rows = [{"key": "data_dir", "value": str(settings.data_dir), "origin": origins.get("data_dir", "default")}]
    for section in SECTIONS:
        values = getattr(settings, section).model_dump()  # credits.packages: a list of dicts
        for name, value in values.items():
            if (section, name) in SECRETS and value:
                value = MASK
            elif isinstance(value, tuple):
                value = list(value)
            key = f"{section}.{name}"
            rows.append({"key": key, "value": value, "origin": origins.get(key, "default")})
    return rows


def render(rows: list[dict[str, Any]]) -> list[str]:
    """One ``key = value  # origin`` line per setting, values in TOML-like notation."""
    cells = [(f"{row['key']} = {_toml(row['value'])}", row["origin"]) for row in rows]
    width = min(MAX_ALIGN, max(len(text) for text, _ in cells))  # a long list must not push every comment right
    return [f"{text.ljust(width)}  # {origin}" for text, origin in cells]


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return (
            "[" + ", ".join("{" + ", ".join(f"{k} = {_toml(v)}" for k, v in item.items()) + "}" for item in value) + "]"
        )
    return str(value)
