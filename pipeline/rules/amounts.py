"""Amount fields of the rules extractor: candidates from labels, chosen by their arithmetic.

This module owns subtotal, discount, tax, shipping, service charge, total, paid and balance:
every labelled amount is a candidate, and the combination whose sum holds (subtotal - discount
+ tax + charges = total, total - paid = balance) wins. Pipeline must not import ``api`` or
``appliance``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal

from pipeline.rules.labels import CHANGE_RE
from pipeline.rules.layout import LabelHit, TextLine, below_lines, overlaps_box, reading_order, region_end
from pipeline.rules.lines import is_table_header
from pipeline.schema import AMOUNT_FIELDS
from pipeline.values.money import agree, cash_rounded, cents, same_amount
from pipeline.values.parsers import AmountMatch

# A receipt's tax summary below its totals ("GST SUMMARY / TAX CODE % AMOUNT TAX / SR 6 144.68
# 8.68 / TOTAL: 144.68 8.68"): its "TOTAL" row sums the net amounts and the tax, not the document.
_TAX_SUMMARY_RE = re.compile(r"(?<![a-z])(?:gst|tax|vat)\s*summary", re.I)
# An amount this large is a barcode, a GTIN or an account number printed near a label, not money
# ("GTIN: 4012345001235" below a totals block).
MAX_AMOUNT = Decimal("1e11")


@dataclass
class Cand:
    """A candidate value for a field: its score, source line and reading order."""

    value: Decimal
    score: float
    line: TextLine
    order: float = 0.0


def amount_candidates(lines: list[TextLine]) -> dict[str, list[Cand]]:
    """Amount candidates per field: amounts right of an amount label, else just below it."""
    kinds = set(AMOUNT_FIELDS) | {"rounding"}
    cands: dict[str, list[Cand]] = {k: [] for k in kinds}
    in_tax_summary = False
    point_dropped = _prints_cents(lines)
    for line in lines:
        if is_table_header(line):
            continue  # "Discount  Line Total" name the columns of the rows below, not their sums
        in_tax_summary = in_tax_summary or bool(_TAX_SUMMARY_RE.search(line.text))
        for label in line.labels:
            if label.kind not in kinds:
                continue
            summary_total = in_tax_summary and label.kind == "total_amount"
            end = region_end(line, label)
            right = [a for a in money_amounts(line) if a.start >= label.end and a.end <= end]
            if right:
                for rank, amount in enumerate([] if summary_total else reversed(right)):
                    score = label.weight * (1.0 if rank == 0 else 0.5) + _amount_quality(amount)
                    cands[label.kind].append(Cand(amount.value, score, line, reading_order(line)))
                    if point_dropped and line.ocr and _lost_point(line, amount):
                        cands[label.kind].append(Cand(amount.value / 100, score - 0.2, line, reading_order(line)))
                if label.kind == "total_amount":
                    for kind, amount in _net_and_tax(right).items():
                        score = label.weight * 0.5 + _amount_quality(amount)
                        cands[kind].append(Cand(amount.value, score, line, reading_order(line)))
                continue
            if summary_total or _other_text_right(line, label, end):
                continue
            for below in below_lines(lines, line, label.bbox):
                hits = [a for a in money_amounts(below) if overlaps_box(below, a.start, a.end, label.bbox, 15)]
                if hits and not below.labels[:1] or hits and below.labels and below.labels[0].start > hits[0].start:
                    amount = hits[-1]
                    cands[label.kind].append(
                        Cand(amount.value, label.weight * 0.8 + _amount_quality(amount), below, reading_order(below))
                    )
                    break
    return cands


def money_amounts(line: TextLine) -> list[AmountMatch]:
    """The amounts of ``line`` that may be money (below ``MAX_AMOUNT``): what the rules and the
    scorer's candidates (``pipeline.decision.candidates``) take amounts from."""
    return [a for a in line.amounts if abs(a.value) < MAX_AMOUNT]


def _prints_cents(lines: list[TextLine]) -> bool:
    """Whether the document prints amounts with cents: three or more of them (a receipt's "Subtotal
    600" beside "Payment: 6.00" then lost its point; an invoice in yen prints none)."""
    return sum(a.decimals for line in lines for a in line.amounts) >= 3


