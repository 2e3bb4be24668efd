"""Candidates for every key field, with the features the learned scorer ranks them on.

For each key field (``pipeline.schema.KEY_FIELDS``) every plausible value on the page is a
candidate, not only the one a rule or the model picked (Majumder et al., "Representation
Learning for Information Extraction from Form-like Documents", ACL 2020: candidate generation,
then learned scoring):

* ``total_amount``: every amount printed on the document, and the labelled readings of the rules;
* ``invoice_date``: every date printed on the document;
* ``invoice_number``: every id next to an invoice-number label (``pipeline.rules.header``);
* ``vendor_name``: every name the rules considered (``pipeline.rules.parties``), and the lines
  of the first page's top part;
* ``currency``: the codes detected in the text, and every proposal;

plus the values the template, the rules and the model proposed. Each candidate carries numeric
features (``FEATURES[field]`` names them, in the order of the scorer's vectors): who proposed it,
the label words on its line and the line above, its position and box height, keywords of its line
(cash, change, rounding, subtotal...), arithmetic relations with the other amounts (the sum of the
lines, subtotal + tax, cash - change, cash rounding), how often it is printed, the OCR confidence
of its line, legal forms and the customer block for names. A feature that does not apply is NaN
(the gradient-boosted trees treat it as missing).

Pure functions over ``DocumentText`` and the proposers' values; imports only ``pipeline``
modules; must not import ``api``, ``appliance`` or ``training``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from pipeline.decision.arbitrate import same
from pipeline.decision.evidence import locate
from pipeline.document import DocumentText
from pipeline.profiles.lessons import id_shape
from pipeline.profiles.profile import in_shape
from pipeline.rules.amounts import amount_candidates, money_amounts
from pipeline.rules.header import invoice_number_candidates, labelled_dates
from pipeline.rules.identifiers import iban_country, is_valid_tax_id
from pipeline.rules.labels import (
    CASH_RE,
    CHANGE_RE,
    COMPANY_RE,
    COPYRIGHT_RE,
    EMAIL_RE,
    ID_TOKEN_RE,
    LABEL_RES,
    OTHER_ID_RE,
    PHONE_RE,
    POSTCODE_RE,
    STREET_WORDS,
    TITLE_RE,
    URL_RE,
    VAT_RE,
)
from pipeline.rules.layout import TextLine, annotated_lines, section_starts, split_cells
from pipeline.rules.parties import NAME_LABEL_RE, customer_zone, vendor_candidates
from pipeline.values.money import agree, cash_rounded, cents, is_amount, rounds_to, same_amount, to_amount
from pipeline.values.parsers import detect_currency

__all__ = ["Candidate", "FEATURES", "PROPOSERS", "candidates", "same_value"]

PROPOSERS = ("template", "rules", "model", "profile")
NAN = float("nan")
TOP_LINES = 12  # lines of the first page a vendor name may stand on without a rule picking it
MAX_AMOUNTS = 60  # distinct amounts per document (a long table adds nothing to its total)
MAX_IDS = 60  # id-like tokens per document

_COMMON = (
    "by_template",
    "by_rules",
    "by_model",
    "by_profile",  # the vendor's learned profile proposed it
    "profile_support",  # approvals of the vendor that back the profile's proposal (0: another value)
    "n_proposers",
    "model_ran",
    "model_other",  # the model proposed another value
    "rules_other",
    "ocr",  # the candidate's page was OCR'd
    "ocr_conf",  # OCR confidence of its line (1.0 on a text layer)
    "doc_ocr_conf",
    "rel_y",  # top of its line over the page height
    "rel_height",  # its line's height over the page's median
    "page_index",
    "n_pages",
    "repeats",  # how often the value is printed
    "n_candidates",
)
_AMOUNT = (
    "lab_total",  # best total-label weight on the line (right of which the value stands)
    "lab_total_above",
    "lab_subtotal",
    "lab_tax",
    "lab_paid",
    "lab_balance",
    "lab_discount",
    "lab_rounding",
    "lab_ignore",  # cash, change, qty, tendered...
    "kw_cash",
    "kw_change",
    "kw_round",
    "kw_excl",  # its line says the amount is before tax: excl. GST, HT, netto, exkl. MwSt.
    "rules_label_score",  # the rules' own score of this value as a total
    "value_log",
    "is_zero",
    "decimals",
    "currency_mark",
    "rank_desc",  # 0 for the largest amount on the document, 1 for the smallest
    "is_max",
    "from_bottom",  # 0 on the last line with an amount, 1 on the first
    "eq_lines_sum",
    "eq_sub_tax",
    "eq_cash_change",
    "tender_split",  # a whole amount minus another printed one: cash tendered less change, labels or not
    "rounded_of_labelled",  # the cash-rounded value of a total-labelled amount
    "has_rounded_twin",  # a total-labelled amount is this one cash-rounded
    "above_labelled_total",  # larger than a total-labelled amount below it (cash tendered)
    "n_amounts",
)
_DATE = (
    "rules_invoice_date_score",  # the rules' score of this date beside an invoice-date label
    "rules_due_date_score",
    "rules_other_date_score",  # beside a delivery, period or order date label
    "lab_invoice_date",
    "lab_date_above",
    "lab_due",
    "lab_other_date",
    "has_time",
    "ambiguous",
    "n_dates",
    "is_earliest",
    "is_latest",
    "days_before_latest",
    "year_ok",
)
_ID = (
    "rules_label_score",
    "digits",
    "letters",
    "length",
    "below_label",
    "n_ids",  # ids beside an invoice-number label
    "lab_id_left",  # an invoice-number label before it on its line
    "lab_id_above",
    "other_id_left",  # a phone, registration, VAT, order or customer number label before it
    "other_label_left",  # another field's label before it (a date, a total)
    "separators",
    "tax_id",  # shaped as a VAT id or Swiss UID, or a tax id or IBAN with valid check digits
)
_NAME_KINDS = ("rules", "line", "cell", "prefix", "joined", "legal")
_NAME = (
    "rules_label_score",
    *(f"kind_{kind}" for kind in _NAME_KINDS),
    "legal_at_end",
    "ends_open",  # ends in "&", "and", a comma: the name goes on
    "wraps_below",  # the next line, printed alike, may continue it
    "starts_open",  # starts with "&", "and": the tail of a name
    "wraps_above",  # the line above, printed alike, may be its start
    "tail",  # what is printed before it, on its line or the line above it wraps, ends open: a name's tail
    "slogan",  # thank you, welcome, please visit...
    "contains_rules",  # holds the rules' name and more
    "inside_rules",  # a part of the rules' name
    "legal",
    "line_index",
    "upper_share",
    "digit_share",
    "n_chars",
    "n_words",
    "address_words",
    "contact",
    "title",
    "label_words",  # holds a label of the lexicon ("Rechnungsadresse", "Bill to", "Invoice no")
    "customer_zone",
    "after_customer_label",  # right of a customer label on its own line ("... Facturar a: Alvarado y Bolaños S.A.")
    "rank_by_rules",
    "company_no",  # its company registration number follows it, on its line or the next (_COMPANY_NO_RE)
)
_CURRENCY = ("detected", "code_printed", "symbol_printed")
FEATURES: dict[str, tuple[str, ...]] = {
    "total_amount": _COMMON + _AMOUNT,
    "invoice_date": _COMMON + _DATE,
    "invoice_number": _COMMON + _ID,
    "vendor_name": _COMMON + _NAME,
    "currency": _COMMON + _CURRENCY,
}

_ROUND_RE = re.compile(r"round|arrondi|rundung|afronding|redondeo|adj", re.I)
# "excl." as OCR reads it too ("excI.", "exc1"); HT, netto, ohne: French, Dutch and German
_EXCL_RE = re.compile(
    r"(?<![a-z])(?:exc[il1]\w*|exkl\w*|ht|h\.t\.|hors\s*tax\w*|netto|ohne\s*mwst|before\s*(?:tax|gst|vat)"
    r"|sans\s*tva|zonder\s*btw|sin\s*iva)(?![a-z])",
    re.I,
)
_TIME_RE = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)")
_LEGAL_RE = re.compile(rf"{COMPANY_RE.pattern}|(?<![\w/])S/B(?![\w/])", re.I)
_LEGAL_END_RE = re.compile(rf"(?:{_LEGAL_RE.pattern})\W*$", re.I)
_OPEN_END_RE = re.compile(r"(?:[&,\-/(]|\b(?:and|und|et|en|y|e|of|de|du|der|the))\s*$", re.I)
_OPEN_START_RE = re.compile(r"^\W*(?:&|and\b|und\b|et\b|en\b|of\b)", re.I)
_SLOGAN_RE = re.compile(
    r"thank|welcome|visit|please|shopping|terima\s*kasih|selamat|danke|merci|bedankt|诚信|品质|欢迎|谢谢|感谢", re.I
)
_OTHER_ID_NEAR_RE = re.compile(
    r"(?<![a-z])(?:tel|phone|fax|hp|gst|vat|tax|reg|co|roc|ssm|order|po|customer|cust|account|a/c|iban|ref)\b\W*"
    r"(?:no|nr|id|#)?\W*$",
    re.I,
)
# A company's registration number printed right after its name, on its line or alone on the next
# ("(65351-M)", "1241045-D", "Co. Reg. No: 123456-A"): where a receipt prints its seller's legal name.
_COMPANY_NO_RE = re.compile(
    r"\(\s*(?:co\w*\W*(?:n[o0]|r[ef]g\w*)\W*)?\d{4,12}\s?-{0,2}\s?[A-Z]\s*\)|^\W*\d{5,12}\s?-{1,2}\s?[A-Z]\W*$"
    r"|(?<![a-z])(?:co(?:mpany)?\W*(?:[rk][ef]g\w*|n[o0])|roc|ssm)(?:\W*n[o0](?![a-z]))?\W{0,4}[A-Z]{0,3}\d{4,12}",
    re.I,
)
_OWNER_RE = re.compile(r"^\W*(?:own(?:ed)?\s*by|sold\s*by|operated\s*by)\s*:?\s*", re.I)
_ADDRESS_RE = re.compile(
    rf"(?<![a-z])(?:{STREET_WORDS})(?![a-z])|\bno\.?\s*\d|\d+[,-]\s*\w"
    # German streets are one word ("Eichingerring 9", "Petros-Ritter-Ring")
    r"|[a-zäöüß](?:stra(?:ss|ß)e|str\.|weg|ring|allee|gasse|platz|damm|ufer|chaussee)\s*\d"
    r"|-(?:ring|weg|stra(?:ss|ß)e|allee|gasse|platz|damm|ufer)(?![a-z])",
    re.I,
)
# Document titles of Chinese and Thai invoices and receipts (增值税专用发票, ใบกำกับภาษี, ใบเสร็จ...)
_CJK_THAI_TITLE_RE = re.compile(r"发票|收据|小票|ภาษ|ใบแจ|ใบเสร")
_SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£", "INR": "₹", "JPY": "¥", "CNY": "¥", "THB": "฿", "MYR": "RM"}


@dataclass
class Candidate:
    """One value of one key field: ``value`` normalised (Decimal to the cent, ISO date, str),
    ``features`` by the names of ``FEATURES[field]`` (missing: NaN), ``evidence`` the line it
    is printed on (``{"page", "bbox", "text"}``, None when nowhere), ``sources`` the proposers
    of ``PROPOSERS`` that gave it."""

    field: str
    value: Any
    features: dict[str, float] = field(default_factory=dict)
    evidence: dict | None = None
    sources: set[str] = field(default_factory=set)

    def vector(self) -> list[float]:
        """The features in ``FEATURES[field]`` order, NaN where missing."""
        return [float(self.features.get(name, NAN)) for name in FEATURES[self.field]]


def same_value(name: str, a: Any, b: Any) -> bool:
    """Whether two normalised values of ``name`` are one candidate (``arbitrate.same``)."""
    return same(name, a, b)


def identical(name: str, a: Any, b: Any) -> bool:
    """Whether two normalised values of ``name`` are the same answer as the reference scorer
    judges one (``../shared/bench/score.py``): amounts equal to the cent (``same_amount``; a
    receipt's "23.26" and its rounded "TOTAL 23.25" are two answers, though within the
    one-cent tolerance of an identity), every other field as ``same_value``."""
    if is_amount(a) and is_amount(b):
        return same_amount(to_amount(a), to_amount(b))
    return same_value(name, a, b)


def candidates(
    doc: DocumentText,
    rules_lines: list[dict] | None,
    proposals: dict[str, dict[str, Any]],
    *,
    model_ran: bool,
    profile_support: dict[str, int] | None = None,
) -> dict[str, list[Candidate]]:
    """Key field -> its candidates (maybe empty). ``proposals``: proposer (``PROPOSERS``) ->
    its normalised header fields; ``rules_lines``: the rules' line items (for the sum of the
    lines); ``model_ran``: whether the model was asked (its silence then says something);
    ``profile_support``: field -> approvals that back the vendor profile's proposal."""
    lines = annotated_lines(doc)
    ctx = _Context(doc, lines, proposals, model_ran, rules_lines or [], profile_support or {})
    out = {
        "total_amount": _amount_candidates(ctx),
        "invoice_date": _date_candidates(ctx),
        "invoice_number": _id_candidates(ctx),
        "vendor_name": _name_candidates(ctx),
        "currency": _currency_candidates(ctx),
    }
    for name, cands in out.items():
        _add_proposals(ctx, name, cands)
        for cand in cands:
            _common(ctx, cand, len(cands))
    _currency_features(out["currency"], doc.text)
    return out


