"""Vendor address of the rules extractor: the block of lines under the vendor name.

This module owns collecting address lines below (or in the sender line beside) the vendor name
and deciding where the address ends (postcode and city, a phone, a tax id, another label).
Pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re

from pipeline.rules.labels import COUNTRY_RE, EMAIL_RE, PHONE_RE, POSTCODE_RE
from pipeline.rules.layout import TextLine, block_below, find_labels, strip_label_prefix
from pipeline.values.parsers import find_dates

_ADDRESS_LABEL_RE = re.compile(
    r"^\s*(?:anschrift|address|adresse|adres|direcci[oó]n|indirizzo|alamat|地址)\s*:\s*", re.I
)


def find_address(lines: list[TextLine], vendor_line: TextLine, x0: float) -> tuple[str, TextLine] | None:
    """The vendor's address: an "Address:" row of the vendor block, else the block under its name."""
    labelled = _labelled_address(lines, vendor_line)
    if labelled:
        return labelled
    parts, last_line = [], None
    centre = None
    block = _centred_below(lines, vendor_line) if vendor_line.ocr else block_below(lines, vendor_line, x0, 7)
    for position, (other, text, _box) in enumerate(block):
        value, _ = strip_label_prefix(other, 0, text)
        value = value.strip(" ,")
        if (
            EMAIL_RE.search(value)
            or PHONE_RE.search(value)
            or find_dates(value, loose=True)
            or re.search(
                r"gst|vat|tax|steuer|ust|tva|btw|kvk|invoice|factuur|facture|receipt|^[\d\s()+/-]{7,}$", value, re.I
            )
        ):
            break
        if (
            re.match(r"^\W*(?:co\.?|company|conpany|br|reg|roc|business)\W*(?:reg|no|rfg)?", value, re.I)
            and re.search(r"\d", value)
            or re.fullmatch(r"\(.*\d.*\)", value)
        ):
            if not parts:
                continue
            break
        if any(
            lb.kind not in ("invoice_number", "vendor_tax_id", "tax_amount") for lb in find_labels(value, other)
        ) and not POSTCODE_RE.search(value):
            break
        parts.append(value)
        last_line = other
        if (
            (len(parts) >= 2 or other.ocr)
            and POSTCODE_RE.search(value)
            and not re.search(r"\(", value)
            and not _postcode_follows(block[position + 1 : position + 2])
        ):
            centre = len(parts)
            break
    if centre is not None:
        # One trailing line without digits (a state or a branch in brackets) still belongs.
        nxt = block_below(lines, last_line, x0, 1) if last_line else []
        if (
            nxt
            and not re.search(r"\d|tel|fax|gst", nxt[0][1], re.I)
            and len(nxt[0][1]) < 40
            and not COUNTRY_RE.match(nxt[0][1])
        ):
            parts.append(nxt[0][1].strip())
    if not parts:
        return None
    return ", ".join(parts), last_line


def _postcode_follows(following: list[tuple[TextLine, str, tuple]]) -> bool:
    """Whether the next block line starts with a postcode and a city ("40150 SHAH ALAM"): then
    a lot number that looked like one ("PT17920,SEKSYEN") does not end the address."""
    return (
        bool(following)
        and bool(re.match(r"^\W*\d{4,6}\s*,?\s*[A-Za-z]", following[0][1]))
        and bool(POSTCODE_RE.search(following[0][1]))
    )


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


def _labelled_address(lines: list[TextLine], vendor_line: TextLine) -> tuple[str, TextLine] | None:
    """An "Anschrift:/Address:" row in the few lines after the vendor name (before any customer
    label): its value plus the lines below aligned with that value, up to the postcode line."""
    after = [ln for ln in lines if ln.page == vendor_line.page and ln.bbox[1] >= vendor_line.bbox[1]][:7]
    for line in after:
        if line is not vendor_line and any(lb.kind == "customer" for lb in line.labels):
            return None
        match = _ADDRESS_LABEL_RE.match(line.text)
        if not match or not line.text[match.end() :].strip():
            continue
        x = line.span_bbox(match.end(), match.end() + 1)[0]
        parts, last = [line.text[match.end() :].strip(" ,")], line
        for cont in _aligned_below(lines, line, x, 3):
            if COUNTRY_RE.match(cont.text) or find_labels(cont.text, cont) and not POSTCODE_RE.search(cont.text):
                break
            parts.append(cont.text.strip(" ,"))
            last = cont
            if POSTCODE_RE.search(cont.text):
                break
        return ", ".join(parts), last
    return None


def _aligned_below(lines: list[TextLine], line: TextLine, x: float, depth: int) -> list[TextLine]:
    """Up to ``depth`` lines right below ``line`` (within three line heights each) starting at ``x``."""
    out, last = [], line
    for other in lines:
        if other.page != line.page or other.bbox[1] <= last.bbox[1] + 0.3 * last.height:
            continue
        if other.bbox[1] - last.bbox[3] > 3 * last.height or abs(other.bbox[0] - x) > 10 or len(out) >= depth:
            break
        out.append(other)
        last = other
    return out
