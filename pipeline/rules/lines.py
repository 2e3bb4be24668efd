"""Line items of the rules extractor: tables found by their header row, read by columns.

This module owns detecting a table header (description, quantity, price, amount columns in
many languages), grouping the lines below it into rows and reading each row's cells by the
header's column positions. Pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from pipeline.rules.layout import TextLine, cell_amounts
from pipeline.values.money import agree
from pipeline.values.parsers import thai_variants

_COLS = {
    "description": r"description|desc\.?|item|article|artikel|omschrijving|beschreibung|bezeichnung|d[ée]signation"
    r"|product(?:\s*title)?|produkt|libell[ée]|descripci[oó]n|concepto|leistung|品\s*名|项\s*目|รายการ",
    "quantity": r"qty\.?|quantity|menge|aantal|hoeveelheid|quantit[ée]|nombre|cantidad|anzahl|stk|数\s*量|จำนวน",
    "unit_price": r"unit\s*price|u\.?\s*price|s/price|price|rate|prijs(?:\s*per\s*stuk)?|preis|einzelpreis|nettopreis"
    r"|p\.?\s*u\.?(?:\s*ht)?|prix(?:\s*unitaire)?|precio|vk-preis|单\s*价|ราคา(?:ต่อหน่วย)?",
    "line_total": r"amount|amt|total|line\s*total|bedrag|betrag|gesamt|nettobetrag|zeilenbetrag|montant(?:\s*ht)?"
    r"|importe|金\s*额|จำนวนเงิน|prijs\s*incl\.?\s*btw|summe",
    "tax": r"tax(?:\s*\(%\))?|vat|btw|mwst|tva|steuersatz|iva|税\s*率|%",
    # The tax amount of each row, printed right of its amount on Chinese VAT invoices
    # (增值税发票: 金额 税率 税额) and on some European ones.
    "tax_amount": r"税\s*额|(?:tax|vat|gst)\s*amount|mwst\.?[-\s]*betrag|steuerbetrag|montant\s*tva"
    r"|btw[-\s]*bedrag|importe\s*iva",
}


_COL_RES = {k: re.compile(thai_variants(rf"(?<![a-z])(?:{v})(?![a-z])"), re.I) for k, v in _COLS.items()}


_STOP_RE = re.compile(
    r"(?<![a-z])(?:sub\s*-?\s*total|total|totaal|summe|gesamt|montant\s*total|total\s*ht|subtotaal"
    r"|zwischensumme|合\s*计|小\s*计|总\s*计|^[\d\s.]*รวม|exclusief|tax\s*summary|gst\s*summary|umsatzsteuer"
    r"|(?:prices|prijzen|preise|prix)\s+(?:are\s+|zijn\s+|sind\s+)?(?:incl|inkl|inclusief|including))",
    re.I,
)


_SUBTOTAL_RE = re.compile(r"(?<![a-z])(?:sub\s*-?\s*total|subtotaal|zwischensumme|sous[\s-]*total|小\s*计)", re.I)


# Rows of the totals block that open a line under the last line item: the net amount under
# its names (EN 16931 BT-106 "Sum of invoice line net amount", printed as "Net amount",
# "Nettobetrag", "Warenwert", "Montant HT", "Base imponible", "不含税金额", "ราคาก่อนภาษี"...),
# a tax row ("VAT 23%", "zzgl. MwSt. 19 %", "Cuota IVA 21%", "税额 13%") and a document-level
# discount ("Discount 15%", "Nachlass 5%", "Dto. pronto pago 2%").
_TOTALS_BLOCK_RE = re.compile(
    thai_variants(
        r"^\s*(?:net(?:\s+(?:amount|total|value))?(?![a-z])|netto(?:betrag|bedrag|summe)?(?![a-z])|warenwert"
        r"|montant\s+(?:ht|tva|net)|base\s+imp|importe\s+(?:bruto|neto)|suma(?![a-z])|imponibile"
        r"|不含税|税\s*额|增值税|ราคาก่อนภาษี|มูลค่าสินค้า|ภาษีมูลค่าเพิ่ม"
        r"|(?:sales\s+)?tax(?![a-z])|vat(?![a-z])|gst(?![a-z])|mwst|ust(?![a-z])|zzgl|tva(?![a-z])"
        r"|(?:cuota\s+)?iva(?![a-z])|btw(?![a-z])|discount|rabatt|nachlass|korting|remise|descuento|dto\.|sconto)"
    ),
    re.I,
)


def is_table_header(line: TextLine) -> bool:
    """Whether ``line`` is the header row of a line-item table (description, quantity, price...)."""
    return _header_columns(line) is not None


def _header_columns(line: TextLine) -> dict[str, tuple] | None:
    """The column boxes of a table header row, or None when ``line`` is no header."""
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
    """Line items of every table found by its header row, numbered from 1."""
    items: list[dict] = []
    index = 0
    while index < len(lines):
        cols = _header_columns(lines[index])
        if cols is None:
            index += 1
            continue
        header = lines[index]
        rows, index = _table_rows(lines, index + 1, header, cols)
        items.extend(_parse_row(row, cols, header) for row in rows)
    items = [it for it in items if it is not None]
    for number, item in enumerate(items, 1):
        item["line_no"] = number
    return items


def _table_rows(
    lines: list[TextLine], start: int, header: TextLine, cols: dict[str, tuple]
) -> tuple[list[list[TextLine]], int]:
    """Group the lines under a header into rows; returns the rows and the index where the table ends.

    A row is a line with letters and an amount in the right quarter of the table, or a line with
    letters whose amount sits alone on the line below (two-line rows of e-invoice renderings).
    A subtotal row that equals the sum of the rows above it closes a section, not the table,
    unless what follows is a charge rather than a row ("小计 18,264.99 / 物流费 41.65": one amount
    where each row above printed its quantity or price too).
    """
    rows: list[list[TextLine]] = []
    section, index, last_y = 0, start, header.bbox[3]
    while index < len(lines):
        line = lines[index]
        if line.page != header.page or _header_columns(line) or line.bbox[1] - last_y > 10 * header.height:
            break
        if _STOP_RE.search(line.text[:40]) and rows:
            right = _right_amounts(line, header)
            section_sum = sum(_row_total(row, header, cols) for row in rows[section:])
            if not (right and _SUBTOTAL_RE.search(line.text) and agree(right[-1].value, section_sum)):
                break
            section, index, last_y = len(rows), index + 1, line.bbox[3]
            continue
        if rows and _opens_totals_block(line, rows[section:], header, cols):
            break
        nxt = lines[index + 1] if index + 1 < len(lines) else None
        row = _row_at(line, nxt, header, rows)
        if row and section and section == len(rows) and _charge_after_rows(row, rows):
            break
        if row:
            rows.append(row)
            index += len(row) == 2
        last_y = lines[index].bbox[3]
        index += 1
    return rows, index


def _opens_totals_block(line: TextLine, rows: list[list[TextLine]], header: TextLine, cols: dict[str, tuple]) -> bool:
    """Whether ``line``, below the rows of a table, is the first row of its totals block: a
    totals label at its start (``_TOTALS_BLOCK_RE``), or, under a label of any other name, one
    amount equal to the sum of ``rows`` (those of the current section) where every row printed
    several amounts (quantity or price beside its total), as a net amount does."""
    if _TOTALS_BLOCK_RE.search(line.text):
        return True
    amounts = [a for a in line.amounts if a.decimals]
    if not rows or len(amounts) != 1 or not all(sum(len(x.amounts) for x in row) >= 2 for row in rows):
        return False
    return agree(amounts[0].value, sum(_row_total(row, header, cols) for row in rows))


def _charge_after_rows(row: list[TextLine], rows: list[list[TextLine]]) -> bool:
    """Whether ``row`` prints a single amount where every row of ``rows`` printed several."""

    def count(lines: list[TextLine]) -> int:
        return sum(len(line.amounts) for line in lines)

    return count(row) == 1 and all(count(r) >= 2 for r in rows)


def _row_at(line: TextLine, nxt: TextLine | None, header: TextLine, rows: list) -> list | None:
    """The row that starts at ``line``: [line], or [line, nxt] when the amounts of ``line`` lack
    the line total and ``nxt``, right below, holds it (a wrapped row); [] when ``line`` only
    completes the previous row (appended there); None when ``line`` is no row."""
    right = _right_amounts(line, header)
    if (
        not right
        and line.amounts
        and _names_item(line)
        and nxt is not None
        and nxt.page == line.page
        and _right_amounts(nxt, header)
        and nxt.bbox[1] - line.bbox[3] < 1.5 * line.height
        and not (_STOP_RE.search(nxt.text[:40]) or _TOTALS_BLOCK_RE.search(nxt.text))  # "Total Qty. : 1 26.00"
    ):
        return [line, nxt]
    if right and _names_item(line):
        return [line]
    if right and rows and len(rows[-1]) == 1 and not _row_has_total(rows[-1][0], header):
        rows[-1].append(line)  # the amount printed on the line below the description
        return []
    return None


def _right_amounts(line: TextLine, header: TextLine) -> list:
    """Amounts with decimals printed in the right quarter of the table (the line-total column)."""
    edge = header.bbox[2] - 0.25 * (header.bbox[2] - header.bbox[0])
    return [a for a in line.amounts if a.decimals and line.span_bbox(a.start, a.end)[2] > edge]


def _row_total(row: list[TextLine], header: TextLine, cols: dict[str, tuple]) -> Decimal:
    """A row's line total (``_total_cell`` of its right-quarter amounts under the header's
    columns ``cols``), 0 when none."""
    numbers = [(line.span_bbox(a.start, a.end), a, line) for line in row for a in _right_amounts(line, header)]
    return _total_cell(numbers, cols)[1].value if numbers else Decimal(0)


def _tax_last(cols: dict[str, tuple]) -> bool:
    """Whether the header's rightmost column is the rows' tax amount, right of their amount."""
    if "tax_amount" not in cols or "line_total" not in cols:
        return False
    return cols["tax_amount"][0] > max(box[0] for kind, box in cols.items() if kind != "tax_amount")


def _tax_cells(numbers: list, cols: dict[str, tuple]) -> list:
    """The numbers of a row under the tax-amount column where it is the rightmost (``_tax_last``)."""
    if not _tax_last(cols):
        return []
    return [n for n in numbers if n[0][2] >= cols["tax_amount"][0] - 5]


def _total_cell(numbers: list, cols: dict[str, tuple]) -> tuple:
    """The (box, amount, line) of a row's line total: its rightmost amount, or, where the
    header's rightmost column is the tax amount (``_tax_last``: "金额 税率 税额"), the
    rightmost amount left of that column."""
    taxed = {id(n[1]) for n in _tax_cells(numbers, cols)}
    rest = [n for n in numbers if id(n[1]) not in taxed and n[1].decimals] if taxed else []
    return max(rest or numbers, key=lambda n: (n[0][2], n[0][1]))


def _letters(line: TextLine) -> int:
    """How many letters a line has (digits, punctuation and spaces not counted)."""
    return len(re.sub(r"[\W\d_]", "", line.text))


def _names_item(line: TextLine) -> bool:
    """Whether a line can open a row: it has words, or starts with an article number (a GTIN,
    "9557546631393 5 2.08 0.00 10.38", its description on the line below)."""
    return _letters(line) >= 2 or bool(_GTIN_RE.match(line.text))


def _row_has_total(line: TextLine, header: TextLine) -> bool:
    """Whether a row line has an amount at the right edge of the table."""
    return any(line.span_bbox(a.start, a.end)[2] > header.bbox[2] - 15 for a in line.amounts if a.decimals)


_GTIN_RE = re.compile(r"^\s*(\d{8,14})(?!\S)")

ITEM_KEYS = ("description", "line_no", "sku", "quantity", "unit", "unit_price", "discount", "tax", "line_total")


def _parse_row(row: list[TextLine], cols: dict[str, tuple], header: TextLine) -> dict | None:
    """One line item from the lines of a row, read by the header's column positions."""
    numbers = [(line.span_bbox(a.start, a.end), a, line) for line in row for a in cell_amounts(line)]
    if not numbers:
        return None
    item = dict.fromkeys(ITEM_KEYS)
    total = _total_cell(numbers, cols)
    item["line_total"] = total[1].value
    _read_numeric_columns(item, numbers, cols, {id(total[1]), *(id(n[1]) for n in _tax_cells(numbers, cols))})
    rate = re.search(r"(\d{1,2}(?:[.,]\d{1,2})?)\s?%", " ".join(line.text for line in row))
    if rate:
        item["tax"] = Decimal(rate.group(1).replace(",", "."))
    limit = _description_limit(row[0], numbers, cols)
    desc = " ".join(_left_text(line, limit) for line in row)
    gtin = _GTIN_RE.match(desc)
    desc = re.sub(r"(?<!\S)\d{8,14}(?!\S)", " ", desc)  # GTIN / EAN codes printed in the article column
    if gtin and not desc.strip():
        desc = gtin.group(1)  # the code is all the row names
    desc = re.sub(r"^\s*\d{1,3}\s+(?=\S)", "", desc)  # position number
    desc = _drop_leading_quantity(desc, item["quantity"], cols)
    item["sku"], desc = _split_sku(desc)
    if item["quantity"] is None and item["unit_price"] and item["line_total"]:
        qty = item["line_total"] / item["unit_price"]
        if qty == qty.to_integral_value() and 0 < qty < 10000:
            item["quantity"] = qty.to_integral_value()
    item["description"] = " ".join(_drop_trailing_quantity(desc, item).split()).strip(" -:") or None
    return item if item["description"] else None


