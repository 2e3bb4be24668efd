"""Human corrections as typed values: ``field=value`` text from an operator, parsed to the type
of spec 2.9 (header fields) or 2.10 (line items).

Parsing is strict on purpose: a person typing a correction means one exact value, so amounts
are plain decimal numbers (``1234.50``, no thousands separators), dates are ISO ``YYYY-MM-DD``
and a currency is a three-letter ISO 4217 code. An empty value clears the field (null), except
a line's ``description``, which spec 2.10 requires. Pure functions; errors are BadRequest (65).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from appliance.errors import BadRequest
from pipeline.schema import AMOUNT_FIELDS, DATE_FIELDS, HEADER_FIELDS, LINE_FIELDS, LINE_NUMBER_FIELDS

NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
CURRENCY = re.compile(r"^[A-Za-z]{3}$")


def split_assignment(text: str) -> tuple[str, str]:
    """``"field=value"`` as ``(field, value)``; the value may contain ``=``. Raises BadRequest."""
    field, sep, value = text.partition("=")
    if not sep or not field.strip():
        raise BadRequest(f"expected field=value, got {text!r}")
    return field.strip(), value


def header_value(field: str, text: str) -> Any:
    """The typed value of a header field of spec 2.9. Raises BadRequest for an unknown field
    (``line_items`` and ``raw_text`` are not corrected this way) or a value of the wrong shape."""
    if field not in HEADER_FIELDS:
        raise BadRequest(
            f"unknown field {field!r}: one of {', '.join(HEADER_FIELDS)} (line items with --line N field=value)"
        )
    text = " ".join(text.split())
    if not text:
        return None
    if field in AMOUNT_FIELDS:
        return round(_number(field, text), 2)
    if field in DATE_FIELDS:
        return _iso_date(field, text)
    if field == "currency":
        if not CURRENCY.match(text):
            raise BadRequest(f"bad value for currency: {text!r} is not a three-letter ISO 4217 code")
        return text.upper()
    return text


def line_value(field: str, text: str) -> Any:
    """The typed value of a line-item field of spec 2.10. Raises BadRequest as ``header_value``."""
    if field not in LINE_FIELDS:
        raise BadRequest(f"unknown line field {field!r}: one of {', '.join(LINE_FIELDS)}")
    text = " ".join(text.split())
    if not text:
        if field == "description":
            raise BadRequest("a line's description cannot be empty (spec 2.10 requires it)")
        return None
    if field == "line_no":
        number = _number(field, text)
        if number != int(number):
            raise BadRequest(f"bad value for line_no: {text!r} is not a whole number")
        return int(number)
    if field in LINE_NUMBER_FIELDS:
        return _number(field, text)
    return text


def as_text(value: Any) -> str | None:
    """A corrected value as the evidence ``text``: None for a cleared field."""
    return None if value is None else str(value)


def _number(field: str, text: str) -> float:
    if not NUMBER.match(text):
        raise BadRequest(f"bad value for {field}: {text!r} is not a number (write 1234.50)")
    return float(text)


def _iso_date(field: str, text: str) -> str:
    try:
        if not ISO_DATE.match(text):
            raise ValueError
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise BadRequest(f"bad value for {field}: {text!r} is not an ISO date (YYYY-MM-DD)") from None
