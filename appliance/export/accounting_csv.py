"""The approved invoices of a period as CSV for an accounting import: two files.

``invoices.csv`` has one row per invoice (what a payables journal books: vendor, number, dates,
currency, net, VAT and total), ``lines.csv`` one row per line item, keyed by ``invoice_id`` and
``line``, and repeating the invoice's number, date, vendor and currency so that it imports on its
own too (as Xero's and QuickBooks' bill imports want one row per line with the bill's fields).
Two files, not one with a row-type column: an import maps each file's columns once, and a table
whose rows change meaning by a type column is what spreadsheet-based imports cannot read.

The period is the day of **approval** (UTC, ``from`` and ``to`` included): when an invoice
becomes exportable. Exports of consecutive periods hold every approved invoice once, an old
invoice approved late included; its ``invoice_date`` is a column for the booking period.

Format: RFC 4180 (comma, double quotes, CRLF), UTF-8, a header row. Amounts are decimal strings
with a point and at least two decimals (``1234.50``, a unit price ``0.1234`` as it is), never
rounded; quantities and VAT rates (percent) as written (``2``, ``7.5``); dates as the data has
them (ISO 8601 where they parsed). ``net_amount`` is ``total_amount - tax_amount``, empty when
either is. An empty cell is a value the invoice does not have. Text from documents is untrusted:
a text cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading ``'`` so that a
spreadsheet does not run it as a formula (OWASP "CSV injection").
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from appliance import invoices
from appliance.approved_export import approved_invoices
from appliance.db import Database
from appliance.errors import BadRequest, NotFound
from appliance.tenants import parse_uuid
from pipeline.values.money import CENT, to_amount

INVOICE_COLUMNS = (
    "invoice_id",
    "approved_at",
    "approved_by",
    "direction",
    "vendor_name",
    "vendor_tax_id",
    "vendor_address",
    "customer_name",
    "invoice_number",
    "invoice_date",
    "due_date",
    "payment_terms",
    "currency",
    "net_amount",
    "tax_amount",
    "total_amount",
    "subtotal",
    "discount",
    "shipping_cost",
    "service_charge",
    "paid_amount",
    "balance_amount",
    "line_count",
)
LINE_COLUMNS = (
    "invoice_id",
    "invoice_number",
    "invoice_date",
    "vendor_name",
    "currency",
    "line",
    "line_no",
    "sku",
    "description",
    "quantity",
    "unit",
    "unit_price",
    "discount",
    "tax_rate",
    "line_amount",
)
MONEY = {"tax_amount", "total_amount", "subtotal", "discount", "shipping_cost", "service_charge"}
MONEY |= {"paid_amount", "balance_amount", "net_amount", "unit_price", "line_amount"}
NUMBERS = {"quantity", "tax_rate", "line_no", "line", "line_count"}
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class Period:
    """Approval days ``since`` to ``until`` (ISO dates, both included; None: open)."""

    since: str | None
    until: str | None


@dataclass(frozen=True)
class CsvExport:
    """The two files' text (``invoices``, ``lines``) and how many invoices and lines they hold."""

    invoices: str
    lines: str
    invoice_count: int
    line_count: int


def period(since: str | None, until: str | None) -> Period:
    """The period of ``--from``/``--to`` (``YYYY-MM-DD``; empty or None: open). Raises
    BadRequest for a text that is not a date, or ``from`` after ``to``."""
    days = [_day(value, name) for value, name in ((since, "from"), (until, "to"))]
    if days[0] and days[1] and days[0] > days[1]:
        raise BadRequest(f"from {days[0]} is after to {days[1]}: the period would be empty")
    return Period(*days)


def _day(value: str | None, name: str) -> str | None:
    if value is None or not value.strip():
        return None
    try:
        return dt.date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        raise BadRequest(f"{name} {value!r} is not a date (YYYY-MM-DD)") from None


async def export_csv(db: Database, tenant_id: str, when: Period) -> CsvExport:
    """The tenant's invoices approved in ``when`` (``approved_invoices``) as the two CSV files.
    Raises NotFound for an unknown tenant."""
    canonical = parse_uuid(tenant_id)
    if canonical is None or await db.fetchone("SELECT 1 FROM tenants WHERE id = ?", (canonical,)) is None:
        raise NotFound(f"Tenant not found: {tenant_id}")
    rows = await approved_invoices(db, canonical, when.since, when.until)
    heads, lines = [], []
    for row in rows:
        body = await invoices.get_invoice(db, row["id"], canonical)
        data = body["data"] or {}
        items = data.get("line_items") or []
        heads.append(_invoice_row(row, body, data, len(items)))
        lines += [_line_row(body["id"], data, n, item) for n, item in enumerate(items, start=1)]
    return CsvExport(_table(INVOICE_COLUMNS, heads), _table(LINE_COLUMNS, lines), len(heads), len(lines))


def _invoice_row(row, body: dict, data: dict[str, Any], count: int) -> dict[str, Any]:
    out = {name: data.get(name) for name in INVOICE_COLUMNS if name in data}
    total, tax = to_amount(data.get("total_amount")), to_amount(data.get("tax_amount"))
    out |= {
        "invoice_id": body["id"],
        "approved_at": row["decided_at"],
        "approved_by": row["decided_by"],
        "direction": body["direction"],
        "net_amount": total - tax if total is not None and tax is not None else None,
        "line_count": count,
    }
    return out


def _line_row(invoice_id: str, data: dict[str, Any], n: int, item: dict[str, Any]) -> dict[str, Any]:
    return {
        "invoice_id": invoice_id,
        **{name: data.get(name) for name in ("invoice_number", "invoice_date", "vendor_name", "currency")},
        "line": n,
        **{name: item.get(name) for name in ("line_no", "sku", "description", "quantity", "unit", "unit_price")},
        "discount": item.get("discount"),
        "tax_rate": item.get("tax"),
        "line_amount": item.get("line_total"),
    }


def _table(columns: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)  # RFC 4180: comma, minimal quoting, CRLF
    writer.writerow(columns)
    for row in rows:
        writer.writerow([cell(name, row.get(name)) for name in columns])
    return out.getvalue()


def cell(column: str, value: Any) -> str:
    """The CSV text of ``value`` in ``column``: amounts as decimal strings (at least two
    decimals, never rounded), numbers as written, text defused against formulas; '' for None."""
    if value is None:
        return ""
    if column in MONEY or column in NUMBERS:
        number = to_amount(value)
        if number is not None:
            return _money(number) if column in MONEY else format(number.normalize(), "f")
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text


def _money(amount: Decimal) -> str:
    return str(amount.quantize(CENT)) if amount == amount.quantize(CENT) else format(amount.normalize(), "f")
