"""Vendor address of the rules extractor: the block of lines under the vendor name.

This module owns collecting address lines below (or in the sender line beside) the vendor name
and deciding where the address ends (postcode and city, a phone, a tax id, another label).
Pipeline must not import ``api`` or ``appliance``.
"""
from __future__ import annotations

import re

from pipeline.parsers import find_dates
from pipeline.rules_labels import EMAIL_RE, PHONE_RE, POSTCODE_RE
from pipeline.rules_layout import TextLine, block_below, find_labels, strip_label_prefix


def find_address(lines: list[TextLine], vendor_line: TextLine, x0: float) -> tuple[str, TextLine] | None:
    parts, last_line = [], None
    centre = None
    block = _centred_below(lines, vendor_line) if vendor_line.ocr else block_below(lines, vendor_line, x0, 7)
    for other, text, box in block:
        value, _ = strip_label_prefix(other, 0, text)
        value = value.strip(" ,")
        if EMAIL_RE.search(value) or PHONE_RE.search(value) or find_dates(value, loose=True) or re.search(
                r"gst|vat|tax|steuer|ust|tva|btw|kvk|invoice|factuur|facture|receipt|^[\d\s()+/-]{7,}$", value, re.I):
            break
        if re.match(r"^\W*(?:co\.?|company|conpany|br|reg|roc|business)\W*(?:reg|no|rfg)?", value, re.I) and \
                re.search(r"\d", value) or re.fullmatch(r"\(.*\d.*\)", value):
            if not parts:
                continue
            break
        if any(lb.kind not in ("invoice_number", "vendor_tax_id", "tax_amount") for lb in find_labels(value, other)) \
                and not POSTCODE_RE.search(value):
            break
        parts.append(value)
        last_line = other
        if (len(parts) >= 2 or other.ocr) and POSTCODE_RE.search(value) and not re.search(r"\(", value):
            centre = len(parts)
            break
    if centre is not None:
        # One trailing line without digits (a state or a branch in brackets) still belongs.
        nxt = block_below(lines, last_line, x0, 1) if last_line else []
        if nxt and not re.search(r"\d|tel|fax|gst", nxt[0][1], re.I) and len(nxt[0][1]) < 40:
            parts.append(nxt[0][1].strip())
    if not parts:
        return None
    return ", ".join(parts), last_line


def _centred_below(lines: list[TextLine], line: TextLine) -> list[tuple[TextLine, str, tuple]]:
    """Receipts centre their header: the lines below that overlap the name's column."""
    out, last = [], line
    for other in lines:
        if other.page != line.page or other.bbox[1] <= last.bbox[1] + 0.3 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > 1.8 * max(last.height, other.height) or len(out) >= 7:
            break
        out.append((other, other.text, other.bbox))
        last = other
    return out