def _lost_point(line: TextLine, amount: AmountMatch) -> bool:
    """Whether OCR may have lost the decimal point of ``amount`` ("Subtotal 600" for 6.00 on a
    receipt that prints cents everywhere else): three or more bare digits, no separator."""
    return not amount.decimals and bool(re.fullmatch(r"\d{3,}", line.text[amount.start : amount.end].strip()))


def _net_and_tax(right: list[AmountMatch]) -> dict[str, AmountMatch]:
    """The sum row of a table with net and tax columns, printed after a total label: "合计
    ¥224,878.78 ¥14,969.38" (the 金额 and 税额 columns of a Chinese VAT invoice, whose total is
    the 价税合计 line below), "Summe 100,00 19,00 119,00". The first amount may be the subtotal
    and the second the tax: candidates that the arithmetic of ``choose_amounts`` confirms or not."""
    if len(right) not in (2, 3) or not abs(right[1].value) < abs(right[0].value):
        return {}
    if len(right) == 3 and not agree(right[0].value + right[1].value, right[2].value):
        return {}
    return {"subtotal": right[0], "tax_amount": right[1]}


def _other_text_right(line: TextLine, label: LabelHit, end: int) -> bool:
    """Whether words that are neither values nor labels follow the label (a sentence, not a cell)."""
    rest = line.text[label.end : end]
    return len(re.sub(r"[\W\d_]", "", rest)) > 12


def _amount_quality(amount: AmountMatch) -> float:
    """A small bonus for amounts printed like money (decimals, a currency mark)."""
    return (0.3 if amount.decimals else -0.6) + (0.2 if amount.currency else 0.0)


def _best_by_value(cands: list[Cand], limit: int = 4) -> list[Cand]:
    """Distinct values with their best score; a value printed again adds a little."""
    by_value: dict[Decimal, Cand] = {}
    counts: dict[Decimal, int] = {}
    for cand in cands:
        key = cents(cand.value)
        counts[key] = counts.get(key, 0) + 1
        if key not in by_value or cand.score > by_value[key].score:
            by_value[key] = cand
    out = []
    for key, cand in by_value.items():
        out.append(Cand(cand.value, cand.score + 0.15 * min(counts[key] - 1, 3), cand.line, cand.order))
    out.sort(key=lambda c: -c.score)
    return out[:limit]


def choose_amounts(cands: dict[str, list[Cand]], lines: list[TextLine]) -> dict[str, Cand]:
    """Pick one value per amount field, rewarding combinations whose arithmetic holds."""
    top = {k: _best_by_value(v) for k, v in cands.items()}
    if not top["total_amount"]:
        fallback = _fallback_total(lines)
        if fallback:
            top["total_amount"] = [fallback]
    top["subtotal"] = _best_by_value(cands["subtotal"] + _pre_rounding_totals(top), limit=4)
    best, best_score = {}, float("-inf")
    totals = top["total_amount"] or [None]
    options = {
        k: [None] + top[k][:3]
        for k in ("subtotal", "tax_amount", "discount", "shipping_cost", "service_charge", "rounding")
    }
    options["tax_amount"] += _tax_by_rate_sum(cands["tax_amount"])
    consistent = False
    for total in totals:
        for combo in itertools.product(*options.values()):
            chosen = dict(zip(options.keys(), combo, strict=True))
            chosen["total_amount"] = total
            bonus = _arithmetic_bonus(chosen)
            # Label quality decides between readings; arithmetic decides which fields to keep.
            score = (total.score if total else 0) + bonus
            score += sum(0.2 * c.score for k, c in chosen.items() if c is not None and k != "total_amount")
            if bonus <= 0:
                score -= sum(1.0 for k, c in chosen.items() if c is not None and k != "total_amount")
            if score > best_score:
                best, best_score, consistent = chosen, score, bonus > 0
    best = {k: v for k, v in best.items() if v is not None}
    if not consistent:
        # No arithmetic to lean on: keep each label's best reading on its own.
        for name in ("subtotal", "tax_amount"):
            if top[name] and top[name][0].score >= 2.0:
                best[name] = top[name][0]
    if "total_amount" in best and "subtotal" not in best and "tax_amount" in best:
        if agree(best["tax_amount"].value, Decimal(0)):
            sub = best["total_amount"].value - best["tax_amount"].value
            best["subtotal"] = Cand(sub, 0.0, best["total_amount"].line)
    _settled_total(best, top)
    _choose_paid_balance(best, top)
    return best


