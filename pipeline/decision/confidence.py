"""Calibrated confidence of one extracted field: the dev-set accuracy of fields like it.

The model is a small table of buckets (``pipeline/decision/confidence_table.json``, fitted by
``scripts/calibrate-confidence`` and committed as data). A field falls into a chain of ever
narrower buckets::

    source > page source (text_layer/ocr/none) > field group > arithmetic (ok/bad/na)
           > labelled (the evidence line carries the field's label) > field

and its confidence is the accuracy of the narrowest bucket, where every bucket's accuracy is
shrunk toward its parent's (``(right + m * parent) / (n + m)``, m = ``prior_strength``), so a
bucket with few dev samples says little more than its parent. The parent of a condition
bucket (arithmetic, labelled, OCR line confidence) is the parent's accuracy times that
condition's lift pooled over all sources, bounded so that a warning (arithmetic bad, no label,
low OCR confidence) never raises it; so an unseen "arithmetic bad" bucket is not above its
parent. The lift of ``arith=disputed`` (an e-invoice field the print contradicts) is fixed at
0.75 (``FIXED_LIFTS``): the dev truth of e-invoices is their XML. A source with no dev
samples (``template``, ``human``, and ``llm`` when calibrated without a model) starts from
the fixed prior of ``source_priors``. For OCR'd evidence the OCR confidence of
the line adds one more level (``ocr>=0.9`` or lower). The result is clipped to
[``floor``, ``ceiling``] (no field is certain: 0.99 at most, an LLM answer 0.95 at most).

Without a table file the source priors alone are used. Standard library and ``pipeline.schema``
only; pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.schema import Source

__all__ = [
    "TABLE_PATH",
    "FIELD_GROUPS",
    "confidence",
    "predict_with",
    "bucket_chain",
    "fit",
    "reliability",
    "load_table",
]

TABLE_PATH = Path(__file__).with_name("confidence_table.json")
FIELD_GROUPS = {
    "invoice_number": "id",
    "vendor_tax_id": "id",
    "invoice_date": "date",
    "due_date": "date",
    "vendor_name": "party",
    "customer_name": "party",
    "vendor_address": "address",
    "vendor_email": "contact",
    "payment_terms": "contact",
    "currency": "currency",
    "total_amount": "total",
    "subtotal": "amount",
    "discount": "amount",
    "tax_amount": "amount",
    "service_charge": "amount",
    "shipping_cost": "amount",
    "paid_amount": "amount",
    "balance_amount": "amount",
}
# Before any data: what each source is worth (human corrections, e-invoice XML are exact).
DEFAULT_PRIORS = {
    Source.HUMAN: 0.99,
    Source.EINVOICE: 0.99,
    Source.TEMPLATE: 0.9,
    Source.PROFILE: 0.9,
    Source.RULES: 0.75,
    Source.MODEL: 0.5,
}
# Lifts set by hand, not fitted: the dev e-invoices' truth is their XML, so a field whose print
# disagrees with the XML is never "wrong" there, yet it deserves a reviewer's look.
FIXED_LIFTS = {"arith=disputed": 0.75}
# Conditions whose pooled lift may only raise (confirmations) or only lower (warnings).
LIFT_AT_LEAST_ONE = {"arith=ok", "label=yes", "ocr=hi"}
LIFT_AT_MOST_ONE = {"arith=bad", "arith=disputed", "label=no", "ocr=lo"}
PRIOR_STRENGTH = 4.0
OCR_LINE_THRESHOLD = 0.9
FLOOR, CEILING = 0.01, 0.99
# A generative model's answer is never as sure as the XML or a rule, whatever the dev buckets say.
SOURCE_CEILINGS = {Source.MODEL: 0.95}


def bucket_chain(field: str, source: str, features: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The buckets of one field, broadest first, as ``(key, condition)``; ``condition`` names the
    pooled lift that sets a bucket's prior (``arith=bad``...) or is None for plain nesting."""
    page_source = features.get("page_source") or "none"
    arithmetic = features.get("arithmetic") or "na"
    labelled = "yes" if features.get("labelled") else "no"
    chain = [(source, None)]
    if source == Source.HUMAN:  # a reviewer's value: the print, OCR and arithmetic say nothing about it
        return chain
    key = f"{source}|{page_source}"
    chain.append((key, None))
    key += f"|{FIELD_GROUPS.get(field, 'other')}"
    chain.append((key, None))
    key += f"|arith={arithmetic}"
    chain.append((key, f"arith={arithmetic}"))
    if source != Source.EINVOICE:  # the XML has no labels; a located print line says nothing more
        key += f"|label={labelled}"
        chain.append((key, f"label={labelled}"))
    ocr = features.get("ocr_confidence")
    if page_source == "ocr" and ocr is not None and source != Source.EINVOICE:  # the XML is exact
        level = "hi" if ocr >= OCR_LINE_THRESHOLD else "lo"
        key += f"|ocr={level}"
        chain.append((key, f"ocr={level}"))
    chain.append((key + f"|{field}", None))
    return chain