def _read_numeric_columns(item: dict, numbers: list, cols: dict[str, tuple], used: set) -> None:
    """Unit price and quantity: the unused number nearest to the centre of each header column."""
    for kind in ("unit_price", "quantity"):
        if kind not in cols:
            continue
        col = cols[kind]
        near = [n for n in numbers if id(n[1]) not in used and n[0][0] <= col[2] + 25 and n[0][2] >= col[0] - 25]
        if near:
            pick = min(near, key=lambda n: abs((n[0][0] + n[0][2]) / 2 - (col[0] + col[2]) / 2))
            item[kind] = pick[1].value
            used.add(id(pick[1]))


def _description_limit(first: TextLine, numbers: list, cols: dict[str, tuple]) -> float:
    """Where the description column ends: at the first numeric column of the header right of
    the description's, so that numbers inside a description ("16 GB") stay in it. Columns
    printed left of the description ("Pos. Menge Beschreibung ... Preis") do not end it."""
    numeric_cols = [cols[k][0] for k in ("quantity", "unit_price", "line_total", "tax") if k in cols]
    if not numeric_cols:
        return min((n[0][0] for n in numbers if n[2] is first), default=first.bbox[2])
    start = cols["description"][0] if "description" in cols else None
    right = [x for x in numeric_cols if start is None or x > start]
    return min(right) - 5 if right else first.bbox[2]