def _settled_total(best: dict[str, Cand], top: dict[str, list[Cand]]) -> None:
    """A paid invoice's "Amount due 0.00" is its balance, not its total: with a payment printed,
    a zero total becomes the balance and the total is what was paid (a SaaS receipt that prints
    no "Total" line); a total that a printed payment brings up to another total printed is the
    balance after a deposit, and that other total the invoice's."""
    total = best.get("total_amount")
    paid = next((c for c in top["paid_amount"] if not agree(c.value, Decimal(0))), None)
    if total is None or paid is None:
        return
    if not agree(total.value, Decimal(0)):
        # a deposit deducted: "TOTALE 1'083.05 / Acconto ricevuto -350.00 / Da pagare 733.05"
        gross = next((c for c in top["total_amount"] if agree(c.value, total.value + abs(paid.value))), None)
        if gross is not None:
            best["balance_amount"], best["total_amount"] = total, gross
        return
    best["balance_amount"] = total
    # what was paid, printed as a deduction or not ("Cobrado -118.914,86")
    best["total_amount"] = Cand(abs(paid.value), paid.score, paid.line, paid.order)


def _arithmetic_bonus(chosen: dict[str, Cand | None]) -> float:
    """How well a choice of amounts adds up (subtotal - discount + tax + charges = total)."""
    value = {k: (c.value if c is not None else None) for k, c in chosen.items()}
    total, sub = value["total_amount"], value["subtotal"]
    if total is None or sub is None:
        return 0.0
    zero = Decimal(0)
    tax = value["tax_amount"] or zero
    disc = abs(value["discount"] or zero)
    extra = (value["shipping_cost"] or zero) + (value["service_charge"] or zero) + (value["rounding"] or zero)
    terms = sum(
        1 for k in ("tax_amount", "discount", "shipping_cost", "service_charge", "rounding") if value[k] is not None
    )
    if agree(sub - disc + tax + extra, total):
        if not (terms or agree(sub, total)):
            return 0.0
        # To the cent beats within a cent: "Total 28.49, Rounding 0.01, Total 28.50" adds up
        # both ways within the tolerance, only the rounded total exactly.
        return 4.0 + 0.5 * terms + (0.25 if same_amount(sub - disc + tax + extra, total) else 0.0)
    if agree(sub + tax + extra, total) and terms:  # discount already inside the subtotal
        return 2.0
    if terms and value["rounding"] is None and cash_rounded(sub - disc + tax + extra, total):
        return 3.0 + 0.5 * terms
    # A subtotal larger than the total without a discount is a misread.
    return -1.0 if abs(sub) > abs(total) and not agree(abs(sub), abs(total)) and not disc else 0.0


def _tax_by_rate_sum(taxes: list[Cand]) -> list[Cand]:
    """The sum of a tax printed per rate on lines of its own ("Cuota IVA @21% 70,81", "Cuota
    IVA @10% 6,00"): the document's tax (EN 16931 BT-110 is the sum of the VAT breakdown's
    BT-117), offered beside each line's amount for the arithmetic to confirm. Every run of two
    or more lines in reading order is offered, as a line item that names the tax ("Pfand inkl.
    MwSt. 3,99") can read as a tax line just above the breakdown."""
    by_line: dict[int, Cand] = {}
    for cand in taxes:
        key = id(cand.line)
        if key not in by_line or cand.score > by_line[key].score:
            by_line[key] = cand
    rows = sorted(by_line.values(), key=lambda c: c.order)
    if not 2 <= len(rows) <= 6:
        return []
    out = []
    for start, end in itertools.combinations(range(len(rows) + 1), 2):
        run = rows[start:end]
        if len(run) < 2 or len({cents(c.value) for c in run}) < len(run):
            continue
        total = sum((c.value for c in run), Decimal(0))
        out.append(Cand(total, min(c.score for c in run) - 0.5, run[-1].line, run[-1].order))
    return out


