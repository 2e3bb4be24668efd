"""The learned scorer: ranks every key field's candidates and says how likely the chosen value
is right, and how likely all key fields of a document are.

One gradient-boosted ranking model per key field (LightGBM, lambdarank over the candidates of a
document) ranks the candidates of ``pipeline.decision.candidates``. How likely the top one is
right is read from one of two inputs, whichever predicted better out of fold on the training
data (lower Brier score; the choice is in ``calibration.json``): the share of the softmax over
the scores held by the candidates that say the same as the top one (``pooled_share``: how far
its value stands out), or a second LightGBM model, the
*verifier* (binary: is the top candidate right?), that reads the ranking scores and the top
candidate's own features (``verifier_features``): a lone name in the bill-to block stands out
among poor candidates, yet is no vendor. Either input is mapped to a probability by an isotonic
calibration fitted out of fold (grouped by shop, producer or synthetic document) on the training
data, never on the dev set; stacked generalisation (Wolpert, 1992) is the pattern. A value the
tenant's vendor profile proposed (``pipeline.profiles``) is calibrated on such values where the
training had enough of them (``calibration.json``: ``backed``), and is never less sure than the
page alone makes it: where the scorer reading the page without the profile's features ranks the
same value first, the field takes the higher of the two probabilities (``page_alone``). The
backed calibration is fitted per reading of the page (``READINGS``): on the training folds every
value a profile backed on a text layer was right but on an e-invoice whose page prints other sums
than its XML, while on OCR'd pages a digit misread under the vendor's own label is the profile's
typical mistake; one map for both held text-layer documents to OCR's error rate. It is capped
(its training held OCR misreadings and a net amount under a total's label), so without that
floor of the page alone a profile that agreed with a page the scorer was sure of lowered its total to 0.95 (the
page alone: above the 0.96 threshold) and held back documents that completed without any
profile (``bench/results/learning.md``, synthetic vendors). A document's probability that
all its key fields are right is the product of its fields' probabilities; it completes when that
reaches the threshold fitted on the folds for the operator's target precision
(``review.target_precision``) and the document's reading (``document_reading``: a scan's
promise holds for scans, not only on average with text layers); below it, the extraction model
is asked only from the *ask floor* up, the lowest probability from which its answer completed
a fold document (below that its seconds bought nothing). Majumder et al., "Representation Learning for Information
Extraction from Form-like Documents" (ACL 2020), is the approach: candidates, then learned
scoring, trained on few documents.

The artefact lives in ``scorer/`` beside this module (``scripts/train-scorer`` writes it, with a
model card ``scorer/README.md``): ``<field>.<k>.txt``, the ``ensemble`` seeded ranking models of
each field whose scores ``SeedMean`` averages (LightGBM's text model format: no pickle, no code
runs on load; a folder trained before the ensemble holds one ``<field>.txt``),
``<field>.verifier.txt`` for the fields the verifier calibrates, and
``calibration.json`` (per field the calibration input and its isotonic steps, the thresholds per
target precision, the feature names each model was trained on). An operator may point
``review.scorer_dir`` at one of their own.
Imports only ``pipeline`` modules, ``models.script_router``'s script count (the same
share the second look decides a page by), numpy and lightgbm; must not import ``api`` or
``appliance``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.script_router import MIN_SCRIPT_SHARE, SCRIPT_BLOCKS, text_script_share
from pipeline.decision.candidates import FEATURES, Candidate, identical, same_value
from pipeline.schema import KEY_FIELDS, Source

SCORER_DIR = Path(__file__).with_name("scorer")
NEVER = 1.01  # a threshold no probability reaches: nothing completes
# Key fields a document cannot complete without (a receipt has no invoice number, and the
# currency is often implicit).
REQUIRED_KEYS = ("invoice_date", "vendor_name", "total_amount")
SHARE, VERIFIER = "share", "verifier"  # the calibration inputs a field may read
READINGS = ("text_layer", "ocr")  # how a page was read: backed values calibrate per reading
# How a document was read, for its threshold and ask floor (``document_reading``): READINGS, and
# "ocr_script", an OCR'd document whose letters are mostly of a script read by the second look
# (``models.script_router.SCRIPT_BLOCKS``: Thai). On the training folds the Thai scans reach the
# OCR threshold while still wrong one time in three (identifiers misread, a baht sign missed):
# fitted with the other scans they raised the OCR threshold from 0.911 to 0.969 and cut the scans
# completed from 188 to 106; on their own they get the threshold their own precision earns.
DOCUMENT_READINGS = (*READINGS, "ocr_script")
# What a clerk and an operator call each reading (``validationErrors``, ``appliance check``).
READING_NAMES = {"text_layer": "text-layer documents", "ocr": "OCR'd documents", "ocr_script": "OCR'd Thai documents"}
VERIFIER_HEAD = ("top_raw", "top_share", "margin", "n_ranked")
LONE_MARGIN = 5.0  # the margin of a lone candidate: far ahead of a runner-up it does not have
_SOURCES = {"template": Source.TEMPLATE, "rules": Source.RULES, "model": Source.MODEL, "profile": Source.PROFILE}


@dataclass(frozen=True)
class FieldScore:
    """The scorer's answer for one key field: the chosen ``value`` (normalised), its calibrated
    ``probability`` of being right (0..1), the ``source`` that proposed it (the rules when only
    the page did), the chosen candidate and the best other one (``runner_up``, None if none);
    ``page_alone``: for a value the vendor profile backs, the probability the page alone gives
    it where the page alone ranks it first (None otherwise, and for other values)."""

    field: str
    value: Any
    probability: float
    source: Source
    chosen: Candidate
    runner_up: Candidate | None
    page_alone: float | None = None


class SeedMean:
    """The ranking model of one field as the mean of the raw scores of fits that differ only in
    their seed (bagging and feature fraction draw other rows and features). One fit's luck moved
    the documents completed at 0.98 out of fold from 340 to 473 over six fits on nearly the same
    data; the mean of four moved them from 425 to 439 (``training.train_scorer.stability``,
    README "The learned scorer"). Breiman, "Bagging predictors" (1996), is the idea.

    ``members``: objects with LightGBM's ``predict(x) -> scores``; ``predict`` takes x of shape
    (candidates, features) and gives their mean score, shape (candidates,)."""

    def __init__(self, members: list[Any]) -> None:
        if not members:
            raise ValueError("a seed mean needs at least one model")
        self.members = list(members)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.mean([np.asarray(m.predict(x), float) for m in self.members], axis=0)


class ScorerError(ValueError):
    """The scorer's files are missing or do not fit this code's features."""


class Scorer:
    """The fitted models of one scorer folder (see the module docstring).

    ``thresholds``: target precision (as a string, e.g. ``"0.98"``) -> the document probability
    at which a document completes; ``card``: what the training measured (for the model card)."""

    def __init__(
        self, boosters: dict[str, Any], calibration: dict[str, Any], path: str = "", verifiers: dict | None = None
    ) -> None:
        self.boosters = boosters
        self.verifiers: dict[str, Any] = verifiers or {}
        self.steps = {
            name: (np.array(c["x"], float), np.array(c["y"], float)) for name, c in calibration["fields"].items()
        }
        # The steps of candidates the vendor profile proposed, per reading, where fitted.
        self.backed_steps = {name: _backed(c["backed"]) for name, c in calibration["fields"].items() if "backed" in c}
        self.inputs = {name: c.get("input", SHARE) for name, c in calibration["fields"].items()}
        self.thresholds: dict[str, dict[str, float]] = {
            target: _per_reading(fitted) for target, fitted in calibration["thresholds"].items()
        }
        self.ask_floors: dict[str, dict[str, float]] = {
            target: _per_reading(fitted) for target, fitted in calibration.get("ask_floors", {}).items()
        }
        self.card: dict[str, Any] = calibration.get("card", {})
        self.path = path

    @classmethod
    def load(cls, path: str | Path = "") -> Scorer:
        """The scorer in folder ``path`` (``SCORER_DIR`` when empty). Raises ScorerError when a
        file is missing or was trained on other features than ``FEATURES``."""
        import lightgbm

        folder = Path(path) if path else SCORER_DIR
        try:
            calibration = json.loads((folder / "calibration.json").read_text(encoding="utf-8"))
            boosters, verifiers = {}, {}
            for name in KEY_FIELDS:
                if list(calibration["features"][name]) != list(FEATURES[name]):
                    raise ScorerError(f"{folder}: the {name} model was trained on other features; retrain it")
                files = (
                    [f"{name}.{k}.txt" for k in range(calibration["ensemble"])]
                    if "ensemble" in calibration
                    else [f"{name}.txt"]
                )
                boosters[name] = SeedMean(
                    [lightgbm.Booster(model_str=(folder / file).read_text(encoding="utf-8")) for file in files]
                )
                if calibration["fields"][name].get("input", SHARE) == VERIFIER:
                    if list(calibration["verifier_features"][name]) != [*VERIFIER_HEAD, *FEATURES[name]]:
                        raise ScorerError(f"{folder}: the {name} verifier was trained on other inputs; retrain it")
                    text = (folder / f"{name}.verifier.txt").read_text(encoding="utf-8")
                    verifiers[name] = lightgbm.Booster(model_str=text)
        except (OSError, KeyError, ValueError, lightgbm.basic.LightGBMError) as exc:
            if isinstance(exc, ScorerError):
                raise
            raise ScorerError(f"{folder} holds no scorer ({exc}); run scripts/train-scorer") from exc
        return cls(boosters, calibration, str(folder), verifiers)

    def raw(self, name: str, cands: list[Candidate]) -> np.ndarray:
        """The ranking model's raw score of each candidate of field ``name`` (higher: better)."""
        if not cands:
            return np.zeros(0)
        return self.boosters[name].predict(np.array([c.vector() for c in cands], dtype=float))

    def calibration_input(self, name: str, raw: np.ndarray, found: list[Candidate], chosen: Candidate) -> float:
        """What field ``name``'s isotonic steps read for ``chosen``, the top candidate of
        ``found`` (ranked by ``raw``): ``pooled_share``, or the verifier's score of
        ``verifier_features`` where the training chose the verifier."""
        if self.inputs.get(name, SHARE) == VERIFIER:
            return float(self.verifiers[name].predict(np.array([verifier_features(raw, chosen.vector())]))[0])
        return pooled_share(name, raw, [c.value for c in found])

    def calibrated(self, name: str, value: float, backed: str | None = None) -> float:
        """The probability that a top candidate is right, from its calibration input
        (``calibration_input``) through the field's isotonic steps, or, for a candidate the
        vendor profile proposed (``backed``: the reading of its page, ``reading``), the steps
        fitted on such candidates of that reading where the training had enough of them."""
        own = self.backed_steps.get(name, {}).get(backed) if backed else None
        xs, ys = own if own is not None else self.steps[name]
        return float(np.interp(value, xs, ys)) if len(xs) else 0.0

    def score(self, cands: dict[str, list[Candidate]]) -> dict[str, FieldScore]:
        """Key field -> its FieldScore, for the fields with at least one candidate."""
        out = {}
        for name in KEY_FIELDS:
            found = scorable(name, cands.get(name) or [])
            if not found:
                continue
            found, raw = choice(name, found, self.raw(name, found))
            order = sorted(range(len(found)), key=lambda i: (-raw[i], i))
            chosen = found[order[0]]
            source = next(
                (_SOURCES[s] for s in ("template", "rules", "model", "profile") if s in chosen.sources), Source.RULES
            )
            backed = reading(chosen) if "profile" in chosen.sources else None
            probability = self.calibrated(name, self.calibration_input(name, raw, found, chosen), backed)
            alone = self.page_alone(name, found, chosen) if backed else None
            out[name] = FieldScore(
                name,
                chosen.value,
                round(max(probability, alone or 0.0), 4),
                source,
                chosen,
                found[order[1]] if len(order) > 1 else None,
                None if alone is None else round(alone, 4),
            )
        return out

    def page_alone(self, name: str, found: list[Candidate], chosen: Candidate) -> float | None:
        """The probability of ``chosen``'s value as the scorer reads the page without the vendor
        profile (its proposal's features and source taken off every candidate of ``found``),
        where the page alone ranks that value first; None where it ranks another first."""
        plain = scorable(name, [without_profile(c) for c in found])
        if not plain:
            return None
        plain, raw = choice(name, plain, self.raw(name, plain))
        best = plain[min(range(len(plain)), key=lambda i: (-raw[i], i))]
        if best.value != chosen.value and not same_value(name, best.value, chosen.value):
            return None
        return self.calibrated(name, self.calibration_input(name, raw, plain, best))

    def reachable(self, scores: dict[str, FieldScore], template_fields: set[str] = frozenset()) -> float:
        """The highest document probability a second look (the extraction model's answer) could
        bring ``scores`` to: a value the vendor profile backs that the page alone does not rank
        first (``FieldScore.page_alone``) is read through its ``backed`` calibration whatever else
        agrees with it, so it stays at or below that calibration's top; every other field could
        reach 1.0. A document below the threshold whose reachable
        probability is too is not worth the model's seconds (``pipeline.steps._model_pays``)."""
        reach = 1.0
        for name, s in scores.items():
            steps = self.backed_steps.get(name, {}).get(reading(s.chosen))
            capped = s.page_alone is None and "profile" in s.chosen.sources  # the page alone would not lift it
            if name not in template_fields and steps is not None and capped:
                reach *= float(steps[1].max()) if len(steps[1]) else 0.0
        return reach

    def threshold(self, target_precision: float, reading: str = "ocr") -> float:
        """The document probability at which a document of ``reading`` (``document_reading``)
        completes at ``target_precision``: the threshold fitted on the training documents of
        that reading for the nearest target at least as strict (``NEVER`` above the strictest,
        and where no threshold of that reading reached the target on the folds)."""
        fitted = {target: by_reading[reading] for target, by_reading in self.thresholds.items()}
        return _nearest_target(fitted, target_precision, NEVER)

    def ask_floor(self, target_precision: float, reading: str = "ocr") -> float:
        """The document probability, without the model, below which asking the model is not
        worth its seconds at ``target_precision`` for a document of ``reading``
        (``document_reading``): on the training folds no document of that reading that low
        completed once the model answered (0.0, always ask, where the training fitted none)."""
        fitted = {target: by_reading[reading] for target, by_reading in self.ask_floors.items()}
        return _nearest_target(fitted, target_precision, 0.0)