# --------------------------------------------------------------------------- shared


@dataclass
class _Context:
    doc: DocumentText
    lines: list[TextLine]
    proposals: dict[str, dict[str, Any]]
    model_ran: bool
    rules_lines: list[dict]
    profile_support: dict[str, int] = field(default_factory=dict)
    medians: dict[int, float] = field(default_factory=dict)
    confidence: dict[tuple[int, int], float | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        by_page: dict[int, list[float]] = {}
        for line in self.lines:
            by_page.setdefault(line.page, []).append(line.height)
        self.medians = {page: sorted(hs)[len(hs) // 2] for page, hs in by_page.items()}
        for page in self.doc.pages:
            for index, line in enumerate(page.lines):
                self.confidence[(page.number, index)] = line.confidence


def _where(line: TextLine | None) -> dict[str, float]:
    return {"_page": line.page, "_index": line.index} if line is not None else {}


def _common(ctx: _Context, cand: Candidate, count: int) -> None:
    f = cand.features
    for proposer in PROPOSERS:
        f[f"by_{proposer}"] = float(proposer in cand.sources)
    f["n_proposers"] = float(len(cand.sources))
    f["profile_support"] = float(ctx.profile_support.get(cand.field, 0)) if "profile" in cand.sources else 0.0
    f["model_ran"] = float(ctx.model_ran)
    model, rules = ctx.proposals.get("model", {}).get(cand.field), ctx.proposals.get("rules", {}).get(cand.field)
    f["model_other"] = float(model is not None and "model" not in cand.sources)
    f["rules_other"] = float(rules is not None and "rules" not in cand.sources)
    f["n_pages"] = float(len(ctx.doc.pages))
    f["n_candidates"] = float(count)
    conf = ctx.doc.ocr_confidence
    f["doc_ocr_conf"] = conf if conf is not None else 1.0
    page_no, index = f.pop("_page", None), f.pop("_index", None)
    if page_no is None and cand.evidence is not None:
        page_no = cand.evidence["page"]
    page = next((p for p in ctx.doc.pages if p.number == page_no), None)
    if page is None:
        return
    f["ocr"] = float(page.source == "ocr")
    f["page_index"] = float(ctx.doc.pages.index(page))
    line = (
        next((ln for ln in ctx.lines if ln.page == page_no and ln.index == index), None) if index is not None else None
    )
    if line is None and cand.evidence is not None:
        line = next(
            (ln for ln in ctx.lines if ln.page == page_no and list(_round(ln.bbox)) == cand.evidence["bbox"]), None
        )
    if line is None:
        return
    if cand.evidence is None:
        cand.evidence = line.evidence()
    line_conf = ctx.confidence.get((line.page, line.index))
    f["ocr_conf"] = line_conf if line_conf is not None else 1.0
    f["rel_y"] = line.bbox[1] / max(line.page_height, 1.0)
    f["rel_height"] = line.height / max(ctx.medians.get(line.page, 1.0), 1.0)


def _round(box: Iterable[float]) -> list[float]:
    return [round(v, 1) for v in box]


def _add_proposals(ctx: _Context, name: str, cands: list[Candidate]) -> None:
    """Mark the candidates the proposers gave; a proposed value found nowhere else joins."""
    for proposer in PROPOSERS:
        value = ctx.proposals.get(proposer, {}).get(name)
        if value is None or value == "":
            continue
        # the candidate of that very value first: the rules' "TOTAL 23.25" is not the "23.26" above it
        match = next((c for c in cands if identical(name, c.value, value)), None)
        match = match or next((c for c in cands if same_value(name, c.value, value)), None)
        if match is None and proposer == "profile" and name == "invoice_number":
            match = next((c for c in cands if ocr_misread_of(c.value, value)), None)
        if match is None:
            hit = locate(value, ctx.doc, name)
            match = Candidate(name, value, evidence={"page": hit[0], "bbox": hit[1], "text": hit[2]} if hit else None)
            cands.append(match)
        elif proposer == "profile" and name in ("vendor_name", "invoice_number"):
            # the name as a person approved it, the number in the vendor's pattern ("OR18-47851"
            # for OCR's "0R18-47851"): not OCR's spelling of them
            match.value = value
        match.sources.add(proposer)


def ocr_misread_of(read: Any, printed: Any) -> bool:
    """Whether ``read`` is ``printed`` as OCR misreads it: another token that the vendor profile's
    own reading (``pipeline.profiles.profile.in_shape``, O/0, I/1, S/5, B/8...) reads back in
    ``printed``'s pattern as ``printed``."""
    if not isinstance(read, str) or not isinstance(printed, str) or read == printed:
        return False
    return (in_shape(read, {id_shape(printed): 1}) or "").upper() == printed.upper()


def _label_weight(line: TextLine | None, kind: str, before: int | None = None) -> float:
    if line is None:
        return 0.0
    return max(
        (lb.weight for lb in line.labels if lb.kind == kind and (before is None or lb.end <= before)), default=0.0
    )


def _line_above(ctx: _Context, line: TextLine) -> TextLine | None:
    """The nearest line above ``line`` on its page that overlaps it horizontally."""
    best = None
    for other in ctx.lines:
        if other.page != line.page or other.bbox[3] > line.bbox[1] + 0.3 * line.height:
            continue
        if other.bbox[0] > line.bbox[2] or other.bbox[2] < line.bbox[0]:
            continue
        if line.bbox[1] - other.bbox[3] > 3 * line.height:
            continue
        if best is None or other.bbox[3] > best.bbox[3]:
            best = other
    return best


# --------------------------------------------------------------------------- amounts


def _amount_candidates(ctx: _Context) -> list[Candidate]:
    seen: dict[Decimal, list[tuple[TextLine, Any]]] = {}
    order: list[TextLine] = []
    for line in ctx.lines:
        if line.amounts:
            order.append(line)
        for amount in money_amounts(line):  # not a barcode or an account number
            seen.setdefault(cents(abs(amount.value)), []).append((line, amount))
    values = sorted(seen, reverse=True)
    if len(values) > MAX_AMOUNTS:  # keep the largest and the labelled ones
        labelled = {v for v, hits in seen.items() if any(ln.labels for ln, _ in hits)}
        values = sorted(set(values[:MAX_AMOUNTS]) | labelled, reverse=True)
    label_scores: dict[Decimal, float] = {}
    for cand in amount_candidates(ctx.lines)["total_amount"] if ctx.lines else []:
        key = cents(abs(cand.value))
        label_scores[key] = max(label_scores.get(key, float("-inf")), cand.score)
    labelled_totals = [
        (cents(abs(a.value)), ln)
        for ln in ctx.lines
        for a in ln.amounts
        if any(lb.kind == "total_amount" and lb.end <= a.start for lb in ln.labels)
    ]
    cash = [cents(abs(a.value)) for ln in ctx.lines if CASH_RE.search(ln.text) for a in ln.amounts]
    change = [cents(abs(a.value)) for ln in ctx.lines if CHANGE_RE.search(ln.text) for a in ln.amounts]
    rules = ctx.proposals.get("rules", {})
    line_sum = _lines_sum(ctx.rules_lines)
    # OCR of a two-column block puts the cash and change lines' amounts on other lines than
    # their words ("Total TTC 283.15 CHF 300.00 ... / Espèces 16.85 / Rendu")
    printed = set(seen)
    whole = [v for v in seen if v > 0 and v == v.to_integral_value()]
    out = []
    for rank, value in enumerate(values):
        hits = seen[value]
        line, amount = max(hits, key=lambda hit: (_label_weight(hit[0], "total_amount", hit[1].start), hit[0].bbox[1]))
        above = _line_above(ctx, line)
        f: dict[str, float] = _where(line)
        f["lab_total"] = max(_label_weight(ln, "total_amount", a.start) for ln, a in hits)
        f["lab_total_above"] = _label_weight(above, "total_amount")
        for kind, key in (
            ("subtotal", "lab_subtotal"),
            ("tax_amount", "lab_tax"),
            ("paid_amount", "lab_paid"),
            ("balance_amount", "lab_balance"),
            ("discount", "lab_discount"),
            ("rounding", "lab_rounding"),
            ("ignore", "lab_ignore"),
        ):
            f[key] = max(_label_weight(ln, kind) for ln, _ in hits)
        f["kw_cash"] = float(any(CASH_RE.search(ln.text) for ln, _ in hits))
        f["kw_change"] = float(any(CHANGE_RE.search(ln.text) for ln, _ in hits))
        f["kw_round"] = float(any(_ROUND_RE.search(ln.text) for ln, _ in hits))
        f["kw_excl"] = float(any(_EXCL_RE.search(ln.text) for ln, _ in hits))
        f["rules_label_score"] = label_scores.get(value, NAN)
        f["value_log"] = math.log10(float(value) + 1.0)
        f["is_zero"] = float(value == 0)
        f["decimals"] = float(any(a.decimals for _, a in hits))
        f["currency_mark"] = float(any(a.currency for _, a in hits))
        f["rank_desc"] = rank / max(len(values) - 1, 1)
        f["is_max"] = float(rank == 0)
        f["from_bottom"] = 1.0 - order.index(line) / max(len(order) - 1, 1) if line in order else NAN
        f["repeats"] = float(len(hits))
        f["eq_lines_sum"] = float(line_sum is not None and (agree(line_sum, value) or cash_rounded(line_sum, value)))
        f["eq_sub_tax"] = float(_sub_tax(rules, value))
        f["eq_cash_change"] = float(any(c - value == ch and ch > 0 for c in cash for ch in change))
        f["tender_split"] = float(any(x > value and x - value in printed for x in whole))
        f["rounded_of_labelled"] = float(any(rounds_to(t, value) for t, _ in labelled_totals))
        f["has_rounded_twin"] = float(any(rounds_to(value, t) for t, _ in labelled_totals))
        f["above_labelled_total"] = float(
            any(t < value and ln.bbox[1] < line.bbox[1] and ln.page == line.page for t, ln in labelled_totals)
        )
        f["n_amounts"] = float(len(values))
        out.append(Candidate("total_amount", value, f))
    return out


def _lines_sum(rows: list[dict]) -> Decimal | None:
    totals = [to_amount(row.get("line_total")) for row in rows if is_amount(row.get("line_total"))]
    return sum(totals, Decimal(0)) if len(totals) >= 2 else None


def _sub_tax(rules: dict[str, Any], value: Decimal) -> bool:
    subtotal, tax = rules.get("subtotal"), rules.get("tax_amount")
    if not (is_amount(subtotal) and is_amount(tax)) or agree(to_amount(tax), Decimal(0)):
        return False
    expected = to_amount(subtotal) + to_amount(tax)
    return agree(expected, value) or cash_rounded(expected, value)


# --------------------------------------------------------------------------- dates


def _date_candidates(ctx: _Context) -> list[Candidate]:
    seen: dict[str, list[tuple[TextLine, Any]]] = {}
    for line in ctx.lines:
        for match in line.dates:
            seen.setdefault(match.iso, []).append((line, match))
    isos = sorted(seen)
    latest = isos[-1] if isos else None
    by_label: dict[tuple[str, str], float] = {}
    for score, kind, iso, _line, _start in labelled_dates(ctx.lines) if ctx.lines else []:
        by_label[(kind, iso)] = max(by_label.get((kind, iso), float("-inf")), score)
    out = []
    for iso in isos:
        hits = seen[iso]
        line, match = max(hits, key=lambda hit: (_label_weight(hit[0], "invoice_date"), -hit[0].bbox[1]))
        above = _line_above(ctx, line)
        f: dict[str, float] = _where(line)
        f["rules_invoice_date_score"] = by_label.get(("invoice_date", iso), NAN)
        f["rules_due_date_score"] = by_label.get(("due_date", iso), NAN)
        f["rules_other_date_score"] = by_label.get(("other_date", iso), NAN)
        f["lab_invoice_date"] = max(_label_weight(ln, "invoice_date", m.start) for ln, m in hits)
        f["lab_date_above"] = _label_weight(above, "invoice_date")
        f["lab_due"] = max(_label_weight(ln, "due_date") for ln, _ in hits)
        f["lab_other_date"] = max(_label_weight(ln, "other_date") for ln, _ in hits)
        f["has_time"] = float(any(_TIME_RE.search(ln.text) for ln, _ in hits))
        f["ambiguous"] = float(all(m.ambiguous for _, m in hits))
        f["repeats"] = float(len(hits))
        f["n_dates"] = float(len(isos))
        f["is_earliest"] = float(iso == isos[0])
        f["is_latest"] = float(iso == latest)
        f["days_before_latest"] = _days_between(iso, latest)
        f["year_ok"] = float(1990 <= int(iso[:4]) <= 2040)
        out.append(Candidate("invoice_date", iso, f))
    return out


def _days_between(iso: str, later: str | None) -> float:
    from datetime import date

    if later is None:
        return NAN
    return float((date.fromisoformat(later) - date.fromisoformat(iso)).days)


# --------------------------------------------------------------------------- ids


def _id_candidates(ctx: _Context) -> list[Candidate]:
    best: dict[str, tuple[float, TextLine, str, int]] = {}
    for score, value, line in invoice_number_candidates(ctx.lines) if ctx.lines else []:
        key = _id_key(value)
        if key and (key not in best or score > best[key][0]):
            best[key] = (score, line, value, line.text.find(value))
    labelled = len(best)
    # every id-like token of the first page (a number whose label the lexicon does not know)
    first = [ln for ln in ctx.lines if ln.page == ctx.lines[0].page] if ctx.lines else []
    for line in first:
        for match in ID_TOKEN_RE.finditer(line.text):
            value, key = match.group().lstrip("#"), _id_key(match.group())
            digits = sum(ch.isdigit() for ch in value)
            if digits < 3 or key in best or len(best) >= MAX_IDS:
                continue
            if any(d.start <= match.start() < d.end for d in line.dates):
                continue
            best[key] = (NAN, line, value, match.start())
    out = []
    for score, line, value, start in best.values():
        before = line.text[: max(start, 0)]
        above = _line_above(ctx, line)
        f: dict[str, float] = _where(line)
        f["rules_label_score"] = score
        f["digits"] = float(sum(ch.isdigit() for ch in value))
        f["letters"] = float(sum(ch.isalpha() for ch in value))
        f["length"] = float(len(value))
        f["below_label"] = float(not any(lb.kind == "invoice_number" for lb in line.labels))
        f["n_ids"] = float(labelled)
        f["repeats"] = float(sum(value in ln.text for ln in ctx.lines))
        f["lab_id_left"] = max(
            (lb.weight for lb in line.labels if lb.kind == "invoice_number" and lb.end <= start), default=0.0
        )
        f["lab_id_above"] = _label_weight(above, "invoice_number")
        f["other_id_left"] = float(
            bool(OTHER_ID_RE.search(before.rstrip(" :#.-")[-30:] + " ")) or bool(_OTHER_ID_NEAR_RE.search(before[-25:]))
        )
        f["other_label_left"] = float(any(lb.kind != "invoice_number" and lb.end <= start for lb in line.labels))
        f["separators"] = float(sum(ch in "-/." for ch in value))
        f["tax_id"] = float(bool(VAT_RE.fullmatch(value)) or is_valid_tax_id(value) or iban_country(value) is not None)
        out.append(Candidate("invoice_number", value, f))
    return out


def _id_key(value: str) -> str:
    return re.sub(r"[\W_]+", "", value).casefold()


# --------------------------------------------------------------------------- names


def _name_candidates(ctx: _Context) -> list[Candidate]:
    if not ctx.lines:
        return []
    zone = customer_zone(ctx.lines)
    customer_labels = {(line.page, line.index): label.end for line, label in section_starts(ctx.lines, "customer")}
    out: list[Candidate] = []
    seen: dict[str, Candidate] = {}

    def add(text: str, line: TextLine, kind: str, **features: float) -> None:
        text = _clean_name(text)
        key = " ".join(text.casefold().split())
        if sum(ch.isalpha() for ch in text) < 2 or len(text) > 90:
            return
        if key in seen:
            seen[key].features.setdefault(f"kind_{kind}", 1.0)
            return
        cand = Candidate("vendor_name", text, {**_where(line), f"kind_{kind}": 1.0, **features})
        seen[key] = cand
        out.append(cand)

    for rank, (score, name, line, _x, _address) in enumerate(vendor_candidates(ctx.lines, zone)):
        if name:
            add(name, line, "rules", rules_label_score=score, rank_by_rules=float(rank))
    # a copyright notice's line names the form's rights holder (labels.COPYRIGHT_RE), never the seller
    first = [ln for ln in ctx.lines if ln.page == ctx.lines[0].page and not COPYRIGHT_RE.search(ln.text)]
    top = first[:TOP_LINES]
    for i, line in enumerate(top):
        add(line.text, line, "line")
        cells = split_cells(line)
        if len(cells) > 1:
            for start, end, _box in cells:
                add(line.text[start:end], line, "cell")
        words = line.text.split()
        for k in range(1, min(5, len(words))):  # a name glued to its address by OCR
            add(" ".join(words[:k]), line, "prefix")
        below = top[i + 1] if i + 1 < len(top) else None
        if below is not None and _wraps(line, below):
            add(f"{line.text} {below.text}", line, "joined")
    # a legal form ends a name: the words before it, on any line of the first page's upper part
    for line in first[: 3 * TOP_LINES]:
        for match in _LEGAL_RE.finditer(line.text):
            words = line.text[: match.end()].split()
            # a CJK name is one word with its legal form glued on ("巨奥信息有限公司")
            glued = len(words[-1]) > len(match.group(0)) if words else False
            for k in range(1 if glued else 2, min(8, len(words)) + 1):
                add(" ".join(words[-k:]), line, "legal")
    for cand in out:
        text, f = str(cand.value), cand.features
        line = next((ln for ln in ctx.lines if ln.page == f.get("_page") and ln.index == f.get("_index")), None)
        letters = [ch for ch in text if ch.isalpha()]
        f["legal"] = float(bool(_LEGAL_RE.search(text)))
        f["legal_at_end"] = float(bool(_LEGAL_END_RE.search(text)))
        f["line_index"] = float(line.index) if line is not None else NAN
        f["upper_share"] = sum(ch.isupper() for ch in letters) / max(len(letters), 1)
        f["digit_share"] = sum(ch.isdigit() for ch in text) / max(len(text), 1)
        f["n_chars"] = float(len(text))
        f["n_words"] = float(len(text.split()))
        f["address_words"] = float(bool(_ADDRESS_RE.search(text) or POSTCODE_RE.search(text)))
        f["contact"] = float(bool(EMAIL_RE.search(text) or URL_RE.search(text) or PHONE_RE.search(text)))
        f["title"] = float(bool(TITLE_RE.search(text) or _CJK_THAI_TITLE_RE.search(text)))
        f["label_words"] = float(any(rx.search(text) for _, _, rx in LABEL_RES))
        f["customer_zone"] = float(line is not None and any((line.page, line.index, b) in zone for b in range(0, 40)))
        label_end = customer_labels.get((line.page, line.index)) if line is not None else None
        f["after_customer_label"] = float(
            label_end is not None and line.text.casefold().find(text.casefold(), label_end) >= label_end
        )
        f["repeats"] = float(sum(text.casefold() in ln.text.casefold() for ln in ctx.lines))
        for kind in _NAME_KINDS:
            f.setdefault(f"kind_{kind}", 0.0)
        f["ends_open"] = float(bool(_OPEN_END_RE.search(text)))
        f["starts_open"] = float(bool(_OPEN_START_RE.search(text)))
        above = _previous_line(ctx, line) if line is not None else None
        f["wraps_above"] = float(above is not None and _wraps(above, line) and _same_style(above, line))
        f["tail"] = float(_is_tail(line, text, above if f["wraps_above"] else None))
        f["slogan"] = float(bool(_SLOGAN_RE.search(text)))
        below = _next_line(ctx, line) if line is not None else None
        wraps = below is not None and _wraps(line, below) and _same_style(line, below)
        f["wraps_below"] = float(wraps and f.get("kind_joined", 0.0) == 0.0)
        f["company_no"] = float(_company_no_follows(line, text, below))
        f["contains_rules"] = float(_contains(text, ctx.proposals.get("rules", {}).get("vendor_name")))
        f["inside_rules"] = float(_contains(ctx.proposals.get("rules", {}).get("vendor_name"), text))
    return out


def _company_no_follows(line: TextLine | None, text: str, below: TextLine | None) -> bool:
    """Whether a company registration number (``_COMPANY_NO_RE``) is printed right after name
    candidate ``text``: on ``line`` after it, or first on ``below``, the next line (a number
    further along the next line follows the name printed there)."""
    if line is None:
        return False
    start = line.text.casefold().find(text.casefold())
    rest = line.text[start + len(text) :] if start >= 0 else ""
    return bool(_COMPANY_NO_RE.search(rest) or (below is not None and _COMPANY_NO_RE.match(below.text.strip())))


def _is_tail(line: TextLine | None, text: str, above: TextLine | None) -> bool:
    """Whether name candidate ``text`` continues a name begun before it: the words before it on
    ``line`` end open ("DE SMET, | DE MUYNCK EN YILMAZ BV"), or it starts ``line`` and ``above``
    (the line above, which it may wrap from) ends open ("Supermercados Castrillo &" / "Asociados
    S.Com.")."""
    if line is None:
        return False
    start = line.text.casefold().find(text.casefold())
    if start < 0:
        return False
    before = line.text[:start].strip()
    if before:
        return bool(_OPEN_END_RE.search(before))
    return above is not None and bool(_OPEN_END_RE.search(above.text))


def _previous_line(ctx: _Context, line: TextLine) -> TextLine | None:
    return next((ln for ln in ctx.lines if ln.page == line.page and ln.index == line.index - 1), None)


def _next_line(ctx: _Context, line: TextLine) -> TextLine | None:
    return next((ln for ln in ctx.lines if ln.page == line.page and ln.index == line.index + 1), None)


def _same_style(a: TextLine, b: TextLine) -> bool:
    """Two lines printed alike: about the same height, both upper case or both not."""
    upper = [sum(ch.isupper() for ch in t) > sum(ch.islower() for ch in t) for t in (a.text, b.text)]
    return 0.75 <= a.height / b.height <= 1.33 and upper[0] == upper[1]


def _contains(outer: Any, inner: Any) -> bool:
    """Whether name ``inner`` is part of name ``outer`` and shorter (letters and digits compared)."""
    if not outer or not inner:
        return False
    a, b = (re.sub(r"\W+", "", str(v)).casefold() for v in (outer, inner))
    return bool(b) and b in a and len(b) < len(a)


def _wraps(line: TextLine, below: TextLine) -> bool:
    """Whether ``below`` may continue ``line`` (a name over two lines): right under it and
    overlapping it horizontally."""
    gap = below.bbox[1] - line.bbox[3]
    overlap = min(line.bbox[2], below.bbox[2]) - max(line.bbox[0], below.bbox[0])
    return -0.5 * line.height <= gap < 1.2 * line.height and overlap > 0


def _clean_name(text: str) -> str:
    """A name without an owner prefix ("Owned by:"), a row label ("Name:", ``NAME_LABEL_RE``) and
    what follows its legal form (a registration number, a branch code). The label goes because
    the rules' name has none: "Name: Lieferant GmbH" is another answer than "Lieferant GmbH" to
    the reference scorer (similarity 0.848, under its 0.85), and the two split the softmax that
    ``pooled_share`` reads (FeRD's invoice prints, 76% sure of a right name)."""
    text = _OWNER_RE.sub("", " ".join(text.split())).strip(" ,:;-|")
    text = NAME_LABEL_RE.sub("", text)
    ends = [m.end() for m in _LEGAL_RE.finditer(text)]
    if ends and ends[-1] < len(text) and re.search(r"\d", text[ends[-1] :]):
        text = text[: ends[-1]]
    return text.strip(" ,:;-|")


# --------------------------------------------------------------------------- currency


def _currency_candidates(ctx: _Context) -> list[Candidate]:
    text = ctx.doc.text
    detected = detect_currency(text)
    out = [Candidate("currency", detected)] if detected else []
    return out


def _currency_features(cands: list[Candidate], text: str) -> None:
    """Currency features, once every proposal has joined."""
    detected = detect_currency(text)
    for cand in cands:
        code = str(cand.value)
        cand.features["detected"] = float(code == detected)
        cand.features["code_printed"] = float(len(re.findall(rf"(?<![A-Za-z]){re.escape(code)}(?![A-Za-z])", text)))
        symbol = _SYMBOLS.get(code)
        cand.features["symbol_printed"] = float(text.count(symbol)) if symbol else 0.0