def _pre_rounding_totals(top: dict[str, list[Cand]]) -> list[Cand]:
    """Totals that another total equals plus a printed rounding ("Total 8.48, Rounding 0.02,
    Nett Total 8.50"): the total before rounding, offered as a subtotal candidate."""
    out = []
    for low, high in itertools.permutations(top["total_amount"], 2):
        for rounding in top["rounding"]:
            if not agree(rounding.value, Decimal(0)) and same_amount(low.value + rounding.value, high.value):
                out.append(Cand(low.value, low.score - 1.0, low.line, low.order))
    return out


def _choose_paid_balance(best: dict[str, Cand], top: dict[str, list[Cand]]) -> None:
    """Paid and balance amounts: the pair that makes total - paid = balance, if any."""
    total = best.get("total_amount")
    paid = top["paid_amount"][0] if top["paid_amount"] else None
    balances = top["balance_amount"]
    if total is not None and paid is not None and balances:
        for bal in balances:
            for sign in (1, -1):
                if agree(total.value - sign * paid.value, bal.value):
                    best["balance_amount"] = bal
                    # Paid is what makes total - paid = balance, whatever sign the print uses.
                    paid = Cand(sign * paid.value, paid.score, paid.line)
                    break
            if "balance_amount" in best:
                break
    elif balances:
        best["balance_amount"] = balances[0]
    if paid is not None and "balance_amount" not in best and total is not None and paid.value < 0 < total.value:
        paid = Cand(-paid.value, paid.score, paid.line)  # "已付金额 -8,750.00" deducted: 8,750.00 paid
    if paid is not None:
        best["paid_amount"] = paid
    elif total is not None and "balance_amount" in best:
        diff = total.value - best["balance_amount"].value
        if not agree(diff, Decimal(0)):
            best["paid_amount"] = Cand(diff, 0.0, best["balance_amount"].line)


def _fallback_total(lines: list[TextLine]) -> Cand | None:
    """Without a total label: the largest amount with decimals in the lower two thirds; where
    change was given, not on a line of cash tendered or change ("Received 150.00" above "Change
    14.00": the 136.00 of "Net Amt" is the total; without change the cash is the total)."""
    change = any(CHANGE_RE.search(line.text) and any(a.value for a in line.amounts) for line in lines)
    pool = [
        (a.value, line)
        for line in lines
        for a in line.amounts
        if a.decimals
        and line.bbox[1] > line.page_height / 3
        and abs(a.value) < 1e7
        and not (change and any(label.kind == "ignore" for label in line.labels))
    ]
    if not pool:
        return None
    value, line = max(pool, key=lambda p: p[0])
    return Cand(value, 0.5, line)


_CREDIT_NOTE_RE = re.compile(
    r"(?<![a-z])(?:credit\s*note|credit\s*memo|avoir|gutschrift(?:s?nummer|s?nr)?|creditnota|creditfactuur"
    r"|factura\s+de\s+abono|nota\s+(?:di\s+)?credito"
    r"|nota\s+de\s+cr[ée]dito|note\s+de\s+cr[ée]dit|红字|贷项|ใบลดหนี้)(?![a-z])",
    re.I,
)


def is_credit_note(lines: list[TextLine]) -> bool:
    """Whether the document calls itself a credit note in its first lines (title, not body text)."""
    first_page = lines[0].page if lines else 1
    head = [line for line in lines if line.page == first_page and line.bbox[1] < 0.4 * line.page_height]
    return any(_CREDIT_NOTE_RE.search(line.text) and len(line.text) < 60 for line in head)


def unsign_credit_note(fields: dict, items: list[dict]) -> None:
    """A credit note states what is credited: amounts printed negative become positive, as in the
    e-invoice (EN 16931 credit note, type 381). Corrected invoices keep their signs."""
    total = fields.get("total_amount")
    if not isinstance(total, Decimal) or total >= 0:
        return
    for name in AMOUNT_FIELDS:
        if isinstance(fields.get(name), Decimal):
            fields[name] = abs(fields[name])
    for item in items:
        for key in ("line_total", "unit_price"):
            if isinstance(item.get(key), Decimal):
                item[key] = abs(item[key])
