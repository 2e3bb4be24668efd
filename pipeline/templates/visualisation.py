"""Tier 1, built in: the print of an e-invoice's XML visualisation, read as the layout it is.

Many German invoices reach accounts payable as the page an XRechnung / ZUGFeRD visualisation
stylesheet makes from the XML ("Visualisierung eRechnung", "Lesbarmachung der XML-Daten"),
scanned or sent without the XML. That page is no seller's design: every value stands on the
row of its label, and beside the label the EN 16931 term it prints ("Rechnungsnummer BT-1
RE-2025-0815", "Gesamtbetrag BT-112 2.380,00 EUR"). The layout rules and the scorer read it as
a seller's page and take the stylesheet's heading token or a term code for the invoice number.

``read_visualisation`` recognises the layout (a visualisation title, and the terms of the
invoice number, date and total printed beside values) and reads each field by its term, which
says exactly what the value is: the header of schema 2.9, and the line items from the
positions table where it prints each line's subtype (BT-X-8), keeping the lines that count in
the totals as the e-invoice reader does (``pipeline.values.en16931.counts_in_totals``). The
result is a ``TemplateResult``: the fields it sets are the document's, as a vendor template's
are (the scorer does not re-decide them). It completes a document only where what it read
holds together; its ``doubts`` say where it does not (``visualisation_doubts``), and the
pipeline adds them to the validation errors.

Pure extraction: reads ``DocumentText``, parses values with ``pipeline.values``.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pipeline.document import DocumentText, Line
from pipeline.templates.invoice2data import TemplateResult
from pipeline.values.en16931 import LINE_SUBTYPES, counts_in_totals, is_freight
from pipeline.values.money import agree
from pipeline.values.parsers import detect_currency, parse_amount_decimal, parse_date, parse_priced_amount

NAME = "e-invoice visualisation"
# The title a visualisation stylesheet prints: "Visualisierung eRechnung", "Visualisierung der
# XRechnung", "Lesbarmachung der XML-Daten", "Visualisation of the e-invoice".
TITLE = re.compile(
    r"visuali[sz]ierung\b.{0,40}?(e-?rechnung|x-?rechnung|zugferd|factur-?x)|lesbarmachung\s+der\s+xml"
    r"|visuali[sz]ation\s+of\s+(the\s+)?(e-?invoice|xrechnung)",
    re.IGNORECASE,
)
# An EN 16931 business term beside a label: BT-1, BT 112, BT-X-8; OCR may read a 1 as l or I
# (taken only after a hyphen: "BTO" is no term).
TERM = re.compile(r"BT\s?([-‐‑–]?)\s?(X\s?-\s?)?([0-9lI|O]{1,3})")
# A business group (BG-22): a section heading, which ends the positions table as a term does.
GROUP_TERM = re.compile(r"BG\s?[-‐‑–]?\s?(X\s?-\s?)?\d{1,3}")
# Terms the layout is recognised by: the invoice number and date, and a total.
ANCHORS = ({"1"}, {"2"}, {"112", "115", "109"})
# Without a title, this many distinct terms beside values make the page a visualisation.
TERMS_WITHOUT_TITLE = 8
# Header fields by their term (EN 16931); the first value of a term counts.
TEXT_TERMS = {
    "1": "invoice_number",
    "27": "vendor_name",
    "31": "vendor_tax_id",
    "32": "vendor_tax_id",  # the tax number, where there is no VAT id
    "43": "vendor_email",
    "44": "customer_name",
    "20": "payment_terms",
}
DATE_TERMS = {"2": "invoice_date", "9": "due_date"}
AMOUNT_TERMS = {
    "106": "subtotal",
    "107": "discount",
    "108": "charges",
    "109": "net",
    "110": "tax_amount",
    "112": "total_amount",
    "113": "paid_amount",
    "114": "rounding",
    "115": "balance_amount",
}
# An OCR'd key value below this confidence is not taken as exact (a doubt; README, tier 1).
MIN_OCR_CONFIDENCE = 0.9
KEY_READS = ("invoice_number", "invoice_date", "vendor_name", "total_amount")
# A number in a table cell (amount, quantity, rate), which may be right-aligned.
NUMBER = re.compile(r"[-−]?[\d.,'’]*\d[\d.,'’]*%?")
# Column titles of the positions table, by role (German and English stylesheets).
COLUMNS = {
    "pos": r"pos\.?|position|nr\.?|zeile|line|#",
    "subtype": r"art|typ|zeilenart|positionsart|subtyp|untertyp|subtype|type|bt-x-8",
    "description": r"bezeichnung|beschreibung|artikel|leistung|description|item|name|bt-153",
    "quantity": r"menge|anzahl|qty|quantity|bt-129",
    "unit": r"einheit|me|unit|bt-130",
    "price": r"preis|einzelpreis|nettopreis|price|bt-146",
    "tax": r"ust\.?|mwst\.?|steuersatz|vat|bt-152",
    "total": r"nettobetrag|betrag|gesamt|gesamtpreis|summe|zeilensumme|amount|total|bt-131",
}


@dataclass(frozen=True)
class Token:
    """A whitespace-separated piece of a line with its horizontal extent and OCR confidence
    (an OCR segment of several words is split in proportion to its characters)."""

    text: str
    x0: float
    x1: float
    confidence: float | None


@dataclass(frozen=True)
class Read:
    """One cell printed right of a term: its text, and the lowest OCR confidence of its tokens."""

    text: str
    confidence: float | None


# Per term number ("1", "112"; "X-8" for extension terms), each place it is printed, with the
# cells right of it there (tokens apart by column gaps), in reading order.
Reads = dict[str, list[tuple[Read, ...]]]


def read_visualisation(doc: DocumentText) -> TemplateResult | None:
    """The fields and line items of a page in the XML visualisation layout, or None when ``doc``
    is not one.

    ``doc``: the document's text (text layer or OCR; boxes per ``pipeline.document``). Returns
    a ``TemplateResult`` (``builtin`` set) whose ``fields`` are schema 2.9 header values (dates
    ISO, amounts Decimal) read by the EN 16931 term printed beside each label, the first cell
    right of the term that reads as the field's kind of value: BT-1 number (a cell with a
    digit), BT-2 date, BT-9 due date, BT-5 currency (else the currency printed with the total),
    BT-27 seller, BT-31/32 tax id, BT-43 email, BT-44 buyer, BT-106 subtotal, BT-107 discount,
    BT-108 charges (split into freight by their reasons BT-104, as the e-invoice reader splits
    them), BT-110 tax, BT-112 total, BT-113 paid, BT-115 balance. ``line_items`` come from a
    positions table with a subtype column (BT-X-8): the rows that count in the totals, DETAIL
    rows and rows without a subtype (GROUP and INFORMATION rows do not count, as in the XML);
    none without such a column. ``doubts``: ``visualisation_doubts``.
    """
    lines = [line for _, line in doc.lines]
    reads = _reads(lines)
    if not _recognised(doc, reads):
        return None
    fields, amounts, sources = _fields(reads)
    fields.update(_charges(reads, amounts.get("charges")))
    doubts = visualisation_doubts(amounts, sources)
    return TemplateResult(NAME, fields, _line_items(lines), builtin=True, doubts=doubts)


def visualisation_doubts(amounts: dict[str, Decimal], sources: dict[str, Read]) -> list[str]:
    """Why what the layout read cannot complete the document, as validation messages.

    ``amounts``: the amounts read, by name (``subtotal`` BT-106, ``discount`` BT-107,
    ``charges`` BT-108, ``net`` BT-109, ``tax_amount`` BT-110, ``total_amount`` BT-112);
    ``sources``: the cell each key field was read from. The rule (README, tier 1): the page
    prints the arithmetic of its totals (EN 16931 BR-CO-13 and BR-CO-15: sum of lines -
    allowances + charges = net, net + VAT = total), so its total completes a document only when
    the net and VAT read add up to it, and the lines' sum, where printed, to the net; a total
    without the figures to check it is a doubt. A key value OCR read below
    ``MIN_OCR_CONFIDENCE`` is one too: no arithmetic checks an invoice number. Empty when the
    reading holds together.
    """
    doubts = []
    total, tax = amounts.get("total_amount"), amounts.get("tax_amount")
    lines_net = None
    if amounts.get("subtotal") is not None:
        lines_net = amounts["subtotal"] - amounts.get("discount", 0) + amounts.get("charges", 0)
    net = amounts.get("net", lines_net)
    if total is not None:
        if net is None or tax is None:
            doubts.append(f"{NAME}: total_amount {total:.2f} is not checked by a net amount and VAT printed")
        elif not agree(net + tax, total):
            doubts.append(f"{NAME}: net {net:.2f} + VAT {tax:.2f} = {net + tax:.2f}, total_amount reads {total:.2f}")
    if lines_net is not None and "net" in amounts and not agree(lines_net, amounts["net"]):
        doubts.append(
            f"{NAME}: lines - allowances + charges = {lines_net:.2f}, the net amount reads {amounts['net']:.2f}"
        )
    for name, read in sources.items():
        if read.confidence is not None and read.confidence < MIN_OCR_CONFIDENCE:
            doubts.append(f"{NAME}: {name} {read.text!r} read by OCR at confidence {read.confidence:.2f}")
    return doubts


# -- recognising the layout and reading terms ------------------------------------------------


def _recognised(doc: DocumentText, reads: Reads) -> bool:
    """A visualisation: the invoice number's, date's and a total's terms beside values, and a
    visualisation title (or, without one, many terms beside values)."""
    if not all(any(reads.get(term) for term in anchor) for anchor in ANCHORS):
        return False
    return bool(TITLE.search(doc.text)) or len(reads) >= TERMS_WITHOUT_TITLE


def _reads(lines: list[Line]) -> Reads:
    found: Reads = {}
    for line in lines:
        for term, cells in _line_reads(line):
            found.setdefault(term, []).append(cells)
    return found


def _line_reads(line: Line) -> Iterator[tuple[str, tuple[Read, ...]]]:
    """(term, cells) for each term on ``line`` with something right of it: the tokens up to the
    next term, in cells split at column gaps ("Rechnungsnummer BT-1 RE-2025-0815" gives one
    cell); a term that opens its line is followed by its label ("BT-112 Gesamtbetrag 2.380,00
    EUR" with gaps between gives the one cell "2.380,00 EUR")."""
    tokens = _tokens(line)
    gap = 2.5 * _char_width(tokens)
    for index, token in enumerate(tokens):
        match = _term(token)
        if match is None:
            continue
        cells: list[list[Token]] = []
        for following in tokens[index + 1 :]:
            if _term(following):
                break
            if not cells or following.x0 - cells[-1][-1].x1 > gap:
                cells.append([])
            cells[-1].append(following)
        if index == 0 and len(cells) > 1:  # the term opens the line: its label follows it
            cells = cells[1:]
        if cells:
            yield _term_number(match), tuple(_read(cell) for cell in cells)


def _read(tokens: list[Token]) -> Read:
    confidences = [t.confidence for t in tokens if t.confidence is not None]
    return Read(" ".join(t.text for t in tokens).strip(" :"), min(confidences) if confidences else None)


def _term(token: Token, pattern: re.Pattern = TERM) -> re.Match | None:
    """The term a token is ("BT-1", "(BT-112):"), else None."""
    match = pattern.fullmatch(token.text.strip("()[]:,;"))
    if match is None or (pattern is TERM and not match.group(1) and not match.group(3).isdigit()):
        return None
    return match


def _term_number(match: re.Match) -> str:
    digits = match.group(3).translate(str.maketrans("lI|O", "1110"))
    return f"X-{digits}" if match.group(2) else digits.lstrip("0") or "0"


def _tokens(line: Line) -> list[Token]:
    """The line's words split at whitespace, each piece with its share of the word's box; a term
    read apart ("BT" "-27") is joined again."""
    tokens: list[Token] = []
    for word in line.words or ():
        width = (word.bbox[2] - word.bbox[0]) / max(len(word.text), 1)
        for piece in re.finditer(r"\S+", word.text):
            x0 = word.bbox[0] + piece.start() * width
            token = Token(piece.group(), x0, x0 + len(piece.group()) * width, word.confidence)
            if tokens and tokens[-1].text in ("BT", "BT-") and _term(Token("BT-" + token.text.lstrip("-"), 0, 0, None)):
                head = tokens.pop()
                token = Token(f"BT-{token.text.lstrip('-')}", head.x0, token.x1, head.confidence)
            tokens.append(token)
    return tokens


def _char_width(tokens: list[Token]) -> float:
    widths = [(t.x1 - t.x0) / len(t.text) for t in tokens if t.text]
    return statistics.median(widths) if widths else 5.0


def _value(text: str) -> str | None:
    """A cell as a text value: None for a label ("Rechnungsnummer:"), the part after a label
    run into it ("Rechnungsnummer: 4711" -> "4711")."""
    head, colon, tail = text.partition(": ")
    if colon and not any(ch.isdigit() for ch in head):
        text = tail
    return None if not text or text.endswith(":") else text


def _identifier(text: str) -> str | None:
    """A cell as an invoice number: a value with a digit in it (the label beside it has none)."""
    value = _value(text)
    return value if value and any(ch.isdigit() for ch in value) else None


def _pick(reads: Reads, term: str, parse: Callable[[str], Any]) -> tuple[Any, Read] | None:
    """(value, cell) of the first cell right of ``term`` that ``parse`` reads, in the first
    place the term is printed with one; None when there is none."""
    for cells in reads.get(term, []):
        for cell in cells:
            value = parse(cell.text)
            if value is not None:
                return value, cell
    return None


def _date(text: str) -> str | None:
    return parse_date(text, dayfirst=True)


def _fields(reads: Reads) -> tuple[dict[str, Any], dict[str, Decimal], dict[str, Read]]:
    """(header fields, amounts by name, the cell each key field came from) of the values read."""
    fields: dict[str, Any] = {}
    sources: dict[str, Read] = {}
    for term, name in TEXT_TERMS.items():
        found = _pick(reads, term, _identifier if name == "invoice_number" else _value)
        if found is not None and name not in fields:
            fields[name], sources[name] = found
    for term, name in DATE_TERMS.items():
        if (found := _pick(reads, term, _date)) is not None:
            fields[name], sources[name] = found
    amounts = {}
    for term, name in AMOUNT_TERMS.items():
        if (found := _pick(reads, term, parse_priced_amount)) is not None:
            amounts[name], sources[name] = found
    for name in ("subtotal", "tax_amount", "total_amount", "balance_amount"):
        if name in amounts:
            fields[name] = amounts[name]
    for name in ("discount", "paid_amount"):
        if amounts.get(name):
            fields[name] = amounts[name]
    currency = _pick(reads, "5", detect_currency) or _pick(reads, "112", detect_currency)
    if currency is not None:
        fields["currency"] = currency[0]
    return fields, amounts, {name: read for name, read in sources.items() if name in KEY_READS}


def _charges(reads: Reads, total: Decimal | None) -> dict[str, Decimal]:
    """``shipping_cost`` and ``service_charge`` of the charge total BT-108: the charges whose
    reason (BT-104) reads like freight, by their amounts (BT-99, in the same order), are
    shipping; the rest of the total is a service charge (as ``pipeline.einvoice.reader`` splits
    the XML's charges)."""
    if not total:
        return {}
    amounts = [
        next((a for c in cells if (a := parse_priced_amount(c.text)) is not None), None)
        for cells in reads.get("99", [])
    ]
    reasons = [next((v for c in cells if (v := _value(c.text))), None) for cells in reads.get("104", [])]
    freight = sum(
        (a for a, reason in zip(amounts, reasons, strict=False) if a is not None and is_freight(reason, None)),
        Decimal("0"),
    )
    out = {"shipping_cost": freight} if freight else {}
    if total - freight > 0:
        out["service_charge"] = total - freight
    return out


# -- the positions table ---------------------------------------------------------------------


def _line_items(lines: list[Line]) -> list[dict[str, Any]]:
    """The rows of the positions table (a header with a subtype, a description and an amount
    column) that count in the totals, in order: DETAIL rows and rows with an amount but no
    subtype; a row with a description alone continues the one above it. The table ends at the
    first other row, or at a term or group code (the next section)."""
    for index, line in enumerate(lines):
        columns = _columns(_tokens(line))
        if columns is not None:
            return _rows(lines[index + 1 :], columns)
    return []


def _columns(tokens: list[Token]) -> list[tuple[str, Token]] | None:
    """(role, title token) of a positions table's header row; None when the row is not one."""
    roles = []
    for token in tokens:
        role = next((r for r, pattern in COLUMNS.items() if re.fullmatch(pattern, token.text, re.IGNORECASE)), None)
        roles.append((role, token))
    named = {role for role, _ in roles if role}
    if not {"subtype", "description", "total"} <= named:
        return None
    return [(role, token) for role, token in roles if role]


def _rows(lines: list[Line], columns: list[tuple[str, Token]]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    last: dict[str, Any] | None = None
    for line in lines:
        tokens = _tokens(line)
        if any(_term(t) or _term(t, GROUP_TERM) for t in tokens):
            break
        cells = _cells(tokens, columns)
        subtype = _subtype(cells)
        if subtype is None and set(cells) == {"description"}:
            if last is not None:  # a description wrapped onto the next line
                last["description"] += " " + cells["description"]
            continue
        item = _item(cells)
        if subtype is None and item is None:  # neither a line nor a wrapped description: the table ends
            break
        last = item if counts_in_totals(subtype) else None  # a row without a subtype counts (BR-FXEXT-CO-10)
        if last is not None:
            items.append(last)
    return items


def _subtype(cells: dict[str, str]) -> str | None:
    """The row's subtype (BT-X-8) from its subtype cell, or None. A subtype run together with
    the description (OCR reads "INFORMATIONdavon Anfahrt" where the columns nearly touch) is
    split off, the rest put back in front of the description."""
    cell = cells.get("subtype", "")
    subtype = next((s for s in LINE_SUBTYPES if cell.upper().startswith(s)), None)
    rest = cell[len(subtype) :].strip() if subtype else ""
    if rest:
        cells["description"] = f"{rest} {cells.get('description', '')}".strip()
    return subtype


def _cells(tokens: list[Token], columns: list[tuple[str, Token]]) -> dict[str, str]:
    """The row's text per column role. Words are left-aligned: a word goes to the last column
    whose title starts left of it (a long description runs on to the right of its title, a
    subtype run together with it stays in its column). Numbers may be right-aligned: a number
    goes to the column title it overlaps most (the last one starting left of it when it
    overlaps none)."""
    cells: dict[str, list[str]] = {}
    for token in tokens:
        left = [role for role, title in columns if title.x0 <= token.x0 + 1]
        role = left[-1] if left else columns[0][0]
        if NUMBER.fullmatch(token.text):
            shared = [(min(token.x1, title.x1) - max(token.x0, title.x0), name) for name, title in columns]
            best, overlapped = max(shared, key=lambda pair: pair[0])
            role = overlapped if best > 0 else role
        cells.setdefault(role, []).append(token.text)
    return {role: " ".join(texts) for role, texts in cells.items()}


def _item(cells: dict[str, str]) -> dict[str, Any] | None:
    """A line item from a DETAIL row's cells; None without a description or an amount."""
    description, total = cells.get("description"), parse_priced_amount(cells.get("total", ""))
    if not description or total is None:
        return None
    pos = cells.get("pos", "")
    rate = re.sub(r"\s*%$", "", cells.get("tax", ""))
    return {
        "description": description,
        "line_no": int(pos) if pos.isdigit() else None,
        "quantity": parse_amount_decimal(cells.get("quantity", "")),
        "unit": cells.get("unit") or None,
        "unit_price": parse_priced_amount(cells.get("price", "")),
        "tax": parse_amount_decimal(rate) if rate else None,
        "line_total": total,
    }