def reading(cand: Candidate) -> str:
    """How the page of ``cand`` was read: ``"ocr"`` (its ``ocr`` feature) or ``"text_layer"``."""
    return "ocr" if cand.features.get("ocr", 0.0) > 0 else "text_layer"


def document_reading(doc: Any) -> str:
    """How a document was read (``DOCUMENT_READINGS``): ``"ocr"`` where any of its pages was
    OCR'd (a scan, a photo, a PDF page without text), ``"ocr_script"`` where such a document's
    letters are mostly (``MIN_SCRIPT_SHARE``, as the second look decides a page) of one script of
    ``SCRIPT_BLOCKS``, else
    ``"text_layer"``; ``doc`` a ``pipeline.document.DocumentText`` (None: ``"ocr"``)."""
    if doc is None or not doc.pages:
        return "ocr"
    if not any(page.source == "ocr" for page in doc.pages):
        return "text_layer"
    text = doc.text
    return "ocr_script" if any(text_script_share(text, s) >= MIN_SCRIPT_SHARE for s in SCRIPT_BLOCKS) else "ocr"


def _per_reading(fitted: float | dict[str, float]) -> dict[str, float]:
    """A target's fitted threshold or ask floor per document reading; a scorer trained before
    the readings had their own holds one number, used for all, and one trained before
    "ocr_script" had its own, the OCR value for it."""
    if not isinstance(fitted, dict):
        return {reading: float(fitted) for reading in DOCUMENT_READINGS}
    return {reading: float(fitted.get(reading, fitted["ocr"])) for reading in DOCUMENT_READINGS}


