"""Per-field arbitration between the value proposers of tiers 1 and 2, and the key-field
reasons that keep a document out of ``completed``.

A vendor template, the layout rules and the extraction model each propose values. For every
header field: a template's value wins (an operator wrote it for this vendor); otherwise when the
rules and the model agree the value is *confirmed*; when only one proposes a value it is taken
as it is; when they disagree, amounts are settled by the invoice's arithmetic (the candidate
with which the totals add up), anything else by the source that was right more often in such
disputes on the hold-out fold of the training data (the table's ``preferred``). Line items: the first
candidate list whose sum matches the invoice's totals (rules first), else the longer one.

``key_field_reasons`` turns the outcome into clerk-readable reasons for ``needs_review``
(spec 3.1: ``completed`` means nobody has to look): a key field missing, or set on an outcome
(agreed, one source alone, a dispute won by a source) that was not right often enough on the
hold-out fold. An outcome may be refined by evidence beyond agreement (``evidence_tags``: the
rules' own amounts add up to the total they read, a vendor name carries a legal form), so
that ``agreed:rules+sum`` can be trusted where ``agreed:rules`` alone is not. Which outcomes
are trusted, and who wins a dispute, live in an ``ArbiterTable``: ``arbiter_table.json`` beside
this module, fitted by ``scripts/calibrate-arbiter`` for the bundled model and adapter on the
training data's hold-out fold (never on the dev set), or an operator's own
(``llm.arbiter_table``).
Imports only ``pipeline`` modules; must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.rules.labels import COMPANY_RE
from pipeline.schema import AMOUNT_FIELDS, DATE_FIELDS, HEADER_FIELDS, ID_FIELDS, KEY_FIELDS, Source
from pipeline.values.money import agree, cash_rounded, cents, is_amount, to_amount
from pipeline.values.validate import balance_adds_up, lines_add_up, tax_below_total, totals_add_up

TABLE_PATH = Path(__file__).with_name("arbiter_table.json")


@dataclass(frozen=True)
class ArbiterTable:
    """What ``scripts/calibrate-arbiter`` measured for one model (base GGUF + adapter) on the
    hold-out fold of the training data: ``preferred`` (field -> the source that wins a dispute
    over a field that is not an amount) and ``trusted`` (field -> the outcomes
    ``"status:source"``, e.g. ``"agreed:rules"``, ``"model:llm"``, or refined by an evidence
    tag, ``"agreed:rules+sum"``, on which a key field may be completed without a reviewer).
    ``path`` names the file it came from."""

    preferred: dict[str, Source]
    trusted: dict[str, frozenset[str]]
    path: str = ""

    @classmethod
    def load(cls, path: str | Path = "") -> ArbiterTable:
        """The table in ``path`` (``arbiter_table.json`` of this package when empty). Raises
        OSError when the file cannot be read, ValueError when it is not such a table."""
        path = Path(path) if path else TABLE_PATH
        raw = json.loads(path.read_text(encoding="utf-8"))
        try:
            preferred = {name: Source(value) for name, value in raw["preferred"].items()}
            trusted = {name: frozenset(values) for name, values in raw["trusted"].items()}
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ValueError(f"{path} is not an arbiter table (preferred and trusted): {exc}") from exc
        return cls(preferred, trusted, str(path))


BUNDLED_TABLE = ArbiterTable.load()
# Key fields whose absence needs a look (a receipt has no invoice number; currency is often
# implicit).
REQUIRED_KEYS = ("invoice_date", "vendor_name", "total_amount")
_TEXT_RATIO = 0.85  # the reference scorer's threshold for names and addresses


@dataclass(frozen=True)
class Decision:
    """The value chosen for one field. ``status``: ``template``, ``agreed`` (rules and model),
    ``rules`` / ``model`` (only that source had a value), ``disputed`` (they disagreed;
    ``other`` is the losing value, ``other_source`` its source) or ``scored`` (a key field the
    learned scorer chose; ``other`` its runner-up, ``probability`` its calibrated probability)."""

    value: Any
    source: Source
    status: str
    other: Any = None
    other_source: Source | None = None
    probability: float | None = None


def same(name: str, a: Any, b: Any) -> bool:
    """Whether two normalised values of field ``name`` say the same thing (amounts to the
    cent, IDs on letters and digits, names and addresses fuzzily as the scorer compares)."""
    if a is None or b is None:
        return False
    if name in AMOUNT_FIELDS:
        return is_amount(a) and is_amount(b) and agree(a, b)
    if name in DATE_FIELDS or name == "currency":
        return a == b
    if name in ID_FIELDS:
        return _alnum(a) == _alnum(b)
    left, right = _fold(a), _fold(b)
    return left == right or difflib.SequenceMatcher(None, left, right).ratio() >= _TEXT_RATIO


def arbitrate(
    template: dict[str, Any], rules: dict[str, Any], model: dict[str, Any], table: ArbiterTable = BUNDLED_TABLE
) -> dict[str, Decision]:
    """One Decision per header field that any source filled (normalised values in, chosen
    values out); ``table`` says who wins a dispute over a field that is not an amount."""
    decisions: dict[str, Decision] = {}
    disputed_amounts = []
    for name in HEADER_FIELDS:
        t, r, m = template.get(name), rules.get(name), model.get(name)
        if t is not None:
            decisions[name] = Decision(t, Source.TEMPLATE, "template")
        elif r is not None and m is not None:
            if same(name, r, m):
                decisions[name] = Decision(r, Source.RULES, "agreed")
            elif name in AMOUNT_FIELDS:
                disputed_amounts.append(name)
                decisions[name] = Decision(r, Source.RULES, "disputed", m, Source.MODEL)
            elif table.preferred.get(name, Source.RULES) == Source.MODEL:
                decisions[name] = Decision(m, Source.MODEL, "disputed", r, Source.RULES)
            else:
                decisions[name] = Decision(r, Source.RULES, "disputed", m, Source.MODEL)
        elif r is not None:
            decisions[name] = Decision(r, Source.RULES, "rules")
        elif m is not None:
            decisions[name] = Decision(m, Source.MODEL, "model")
    for name in disputed_amounts:  # settle by arithmetic: which reading makes the invoice add up
        current = decisions[name]
        values = {key: d.value for key, d in decisions.items()}
        mine = _arithmetic_errors(values)
        values[name] = current.other
        theirs = _arithmetic_errors(values)
        if theirs < mine:
            decisions[name] = Decision(current.other, Source.MODEL, "disputed", current.value, Source.RULES)
    return decisions


def tax_within_total(decisions: dict[str, Decision]) -> None:
    """Keep ``decisions``' tax amount a part of its total (the chosen ``total_amount``, the
    scorer's where it chose one), in place: no VAT or GST rate reaches 100 %, so a tax as large as
    the total is another figure read into the tax field (the model echoing "Total incl. GST
    102.00", the rules taking "SUB-TOTAL (GST) 14.00" for the GST). The losing source's tax
    takes its place when it is below the total, else the document has no tax amount: a tax
    left out is an empty field, a wrong one held a receipt whose key fields were right
    (``validate.tax_below_total``). A template's tax stays as its template reads it."""
    tax, total = decisions.get("tax_amount"), decisions.get("total_amount")
    if tax is None or total is None or tax.source == Source.TEMPLATE:  # an operator wrote the rule
        return
    if not tax_below_total({"tax_amount": tax.value, "total_amount": total.value}):
        return
    if is_amount(tax.other) and not tax_below_total({"tax_amount": tax.other, "total_amount": total.value}):
        decisions["tax_amount"] = Decision(
            tax.other, tax.other_source or Source.RULES, "disputed", tax.value, tax.source
        )
    else:
        del decisions["tax_amount"]


def choose_lines(candidates: list[list[dict[str, Any]]], header: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """(index, lines) of the first candidate list whose line totals match the header's totals
    (``validate.lines_add_up``), else of the longest non-empty one; (-1, []) when all are empty."""
    filled = [(index, lines) for index, lines in enumerate(candidates) if lines]
    if not filled:
        return -1, []
    for index, lines in filled:
        if _adds_up(lines, header):
            return index, lines
    return max(filled, key=lambda pair: len(pair[1]))


def lines_settled(candidates: list[list[dict[str, Any]]], header: dict[str, Any]) -> bool:
    """Whether ``choose_lines`` takes one of ``candidates`` whatever list is appended after
    them: one of them adds up to the header's totals. The pipeline then does not ask the model
    for its rows."""
    return any(lines and _adds_up(lines, header) for lines in candidates)


def _adds_up(lines: list[dict[str, Any]], header: dict[str, Any]) -> bool:
    return any(line.get("line_total") is not None for line in lines) and not lines_add_up(
        {**header, "line_items": lines}
    )


def evidence_tags(
    decisions: dict[str, Decision], rules: dict[str, Any], rules_lines: list[dict[str, Any]] | None = None
) -> dict[str, str]:
    """Evidence beyond agreement for the key fields whose value is the rules' reading, as
    ``{field: tag}``; ``rules`` and ``rules_lines`` are the rules' own normalised header and rows.

    * ``total_amount``: ``sum`` when the rules' amounts add up to their total with something to
      add (a subtotal different from the total plus tax, discount or charges, EN 16931
      BR-CO-15; or, on a receipt, at least two line totals summing to the total). A total that
      merely equals the subtotal, or a lone figure, proves nothing.
    * ``vendor_name``: ``legal`` when the name carries a legal form (GmbH, Ltd, SAS, Sdn Bhd...):
      a brand or logo line, the usual wrong vendor, has none.

    A field another source decided (template, the model's value) gets no tag."""
    tags: dict[str, str] = {}
    total = decisions.get("total_amount")
    if total is not None and total.source == Source.RULES and _amounts_add_up(rules, rules_lines or []):
        tags["total_amount"] = "sum"
    vendor = decisions.get("vendor_name")
    if vendor is not None and vendor.source == Source.RULES and COMPANY_RE.search(str(vendor.value)):
        tags["vendor_name"] = "legal"
    return tags


def _amounts_add_up(header: dict[str, Any], lines: list[dict[str, Any]]) -> bool:
    total, subtotal = header.get("total_amount"), header.get("subtotal")
    if not is_amount(total):
        return False
    terms = [header.get(k) for k in ("tax_amount", "discount", "shipping_cost", "service_charge")]
    if (
        is_amount(subtotal)
        and not agree(subtotal, total)
        and any(is_amount(term) and not agree(term, 0) for term in terms)
        and not totals_add_up(header)
    ):
        return True
    line_totals = [to_amount(line.get("line_total")) for line in lines if is_amount(line.get("line_total"))]
    if len(line_totals) < 2:
        return False
    line_sum = sum(line_totals)
    return agree(line_sum, total) or cash_rounded(line_sum, to_amount(total))


def key_field_reasons(
    decisions: dict[str, Decision], table: ArbiterTable = BUNDLED_TABLE, tags: dict[str, str] | None = None
) -> list[str]:
    """Reasons, for ``validationErrors``, why the key fields are not yet trustworthy (empty when
    every key field was set by a template or on an outcome ``table`` trusts, plain or refined by
    its tag in ``tags``, as ``evidence_tags`` returns)."""
    reasons = []
    tags = tags or {}
    for name in KEY_FIELDS:
        decision = decisions.get(name)
        if decision is None:
            if name in REQUIRED_KEYS:
                reasons.append(f"{name} not found in the document")
            continue
        outcome = f"{decision.status}:{decision.source}"
        refined = f"{outcome}+{tags[name]}" if name in tags else None
        if decision.status == "template" or {outcome, refined} & table.trusted.get(name, frozenset()):
            continue
        if decision.status == "disputed":
            reasons.append(
                f"{name} {_show(decision.value)} not confirmed: the {_who(decision.other_source)} "
                f"read {_show(decision.other)}"
            )
        elif decision.status == "agreed":
            reasons.append(f"{name} {_show(decision.value)} read alike by rules and model, still not reliable")
        else:
            reasons.append(f"{name} {_show(decision.value)} read by the {_who(decision.source)} only, not confirmed")
    return reasons


def _arithmetic_errors(values: dict[str, Any]) -> int:
    return len(totals_add_up(values)) + len(tax_below_total(values)) + len(balance_adds_up(values))


def _who(source: Source | None) -> str:
    return {Source.MODEL: "model", Source.RULES: "rules", Source.TEMPLATE: "template"}.get(source, str(source))


def _show(value: Any) -> str:
    if is_amount(value):
        return f"{cents(value):.2f}"
    return repr(value) if isinstance(value, str) else str(value)


def _alnum(value: Any) -> str:
    return re.sub(r"[\W_]+", "", str(value)).casefold()


def _fold(value: Any) -> str:
    text = unicodedata.normalize("NFKD", str(value))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[^\w\s]", " ", text).casefold().split())
