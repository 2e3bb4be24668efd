"""Line items of the rules extractor: tables found by their header row, read by columns.

This module owns detecting a table header (description, quantity, price, amount columns in
many languages), grouping the lines below it into rows and reading each row's cells by the
header's column positions. Pipeline must not import ``api`` or ``appliance``.
"""
from __future__ import annotations

import re

from pipeline.rules_layout import TextLine


_COLS = {
    "description": r"description|desc\.?|item|article|artikel|omschrijving|beschreibung|bezeichnung|d[ée]signation"
                   r"|product(?:\s*title)?|produkt|libell[ée]|descripci[oó]n|concepto|leistung|品\s*名|项\s*目|รายการ",
    "quantity": r"qty\.?|quantity|menge|aantal|hoeveelheid|quantit[ée]|nombre|cantidad|anzahl|stk|数\s*量|จำนวน",
    "unit_price": r"unit\s*price|u\.?\s*price|s/price|price|rate|prijs(?:\s*per\s*stuk)?|preis|einzelpreis|nettopreis"
                  r"|p\.?\s*u\.?(?:\s*ht)?|prix(?:\s*unitaire)?|precio|vk-preis|单\s*价|ราคา(?:ต่อหน่วย)?",
    "line_total": r"amount|amt|total|line\s*total|bedrag|betrag|gesamt|nettobetrag|zeilenbetrag|montant(?:\s*ht)?"
                  r"|importe|金\s*额|จำนวนเงิน|prijs\s*incl\.?\s*btw|summe",
    "tax": r"tax(?:\s*\(%\))?|vat|btw|mwst|tva|steuersatz|iva|税\s*率|%",
}


_COL_RES = {k: re.compile(rf"(?<![a-z])(?:{v})(?![a-z])", re.I) for k, v in _COLS.items()}


_STOP_RE = re.compile(r"(?<![a-z])(?:sub\s*-?\s*total|total|totaal|summe|gesamt|montant\s*total|total\s*ht|subtotaal"
                      r"|zwischensumme|合\s*计|รวม|exclusief|tax\s*summary|gst\s*summary|umsatzsteuer)", re.I)


def _header_columns(line: TextLine) -> dict[str, tuple] | None:
    cols = {}
    for kind, pattern in _COL_RES.items():
        for match in pattern.finditer(line.text):
            if kind not in cols:
                cols[kind] = line.span_bbox(match.start(), match.end())
    numeric = {k for k in cols if k in ("quantity", "unit_price", "line_total")}
    if len(numeric) >= 2 and ("description" in cols or len(numeric) == 3) and len(line.text) < 200:
        return cols
    return None


def find_line_items(lines: list[TextLine]) -> list[dict]:
    items: list[dict] = []
    index = 0
    while index < len(lines):
        cols = _header_columns(lines[index])
        if cols is None:
            index += 1
            continue
        header = lines[index]
        rows, index = _table_rows(lines, index + 1, header)
        items.extend(_parse_row(row, cols, header) for row in rows)
    items = [it for it in items if it is not None]
    for number, item in enumerate(items, 1):
        item["line_no"] = number
    return items


def _table_rows(lines: list[TextLine], start: int, header: TextLine) -> tuple[list[list[TextLine]], int]:
    """Group lines under a header into rows: a row is a line with an amount at the right plus
    the amount-free lines that follow it (continuation of the description)."""
    rows: list[list[TextLine]] = []
    index = start
    last_y = header.bbox[3]
    while index < len(lines):
        line = lines[index]
        if line.page != header.page or _header_columns(line):
            break
        if _STOP_RE.search(line.text[:40]) and rows or line.bbox[1] - last_y > 8 * header.height:
            break
        right_amount = [a for a in line.amounts if line.span_bbox(a.start, a.end)[2] > header.bbox[2] - 0.25
                        * (header.bbox[2] - header.bbox[0]) and a.decimals]
        if right_amount and len(re.sub(r"[\W\d_]", "", line.text)) >= 2:
            rows.append([line])
        elif right_amount and rows and len(rows[-1]) == 1 and not _row_has_total(rows[-1][0], header):
            rows[-1].append(line)  # the amount printed on the line below the description
        last_y = line.bbox[3]
        index += 1
    return rows, index


def _row_has_total(line: TextLine, header: TextLine) -> bool:
    return any(line.span_bbox(a.start, a.end)[2] > header.bbox[2] - 15 for a in line.amounts if a.decimals)


def _parse_row(row: list[TextLine], cols: dict[str, tuple], header: TextLine) -> dict | None:
    first = row[0]
    numbers = []
    for line in row:
        for amount in line.amounts:
            numbers.append((line.span_bbox(amount.start, amount.end), amount, line))
    if not numbers:
        return None
    item = {k: None for k in ("description", "line_no", "sku", "quantity", "unit", "unit_price", "discount",
                              "tax", "line_total")}
    total_box, total_amt, _ = max(numbers, key=lambda n: (n[0][2], n[0][1]))
    item["line_total"] = total_amt.value
    used = {id(total_amt)}
    for kind in ("unit_price", "quantity"):
        if kind not in cols:
            continue
        col = cols[kind]
        near = [n for n in numbers if id(n[1]) not in used and n[0][0] <= col[2] + 25 and n[0][2] >= col[0] - 25]
        if near:
            pick = min(near, key=lambda n: abs((n[0][0] + n[0][2]) / 2 - (col[0] + col[2]) / 2))
            item[kind] = pick[1].value
            used.add(id(pick[1]))
    rate = re.search(r"(\d{1,2}(?:[.,]\d{1,2})?)\s?%", " ".join(line.text for line in row))
    if rate:
        item["tax"] = float(rate.group(1).replace(",", "."))
    # Numbers inside a description ("16 GB") stay in it: the description column ends where
    # the first numeric column of the header begins.
    numeric_cols = [cols[k][0] for k in ("quantity", "unit_price", "line_total", "tax") if k in cols]
    limit = min(numeric_cols) - 5 if numeric_cols else first.bbox[2]
    if "description" in cols and cols["description"][0] >= limit:
        limit = first.bbox[2]
    first_num_x = min((n[0][0] for n in numbers if n[2] is first), default=first.bbox[2])
    limit = max(limit, min(first_num_x, limit)) if numeric_cols else first_num_x
    ends = [e for s, e, b in first.spans if b[2] <= limit + 2]
    desc = first.text[:max(ends)] if ends else ""
    desc = re.sub(r"^\s*\d{1,3}\s+(?=\S)", "", desc)  # position number
    sku = re.match(r"^\s*(\[[^\]]+\]|[A-Z0-9][A-Z0-9_\-/.]{2,}\d[A-Z0-9_\-/.]*)\s+", desc)
    if sku and re.search(r"\d", sku.group(1)):
        item["sku"] = sku.group(1).strip("[]").strip()
        desc = desc[sku.end():]
    item["description"] = " ".join(desc.split()).strip(" -:") or None
    if item["quantity"] is None and item["unit_price"] and item["line_total"] and item["unit_price"]:
        qty = item["line_total"] / item["unit_price"]
        if abs(qty - round(qty)) < 1e-6 and 0 < qty < 10000:
            item["quantity"] = float(round(qty))
    return item if item["description"] else None
