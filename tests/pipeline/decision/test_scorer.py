"""The learned scorer's decision (pipeline.decision.scorer) and how the steps use it: the model
is asked only where the scorer is not sure, a document completes at the threshold of
``review.target_precision``, and a flagged one says why in a clerk's words."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from pipeline.context import JobContext
from pipeline.decision.candidates import FEATURES, Candidate
from pipeline.decision.scorer import (
    LONE_MARGIN,
    NEVER,
    SCORER_DIR,
    VERIFIER_HEAD,
    FieldScore,
    Scorer,
    ScorerError,
    SeedMean,
    choosable,
    document_probability,
    pooled_share,
    scorable,
    scorer_reasons,
    top_share,
    verifier_features,
)
from pipeline.reading.sniff import PDF
from pipeline.runner import Extractor
from pipeline.schema import Source
from tests.conftest import fake_models
from tests.fakes.llm import EchoLLM
from tests.support.docs import INVOICE_LINES, text_pdf
from tests.training.test_train_scorer import made_up
from training import train_scorer as ts


def field_score(name: str, value, p: float, text: str = "", runner=None) -> FieldScore:
    chosen = Candidate(name, value, evidence={"page": 1, "bbox": [0, 0, 1, 1], "text": text} if text else None)
    return FieldScore(name, value, p, Source.RULES, chosen, runner)


def test_the_document_probability_is_the_product_and_needs_the_required_fields():
    scores = {
        "total_amount": field_score("total_amount", Decimal("39.00"), 0.9),
        "invoice_date": field_score("invoice_date", "2018-12-25", 0.8),
        "vendor_name": field_score("vendor_name", "KEDAI SDN BHD", 0.5),
    }
    assert document_probability(scores) == pytest.approx(0.36)
    assert document_probability(scores, {"vendor_name"}) == pytest.approx(0.72)  # a template read it
    del scores["vendor_name"]
    assert document_probability(scores) == 0.0
    assert document_probability(scores, {"vendor_name"}) == pytest.approx(0.72)


def test_reasons_name_the_line_of_the_value_and_of_the_next_best():
    runner = Candidate("total_amount", Decimal("39.00"), evidence={"page": 1, "bbox": [0] * 4, "text": "TOTAL 39.00"})
    scores = {
        "total_amount": field_score("total_amount", Decimal("50.00"), 0.62, "CASH 50.00", runner),
        "invoice_date": field_score("invoice_date", "2018-12-25", 0.99, "25/12/2018"),
    }
    reasons = scorer_reasons(scores, 0.61, 0.9)
    assert reasons == [
        "vendor_name not found in the document",
        "total_amount 50.00 is not certain (62% sure): it stands on 'CASH 50.00'; the next best, 39.00, on "
        "'TOTAL 39.00'",
    ]
    assert scorer_reasons(scores, 0.95, 0.9) == []


def test_a_reading_that_never_completes_says_so_and_names_only_the_weakest_field():
    scores = {
        "total_amount": field_score("total_amount", Decimal("39.00"), 0.63, "TOTAL 39.00"),
        "invoice_date": field_score("invoice_date", "2018-12-25", 0.99),
        "vendor_name": field_score("vendor_name", "KEDAI SDN BHD", 1.0),
    }
    reasons = scorer_reasons(scores, document_probability(scores), NEVER, reading="ocr_script")
    assert reasons == [
        "OCR'd Thai documents are never completed at this target precision (review.target_precision): on the"
        " training documents none reached it; check every key field",
        "total_amount 39.00 is not certain (63% sure): it stands on 'TOTAL 39.00'",
    ]


def test_each_field_sure_enough_but_not_all_together_names_the_weakest():
    scores = {
        "total_amount": field_score("total_amount", Decimal("39.00"), 0.93),
        "invoice_date": field_score("invoice_date", "2018-12-25", 0.92),
        "vendor_name": field_score("vendor_name", "KEDAI SDN BHD", 0.95),
    }
    reasons = scorer_reasons(scores, document_probability(scores), 0.9)
    assert reasons == ["invoice_date '2018-12-25' is not certain (92% sure)"]


@pytest.fixture(scope="module")
def tiny_scorer(tmp_path_factory):
    """A scorer trained on made-up groups (the rules' candidate right 9 times in 10)."""
    folder = tmp_path_factory.mktemp("scorer")
    groups, docs = made_up()
    calibration, models, card = ts.fit(groups, docs)
    ts.write(folder, calibration, models, ts.card_markdown(card))
    return Scorer.load(folder)


def test_a_target_maps_to_the_nearest_fitted_threshold_at_least_as_strict(tiny_scorer):
    tiny_scorer.thresholds = {
        "0.95": {"text_layer": 0.5, "ocr": 0.6},
        "0.98": {"text_layer": 0.7, "ocr": 0.8},
        "0.99": {"text_layer": 0.9, "ocr": NEVER},  # no threshold of scans reached 0.99
    }
    assert tiny_scorer.threshold(0.98, "text_layer") == 0.7 and tiny_scorer.threshold(0.98, "ocr") == 0.8
    assert tiny_scorer.threshold(0.97, "text_layer") == 0.7
    assert tiny_scorer.threshold(0.9, "ocr") == 0.6
    assert tiny_scorer.threshold(0.99, "text_layer") == 0.9 and tiny_scorer.threshold(0.99, "ocr") == NEVER
    assert tiny_scorer.threshold(0.995, "text_layer") == NEVER


def test_a_document_is_ocr_read_when_any_page_was_ocrd_and_old_thresholds_hold_for_both():
    from pipeline.decision.scorer import _per_reading, document_reading
    from pipeline.document import DocumentText, Page

    layer = DocumentText.of_text("Invoice\fpage two")
    assert document_reading(layer) == "text_layer"
    layer.pages.append(Page(3, 595, 842, (), "ocr"))  # a scanned page appended to a PDF
    assert document_reading(layer) == "ocr" and document_reading(None) == "ocr"
    assert _per_reading(0.96) == {"text_layer": 0.96, "ocr": 0.96, "ocr_script": 0.96}
    # a scorer fitted before OCR'd Thai had its own threshold holds the OCR one for it
    assert _per_reading({"text_layer": 0.8, "ocr": 0.94})["ocr_script"] == 0.94


def test_an_ocrd_document_mostly_in_thai_letters_is_read_apart():
    from pipeline.decision.scorer import document_reading
    from pipeline.document import DocumentText

    assert document_reading(DocumentText.of_text("ใบเสร็จรับเงิน รวมทั้งสิ้น ฿4,467.41 Tax ID", "ocr")) == "ocr_script"
    assert document_reading(DocumentText.of_text("TOTAL RM 30.90 ขอบคุณ", "ocr")) == "ocr"
    assert document_reading(DocumentText.of_text("ใบเสร็จรับเงิน รวมทั้งสิ้น")) == "text_layer"


HEADER_ONLY = [line for line in INVOICE_LINES if not line.startswith(("Description", "Hammer", "Saw"))]


def extract(
    scorer: Scorer, threshold: float, lines=HEADER_ONLY, floor: float = 0.0, ask: str = "unsure", ocr_floor=None
):
    llm = EchoLLM({"total_amount": "119.00", "invoice_number": "INV-2024-001"})
    extractor = Extractor(fake_models(review={"scorer": True, "ask_model": ask}), llm=llm)
    scorer.thresholds = {"0.98": {"text_layer": threshold, "ocr": threshold}}
    scorer.ask_floors = {"0.98": {"text_layer": floor, "ocr": floor if ocr_floor is None else ocr_floor}}
    extractor.kit.scorer = scorer
    work = extractor.work(JobContext("x", PDF), text_pdf(lines))
    return work, llm


def test_a_document_the_scorer_is_sure_of_completes_without_asking_the_model(tiny_scorer):
    work, llm = extract(tiny_scorer, 0.01)
    assert llm.calls == [] and "model" not in work.ran
    result = work.result
    assert result.processing_status == "completed", result.validation_errors
    assert result.data["total_amount"] == Decimal("119.00")
    assert result.key_confidence is not None and result.key_confidence >= 0.01
    assert "scorer: key fields right with p=" in result.routing_reason and "model not asked" in result.routing_reason
    evidence = result.evidence["total_amount"]
    assert evidence["confidence"] == pytest.approx(work.scores["total_amount"].probability, abs=1e-3)
    assert evidence["text"] == "Total EUR 119.00"


def test_rows_that_do_not_add_up_are_asked_of_the_model_even_when_the_header_is_sure(tiny_scorer):
    # the rules read "Hammer 2 10.00 20.00" but not the saw: 20.00 is no subtotal of 100.00
    work, llm = extract(tiny_scorer, 0.01, INVOICE_LINES)
    assert "model" in work.ran and len(llm.calls) >= 1


def test_below_the_ask_floor_the_model_is_not_asked_and_the_document_flagged(tiny_scorer):
    work, llm = extract(tiny_scorer, 0.999, floor=0.998)
    assert llm.calls == [] and "model" not in work.ran
    assert work.result.processing_status == "needs_review" and "model not asked" in work.result.routing_reason
    assert tiny_scorer.ask_floor(0.98) == 0.998 and tiny_scorer.ask_floor(0.995) == 0.0


def test_the_ask_floor_is_the_one_of_the_document_s_reading(tiny_scorer):
    # a text-layer PDF the scorer is unsure of: its reading's floor decides, not the scans'
    work, llm = extract(tiny_scorer, 0.999, floor=0.998, ocr_floor=0.0)
    assert llm.calls == [] and "model" not in work.ran
    work, llm = extract(tiny_scorer, 0.999, floor=0.0, ocr_floor=0.998)
    assert "model" in work.ran and len(llm.calls) >= 1
    assert tiny_scorer.ask_floor(0.98, "text_layer") == 0.0 and tiny_scorer.ask_floor(0.98, "ocr") == 0.998
    # a scorer trained with one floor for both readings uses it for both
    calibration = json.loads((Path(tiny_scorer.path) / "calibration.json").read_text())
    calibration["ask_floors"] = {"0.98": 0.7}
    old = Scorer(tiny_scorer.boosters, calibration, tiny_scorer.path, tiny_scorer.verifiers)
    assert old.ask_floor(0.98, "text_layer") == old.ask_floor(0.98, "ocr") == 0.7


def test_a_value_the_profile_backs_caps_what_a_second_look_could_reach(tiny_scorer, monkeypatch):
    steps = (np.array([0.0, 1.0]), np.array([0.5, 0.9]))
    monkeypatch.setattr(tiny_scorer, "backed_steps", {"total_amount": {"text_layer": steps, "ocr": steps}})
    chosen = Candidate("total_amount", Decimal("39.00"), {}, sources={"profile", "rules"})
    backed = FieldScore("total_amount", Decimal("39.00"), 0.9, Source.PROFILE, chosen, None)
    date = field_score("invoice_date", "2024-01-05", 0.5)
    assert tiny_scorer.reachable({"total_amount": backed, "invoice_date": date}) == pytest.approx(0.9)
    assert tiny_scorer.reachable({"total_amount": field_score("total_amount", Decimal("39.00"), 0.9)}) == 1.0
    assert tiny_scorer.reachable({"total_amount": backed}, {"total_amount"}) == 1.0  # a template's: right


def test_a_profile_that_agrees_with_the_page_never_makes_the_value_less_sure(tiny_scorer, monkeypatch):
    # the backed calibration tops out at 0.5; the page alone is about 0.9 sure of the rules' value
    steps = (np.array([0.0, 1.0]), np.array([0.5, 0.5]))
    monkeypatch.setattr(tiny_scorer, "backed_steps", {"total_amount": {"text_layer": steps, "ocr": steps}})
    features = {"by_rules": 1.0, "ocr_conf": 0.5, "by_profile": 1.0, "profile_support": 3.0, "n_proposers": 2.0}
    agreed = Candidate("total_amount", "a", features, sources={"rules", "profile"})
    other = Candidate("total_amount", "b", {"by_rules": 0.0, "ocr_conf": 0.5})
    score = tiny_scorer.score({"total_amount": [other, agreed]})["total_amount"]
    assert score.value == "a" and score.page_alone is not None and score.page_alone > 0.7
    assert score.probability == score.page_alone  # the higher of 0.5 and the page's own
    assert tiny_scorer.reachable({"total_amount": score}) == 1.0  # the page alone could still rise
    # a value the page alone ranks below another keeps the backed calibration
    backed_other = Candidate("total_amount", "b", {"by_rules": 0.0, "by_profile": 1.0}, sources={"profile"})
    assert tiny_scorer.page_alone("total_amount", [backed_other, agreed], backed_other) is None
    assert agreed.features["by_profile"] == 1.0 and "profile" in agreed.sources  # left as it was


def test_a_backed_value_is_calibrated_on_the_backed_values_of_its_own_reading(tiny_scorer, monkeypatch):
    text, ocr = (np.array([0.0, 1.0]), np.array([0.99, 0.99])), (np.array([0.0, 1.0]), np.array([0.9, 0.9]))
    monkeypatch.setattr(tiny_scorer, "backed_steps", {"total_amount": {"text_layer": text, "ocr": ocr}})
    # the page alone (the field's own map) below both, so that only the backed maps decide here
    monkeypatch.setitem(tiny_scorer.steps, "total_amount", (np.array([0.0, 1.0]), np.array([0.5, 0.5])))
    on_layer = Candidate("total_amount", "a", {"by_profile": 1.0, "ocr": 0.0}, sources={"profile"})
    on_scan = Candidate("total_amount", "a", {"by_profile": 1.0, "ocr": 1.0}, sources={"profile"})
    assert tiny_scorer.score({"total_amount": [on_layer]})["total_amount"].probability == pytest.approx(0.99)
    assert tiny_scorer.score({"total_amount": [on_scan]})["total_amount"].probability == pytest.approx(0.9)
    for chosen, top in ((on_layer, 0.99), (on_scan, 0.9)):  # the page alone would not lift it: capped
        score = FieldScore("total_amount", "a", 0.5, Source.PROFILE, chosen, None)
        assert tiny_scorer.reachable({"total_amount": score}) == pytest.approx(top)


def test_a_scorer_trained_with_one_backed_map_uses_it_for_both_readings():
    from pipeline.decision.scorer import _backed

    steps = _backed({"x": [0.0, 1.0], "y": [0.5, 0.9]})
    assert set(steps) == {"text_layer", "ocr"} and list(steps["ocr"][1]) == [0.5, 0.9]


def test_the_operator_may_have_the_model_asked_wherever_the_scorer_is_unsure_or_never(tiny_scorer):
    work, llm = extract(tiny_scorer, 0.999, floor=0.998, ask="always")
    assert "model" in work.ran and len(llm.calls) >= 1
    work, llm = extract(tiny_scorer, 0.999, floor=0.0, ask="never")
    assert llm.calls == [] and "model" not in work.ran


def test_where_the_scorer_is_not_sure_the_model_is_asked_and_the_document_flagged(tiny_scorer):
    work, llm = extract(tiny_scorer, 0.999)
    assert len(llm.calls) >= 1 and work.ran.index("model") < work.ran.index("rescore")
    assert work.scored_with_model
    result = work.result
    assert result.processing_status == "needs_review"
    assert any("is not certain" in reason for reason in result.validation_errors)
    assert "model asked" in result.routing_reason


def test_the_bundled_scorer_loads_with_this_code_s_features():
    if not (SCORER_DIR / "calibration.json").is_file():
        pytest.skip("no bundled scorer yet: scripts/train-scorer builds it")
    scorer = Scorer.load()
    assert set(scorer.thresholds) == {"0.95", "0.98", "0.99"}
    assert 0 < scorer.threshold(0.98) <= NEVER


def test_each_field_ranks_by_the_mean_score_of_its_seeded_models(tiny_scorer):
    members = tiny_scorer.boosters["total_amount"].members
    assert len(members) == ts.ENSEMBLE
    x = np.array([Candidate("total_amount", Decimal("39.00"), {"by_rules": 1.0}).vector()])
    mean = np.mean([m.predict(x) for m in members], axis=0)
    assert tiny_scorer.raw("total_amount", [Candidate("total_amount", Decimal("39.00"), {"by_rules": 1.0})]) == (
        pytest.approx(mean)
    )
    with pytest.raises(ValueError):
        SeedMean([])


def test_a_scorer_folder_trained_before_the_ensemble_loads_its_one_model_per_field(tiny_scorer, tmp_path):
    calibration = json.loads((Path(tiny_scorer.path) / "calibration.json").read_text())
    del calibration["ensemble"]
    (tmp_path / "calibration.json").write_text(json.dumps(calibration))
    for file in Path(tiny_scorer.path).glob("*.txt"):
        name = file.name.replace(".0.txt", ".txt")
        if ".verifier." in file.name or file.name.endswith(".0.txt"):
            (tmp_path / name).write_text(file.read_text())
    old = Scorer.load(tmp_path)
    assert all(len(b.members) == 1 for b in old.boosters.values())
    (tmp_path / "currency.txt").unlink()
    with pytest.raises(ScorerError, match="run scripts/train-scorer"):
        Scorer.load(tmp_path)


def test_a_page_without_an_invoice_number_label_has_no_number_to_score():
    bare = Candidate("invoice_number", "86Q671-D", {"n_ids": 0.0})
    labelled = Candidate("invoice_number", "CS00183946", {"n_ids": 1.0, "lab_id_left": 3.0})
    by_template = Candidate("invoice_number", "R-1", {"n_ids": 0.0}, sources={"template"})
    assert scorable("invoice_number", [bare]) == []
    assert scorable("invoice_number", [bare, labelled]) == [bare, labelled]
    assert scorable("invoice_number", [bare, by_template]) == [bare, by_template]
    assert scorable("total_amount", [Candidate("total_amount", Decimal("1"), {})]) != []


def test_a_document_without_an_invoice_number_label_returns_no_number_even_if_the_model_reads_one(tiny_scorer):
    lines = [line.replace("Invoice No: ", "") for line in HEADER_ONLY]  # "INV-2024-001" alone on its line
    work, llm = extract(tiny_scorer, 0.999, lines)
    assert len(llm.calls) >= 1  # the model proposed INV-2024-001
    assert "invoice_number" not in work.scores
    assert work.result.data.get("invoice_number") is None
    assert not any(reason.startswith("invoice_number") for reason in work.result.validation_errors)


def test_the_verifier_reads_the_ranking_scores_and_the_chosen_candidate():
    cand = Candidate("vendor_name", "ACME GmbH", {"legal": 1.0})
    row = verifier_features(np.array([2.0, 0.5, -1.0]), cand.vector())
    assert row[:4] == pytest.approx([2.0, top_share(np.array([2.0, 0.5, -1.0])), 1.5, 3.0])
    assert len(row) == len(VERIFIER_HEAD) + len(FEATURES["vendor_name"])
    assert verifier_features(np.array([0.3]), cand.vector())[2] == LONE_MARGIN


def test_the_calibration_reads_the_share_of_every_candidate_that_says_the_same_as_the_top_one():
    # a shop's name offered whole and truncated: both right by the reference's tolerance (0.85)
    names = ["MR D.I.Y. (JOHOR) SDN BHD", "MR D.I.Y. (JOHOR) SDN", "NO. 2 JALAN TAMPOI"]
    raw = np.array([1.0, 0.0, -1.0])
    weights = np.exp(raw - raw.max())
    assert pooled_share("vendor_name", raw, names) == pytest.approx(weights[:2].sum() / weights.sum())
    assert pooled_share("vendor_name", raw, names) > top_share(raw)
    # amounts pool to the cent only, ids on letters and digits
    assert pooled_share("total_amount", raw, [Decimal("4.80"), Decimal("4.54"), Decimal("4.8")]) == pytest.approx(
        (weights[0] + weights[2]) / weights.sum()
    )
    assert pooled_share("invoice_number", raw, ["INV-001", "INV001", "002"]) == pytest.approx(
        weights[:2].sum() / weights.sum()
    )
    # a total and its cash-rounded twin a cent away are two answers, as the reference scores them
    twins = [Decimal("23.25"), Decimal("23.26"), Decimal("0.01")]
    assert pooled_share("total_amount", raw, twins) == pytest.approx(top_share(raw))
    assert pooled_share("vendor_name", np.zeros(0), []) == 0.0


def test_serving_reads_the_calibration_input_the_training_fitted(tiny_scorer, monkeypatch):
    monkeypatch.setitem(tiny_scorer.inputs, "vendor_name", "share")  # this test is of the share
    found = [Candidate("vendor_name", v, {"by_rules": float(i == 0)}) for i, v in enumerate(["ACME GmbH", "ACME", "B"])]
    raw = tiny_scorer.raw("vendor_name", found)
    group = ts.Group("d", "rules", "vendor_name", 0, [c.value for c in found], np.zeros((3, 1)), np.zeros(3), raw=raw)
    served = tiny_scorer.calibration_input("vendor_name", raw, found, found[int(np.argmax(raw))])
    assert served == pytest.approx(ts.calibration_input(group, "share"))


def period_dates() -> list[Candidate]:
    """FeRD's travel invoice: "Abrechnungszeitraum: 09.07.2018 bis 12.07.2018" and "vom 13.07.2018"."""
    period = Candidate("invoice_date", "2018-07-09", {"lab_other_date": 2.0, "by_model": 1.0})
    issued = Candidate("invoice_date", "2018-07-13", {"lab_invoice_date": 1.0})
    due = Candidate("invoice_date", "2018-08-13", {"rules_due_date_score": 3.0})
    return [period, issued, due]


def test_a_date_beside_only_another_date_s_label_is_no_invoice_date_where_one_is_labelled():
    assert choosable("invoice_date", period_dates()) == [False, True, False]
    # no invoice-date label on the page: every date may be the invoice's
    unlabelled = [c for c in period_dates() if not c.features.get("lab_invoice_date")]
    assert choosable("invoice_date", unlabelled) == [True, True]
    # a date beside both labels stays; other fields are untouched
    both = Candidate("invoice_date", "2018-07-01", {"lab_invoice_date": 1.0, "lab_other_date": 1.0})
    assert choosable("invoice_date", [both, period_dates()[0]]) == [True, False]
    amounts = [Candidate("total_amount", Decimal("1"), {"lab_other_date": 1.0})]
    assert choosable("total_amount", amounts) == [True]


def test_the_scorer_ranks_every_date_but_chooses_among_the_choosable(tiny_scorer, monkeypatch):
    found = period_dates()
    monkeypatch.setattr(tiny_scorer, "raw", lambda name, cands: np.array([5.0 - i for i in range(len(cands))]))
    score = tiny_scorer.score({"invoice_date": found})["invoice_date"]
    assert score.value == "2018-07-13"  # the model's period date ranked first, and is not chosen
    assert score.runner_up is None  # the due date is no runner-up either
    # the training decides on the same candidates: its share and verifier read only these
    group = ts.Group(
        "d",
        "rules",
        "invoice_date",
        0,
        [c.value for c in found],
        np.zeros((3, 1)),
        np.array([0.0, 1.0, 0.0]),
        raw=np.array([5.0, 4.0, 3.0]),
        choice=np.array(choosable("invoice_date", found)),
    )
    decided = group.decided()
    assert decided.values == ["2018-07-13"] and ts.top(decided)[1]
    assert len(group.values) == 3  # the ranking rows stay whole