def _backed(fitted: dict[str, Any]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``calibration.json``'s ``backed`` entry of a field -> reading -> (x, y) steps; a scorer
    trained before the readings were told apart holds one map, used for both."""
    per = {r: fitted for r in READINGS} if "x" in fitted else fitted
    return {r: (np.array(c["x"], float), np.array(c["y"], float)) for r, c in per.items()}


def _nearest_target(fitted: dict[str, float], target_precision: float, beyond: float) -> float:
    """The value fitted for the nearest target at least as strict as ``target_precision``."""
    for target, value in sorted((float(k), v) for k, v in fitted.items()):
        if target >= target_precision - 1e-9:
            return value
    return beyond


def without_profile(cand: Candidate) -> Candidate:
    """``cand`` as a page without a vendor profile shows it: ``by_profile`` and
    ``profile_support`` 0, one proposer fewer where the profile was one, "profile" not a source."""
    if "profile" not in cand.sources:
        return cand
    features = dict(cand.features)
    features.update(by_profile=0.0, profile_support=0.0)
    if "n_proposers" in features:
        features["n_proposers"] -= 1.0
    return Candidate(cand.field, cand.value, features, cand.evidence, cand.sources - {"profile"})


def scorable(name: str, found: list[Candidate]) -> list[Candidate]:
    """The candidates of field ``name`` the scorer chooses from: all of them, except that a
    document on which no invoice-number label introduces an id (``_labelled_number``) has no
    invoice number: an id-like token alone is a registration, phone or till code as often as
    the number (a till receipt; SROIE's schema keys a receipt on vendor, date and total), so the
    field stays empty and the document's promise does not cover it."""
    if name == "invoice_number" and not any(_labelled_number(c) for c in found):
        return []
    return found


def choosable(name: str, found: list[Candidate]) -> list[bool]:
    """Which of field ``name``'s candidates (``found``, ranked) the scorer may choose: all of them,
    except that where a date stands beside an invoice-date label, a date that stands only beside
    another date's label (a billing period, delivery, order or due date: ``lab_other_date``,
    ``lab_due`` and the rules' scores of those labels) is not the invoice date. The ranking models
    learn from every candidate, so this rule works after ranking, on the choice alone: dropped
    from the training rows instead, those dates took easy negatives from the models, which then
    ranked three training documents' dates wrong (top right 0.978 against 0.984). Applied here,
    it changed no top choice among the 972 training date groups out of fold, and keeps the
    extraction model's "09.07.2018" of FeRD's travel invoice ("Abrechnungszeitraum: 09.07.2018
    bis ...") from the choice where "vom 13.07.2018" stands beside the invoice's label."""
    if name != "invoice_date":
        return [True] * len(found)

    def beside(cand: Candidate, *features: str) -> bool:  # a NaN feature: no such label
        return any(cand.features.get(f, math.nan) > 0 for f in features)

    invoice = [beside(c, "lab_invoice_date", "rules_invoice_date_score") for c in found]
    if not any(invoice):
        return [True] * len(found)
    other = ("lab_other_date", "lab_due", "rules_other_date_score", "rules_due_date_score")
    return [own or not beside(c, *other) for c, own in zip(found, invoice, strict=True)]


def choice(name: str, found: list[Candidate], raw: np.ndarray) -> tuple[list[Candidate], np.ndarray]:
    """``found`` and their raw scores ``raw``, less the candidates ``choosable`` drops."""
    keep = choosable(name, found)
    if all(keep):
        return found, raw
    return [c for c, k in zip(found, keep, strict=True) if k], np.asarray(raw)[np.array(keep, bool)]


def _labelled_number(cand: Candidate) -> bool:
    """Whether the document's invoice-number labels introduce an id (``n_ids``: the rules'
    ``invoice_number_candidates``), or a vendor template or the vendor's learned profile reads
    the number (under the label the vendor's approved invoices printed it). (Counting only the
    ids whose own line carries no registration label, and those read below a label, was tried:
    it completed 67 training documents out of fold at the 0.98 target, against 125.)"""
    return "template" in cand.sources or "profile" in cand.sources or cand.features.get("n_ids", 0) > 0


def verifier_features(raw: np.ndarray, chosen: list[float]) -> list[float]:
    """The verifier's inputs for a field's top candidate: ``VERIFIER_HEAD`` (its raw ranking
    score, ``top_share``, the margin over the runner-up, the number of candidates) followed by
    the top candidate's own feature vector (``Candidate.vector``)."""
    ordered = np.sort(np.asarray(raw, float))[::-1]
    margin = float(ordered[0] - ordered[1]) if len(ordered) > 1 else LONE_MARGIN
    return [float(ordered[0]), top_share(raw), margin, float(len(ordered)), *chosen]


def top_share(raw: np.ndarray) -> float:
    """The top candidate's share of the softmax over its field's raw scores (0..1]: high when it
    stands out from the others (the verifier's ``VERIFIER_HEAD``)."""
    if len(raw) == 0:
        return 0.0
    weights = np.exp(raw - raw.max())
    return float(weights.max() / weights.sum())


def pooled_share(name: str, raw: np.ndarray, values: list[Any]) -> float:
    """The share of the softmax over field ``name``'s raw scores held by the candidates (values
    ``values``, one per score) that say the same as the top one (``identical``: the reference
    scorer's tolerance, names alike at a similarity ratio of 0.85, amounts equal to the cent), in
    (0..1]: what the isotonic calibration maps to the probability that the chosen value is
    accepted. A shop's name is offered whole and in truncations ("MR D.I.Y. (JOHOR) SDN BHD",
    "... SDN", "D.I.Y. (JOHOR) SDN BHD"), each of them right; the top one's own share
    (``top_share``) split the belief between them and held a right name at 0.94 on receipts.
    On the training folds (839 documents) it lowered the names' Brier score from 0.0798 to
    0.0754 and completed 374 documents at the 0.98 target against 359 (OCR'd 144 against 123;
    receipts of shops seen once 17 of 108 against 6). (Pooling equal values only, long ago,
    calibrated worse: 0.055 against 0.035.)"""
    if len(raw) == 0:
        return 0.0
    weights = np.exp(raw - raw.max())
    best = int(np.argmax(raw))
    same = sum(w for i, w in enumerate(weights) if i == best or identical(name, values[i], values[best]))
    return float(same / weights.sum())


def document_probability(scores: dict[str, FieldScore], template_fields: set[str] = frozenset()) -> float:
    """The probability that every key field of a document is right: the product over its scored
    key fields (a field a vendor template read counts as right: an operator wrote the rule);
    0.0 when a required key field (``REQUIRED_KEYS``) has no value."""
    if any(name not in scores and name not in template_fields for name in REQUIRED_KEYS):
        return 0.0
    return math.prod(1.0 if name in template_fields else s.probability for name, s in scores.items())


def scorer_reasons(
    scores: dict[str, FieldScore],
    probability: float,
    threshold: float,
    template_fields: set[str] = frozenset(),
    reading: str = "",
) -> list[str]:
    """Reasons, for ``validationErrors``, why a document does not complete: a required key field
    not found, and each key field the scorer is least sure of, in words a clerk acts on ("total
    50.00 (62% sure) stands on 'CASH 50.00'; the next best, 39.00, on 'TOTAL 39.00'"). Empty
    when ``probability`` (``document_probability``) reaches ``threshold``. Where the threshold of
    the document's ``reading`` (``document_reading``) is ``NEVER``, that is the reason, and only
    the least sure field follows it: "not certain (99% sure)" of every field told a clerk
    nothing about why a Thai scan never completes."""
    if probability >= threshold:
        return []
    reasons = [
        f"{name} not found in the document"
        for name in REQUIRED_KEYS
        if name not in scores and name not in template_fields
    ]
    scored = [s for name, s in scores.items() if name not in template_fields]
    doubtful = sorted((s for s in scored if s.probability < threshold), key=lambda s: s.probability)
    if threshold >= NEVER:
        what = READING_NAMES.get(reading, "documents read like this one")
        reasons.append(
            f"{what} are never completed at this target precision (review.target_precision): on the"
            " training documents none reached it; check every key field"
        )
        doubtful = doubtful[:1]
    if not doubtful and not reasons:  # each field is sure enough alone, not all of them together
        doubtful = sorted(scored, key=lambda s: s.probability)[:1]
    for s in doubtful:
        reason = f"{s.field} {_show(s.value)} is not certain ({s.probability:.0%} sure)"
        if s.chosen.evidence and s.chosen.evidence.get("text"):
            reason += f": it stands on {_quote(s.chosen.evidence['text'])}"
        if s.runner_up is not None:
            reason += f"; the next best, {_show(s.runner_up.value)}"
            if s.runner_up.evidence and s.runner_up.evidence.get("text"):
                reason += f", on {_quote(s.runner_up.evidence['text'])}"
        reasons.append(reason)
    return reasons


def _show(value: Any) -> str:
    from pipeline.values.money import cents, is_amount

    if is_amount(value) and not isinstance(value, str):
        return f"{cents(value):.2f}"
    return repr(value) if isinstance(value, str) else str(value)


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return f"'{text[:limit]}…'" if len(text) > limit else f"'{text}'"