def _clip(value: float, table: dict, source: str) -> float:
    """``value`` within the table's floor and the ceiling of ``source``, rounded to 4 places."""
    ceiling = table.get("source_ceilings", SOURCE_CEILINGS).get(source, table.get("ceiling", CEILING))
    return round(min(ceiling, max(table.get("floor", FLOOR), value)), 4)


def predict_with(table: dict, field: str, source: str, features: dict[str, Any]) -> float:
    """The confidence of one field under ``table`` (a dict as ``fit`` returns)."""
    priors = table.get("source_priors", DEFAULT_PRIORS)
    estimate = priors.get(source, min(priors.values()))
    buckets, lifts = table.get("buckets", {}), table.get("lifts", {})
    strength = table.get("prior_strength", PRIOR_STRENGTH)
    for key, condition in bucket_chain(field, source, features):
        prior = min(1.0, estimate * lifts.get(condition, 1.0)) if condition else estimate
        right, n = buckets.get(key, (0, 0))
        estimate = (right + strength * prior) / (n + strength)
    return _clip(estimate, table, source)


@lru_cache(maxsize=1)
def load_table(path: str = str(TABLE_PATH)) -> dict:
    """The committed calibration table, or an empty one (source priors only) when absent."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}


def confidence(field: str, source: str, features: dict[str, Any] | None = None) -> float:
    """Calibrated probability in [0, 1] that ``field``'s value from ``source`` is right.

    ``source``: einvoice, template, rules, llm or human. ``features``: as
    ``pipeline.decision.evidence.field_features`` returns (page_source, ocr_confidence, arithmetic,
    labelled); missing ones count as unknown.
    """
    return predict_with(load_table(), field, source, features or {})


def _monotone(condition: str, lift: float) -> float:
    """A lift bounded by common sense: a confirming condition never lowers, a warning never raises."""
    if condition in LIFT_AT_LEAST_ONE:
        lift = max(lift, 1.0)
    if condition in LIFT_AT_MOST_ONE:
        lift = min(lift, 1.0)
    return round(lift, 4)


def fit(records: Iterable[dict], note: str = "", prior_strength: float = PRIOR_STRENGTH) -> dict:
    """Fit a table from labelled records ``{"field", "source", "features", "ok"}``.

    Counts right/total per bucket of ``bucket_chain`` and the pooled lift of every condition
    (accuracy with the condition / accuracy of the records' parent buckets, over all sources).
    """
    records = list(records)
    buckets: dict[str, list[int]] = {}
    cond_right: dict[str, float] = {}
    cond_base: dict[str, float] = {}
    for record in records:
        chain = bucket_chain(record["field"], record["source"], record["features"])
        for key, _ in chain:
            slot = buckets.setdefault(key, [0, 0])
            slot[0] += int(bool(record["ok"]))
            slot[1] += 1
    overall = {}
    for record in records:
        overall.setdefault(record["source"], [0, 0])
        overall[record["source"]][0] += int(bool(record["ok"]))
        overall[record["source"]][1] += 1
    for record in records:  # lift: right with the condition vs the parent bucket's accuracy
        chain = bucket_chain(record["field"], record["source"], record["features"])
        for (parent, _), (_, condition) in itertools.pairwise(chain):
            if condition:
                right, n = buckets[parent]
                cond_right[condition] = cond_right.get(condition, 0.0) + int(bool(record["ok"]))
                cond_base[condition] = cond_base.get(condition, 0.0) + right / n
    lifts = {c: _monotone(c, (cond_right[c] + 1) / (cond_base[c] + 1)) for c in sorted(cond_right)}
    lifts.update(FIXED_LIFTS)
    return {
        "version": 1,
        "note": note,
        "model": "hierarchical bucket accuracy, shrunk toward the parent bucket (see pipeline/decision/confidence.py)",
        "prior_strength": prior_strength,
        "floor": FLOOR,
        "ceiling": CEILING,
        "source_ceilings": SOURCE_CEILINGS,
        "source_priors": DEFAULT_PRIORS,
        "lifts": lifts,
        "buckets": {key: value for key, value in sorted(buckets.items())},
    }


def reliability(pairs: Iterable[tuple[float, bool]], bins: int = 10) -> dict:
    """Reliability table of ``(confidence, ok)`` pairs: per bin of width 1/bins the count, mean
    confidence and observed accuracy, and the expected calibration error (count-weighted
    mean |accuracy - confidence|)."""
    pairs = list(pairs)
    rows = []
    for index in range(bins):
        lo, hi = index / bins, (index + 1) / bins
        inside = [(c, ok) for c, ok in pairs if lo <= c < hi or (index == bins - 1 and c == 1.0)]
        n = len(inside)
        rows.append(
            {
                "lo": lo,
                "hi": hi,
                "n": n,
                "confidence": sum(c for c, _ in inside) / n if n else 0.0,
                "accuracy": sum(ok for _, ok in inside) / n if n else 0.0,
            }
        )
    total = len(pairs)
    ece = sum(row["n"] * abs(row["accuracy"] - row["confidence"]) for row in rows) / total if total else 0.0
    accuracy = sum(ok for _, ok in pairs) / total if total else 0.0
    return {"bins": rows, "ece": ece, "n": total, "accuracy": accuracy}
