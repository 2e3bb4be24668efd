"""Normalisation into schema 2.9: ISO dates, amounts as Decimal to the cent, ISO 4217 currency,
stripped strings, every key present (null where empty), ``raw_text`` filled. Line items keep
their numbers as printed (Decimal; an int stays an int). Amounts become JSON numbers only at
the edge (``pipeline.values.money.to_json``)."""

from __future__ import annotations

from typing import Any

from pipeline.schema import AMOUNT_FIELDS, DATE_FIELDS, HEADER_FIELDS, LINE_FIELDS, LINE_NUMBER_FIELDS
from pipeline.values.money import cents, is_amount, to_amount
from pipeline.values.parsers import detect_currency, parse_amount, parse_date


def value(name: str, raw: Any) -> Any:
    """One header value in its schema type, or None when it cannot be read as one."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if name in AMOUNT_FIELDS:
        amount = _number(raw)
        return cents(amount) if amount is not None else None
    if name in DATE_FIELDS:
        return parse_date(str(raw))
    if name == "currency":
        return detect_currency(str(raw))
    text = " ".join(str(raw).split())
    return text or None


def fields(raw: dict[str, Any]) -> dict[str, Any]:
    """Normalise a partial header dict; drops keys it does not know and values it cannot read."""
    out = {}
    for name, item in raw.items():
        if name in HEADER_FIELDS:
            normal = value(name, item)
            if normal is not None:
                out[name] = normal
    return out


def line_item(raw: dict[str, Any]) -> dict[str, Any] | None:
    """A line item (spec 2.10) with every key; None when it has no description."""
    item = {key: raw.get(key) for key in LINE_FIELDS}
    for key in LINE_NUMBER_FIELDS:
        if item[key] is not None and not (isinstance(item[key], int) and not isinstance(item[key], bool)):
            item[key] = _number(item[key])
    if not item["description"] or not str(item["description"]).strip():
        return None
    item["description"] = " ".join(str(item["description"]).split())
    return item


def _number(raw: Any):
    """A number of ``data`` as Decimal: a number as it is, a printed amount parsed; None for a bool."""
    if isinstance(raw, bool):
        return None
    return to_amount(raw) if is_amount(raw) else parse_amount(str(raw))


def data(header: dict[str, Any], lines: list[dict[str, Any]], raw_text: str) -> dict[str, Any]:
    """The full ``data`` object of spec 2.9."""
    out: dict[str, Any] = {name: None for name in HEADER_FIELDS}
    out.update(fields(header))
    items = [item for item in (line_item(line) for line in lines) if item is not None]
    out["line_items"] = items
    out["raw_text"] = raw_text
    return out