def _drop_leading_quantity(desc: str, quantity: Decimal | None, cols: dict[str, tuple]) -> str:
    """``desc`` without the quantity it starts with, where the quantity column is printed left
    of the description ("Pos. Menge Beschreibung": "1 Small Business Exchange")."""
    if quantity is None or "quantity" not in cols or "description" not in cols:
        return desc
    if cols["quantity"][0] > cols["description"][0]:
        return desc
    match = re.match(r"^\s*(\d{1,5}(?:[.,]\d{1,3})?)\s+(?=\S)", desc)
    if match and Decimal(match.group(1).replace(",", ".")) == quantity:
        return desc[match.end() :]
    return desc


def _drop_trailing_quantity(desc: str, item: dict) -> str:
    """``desc`` without the quantity (and its unit, kept in ``item["unit"]`` when none was read)
    that it ends with, where right-aligned quantities reach left into the description column
    ("Prestation de conseil 8", "Création de logo 1 unité")."""
    match = re.search(r"\s(\d{1,5}(?:[.,]\d{1,3})?)(?:\s+([^\W\d_]{1,8}\.?))?\s*$", desc)
    if not match or item["quantity"] is None or Decimal(match.group(1).replace(",", ".")) != item["quantity"]:
        return desc
    if match.group(2) and item["unit"] is None:
        item["unit"] = match.group(2)
    return desc[: match.start()]


def _left_text(line: TextLine, limit: float) -> str:
    """The words of ``line`` that end left of ``limit``, up to the first word that does not."""
    ends = [e for s, e, b in line.spans if b[2] <= limit + 2]
    return line.text[: max(ends)] if ends else ""


def _split_sku(desc: str) -> tuple[str | None, str]:
    """An article code at the start of a description ("[FURN_7777] Chair", "KR3M Kunstrasen")."""
    match = re.match(r"^\s*(\[[^\]]+\]|[A-Z0-9][A-Z0-9_\-/.]{2,})\s+(?=\S)", desc)
    if match and re.search(r"\d", match.group(1)) and re.search(r"[a-zA-Z]", desc[match.end() :]):
        return match.group(1).strip("[]").strip(), desc[match.end() :]
    return None, desc
