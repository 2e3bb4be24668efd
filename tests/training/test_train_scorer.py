"""The scorer's training (training/train_scorer.py) on small made-up candidate groups: it is
deterministic, its folds and thresholds follow their rules, and what it writes loads as the
pipeline's Scorer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.decision.candidates import FEATURES, Candidate
from pipeline.decision.scorer import Scorer, ScorerError
from pipeline.schema import KEY_FIELDS
from training import train_scorer as ts
from training.dataset import FOLDS


def made_up(n_docs: int = 60, seed: int = 0) -> tuple[list[ts.Group], list[ts.TrainDoc]]:
    """Documents whose every key field has 4 candidates; the one marked by the rules is right
    on 9 documents of 10, and a noisy feature carries nothing."""
    rng = np.random.default_rng(seed)
    groups, docs = [], []
    for d in range(n_docs):
        key = f"doc{d:03d}"
        truth = {name: "x" for name in KEY_FIELDS}
        docs.append(ts.TrainDoc(key, None, truth, list(KEY_FIELDS), f"g{d}", "synth", "ocr"))
        for name in KEY_FIELDS:
            names = FEATURES[name]
            vectors = np.full((4, len(names)), np.nan)
            vectors[:, names.index("ocr_conf")] = rng.random(4)
            vectors[:, names.index("by_rules")] = [1, 0, 0, 0]
            right = 0 if rng.random() < 0.9 else 1 + int(rng.integers(3))
            labels = np.zeros(4)
            labels[right] = 1
            groups.append(
                ts.Group(key, "rules", name, d % FOLDS, ["a", "b", "c", "d"], vectors, labels, "synth", "ocr")
            )
    return groups, docs


def test_fit_is_deterministic_and_writes_a_scorer_the_pipeline_loads(tmp_path):
    groups, docs = made_up()
    first, models, card = ts.fit(groups, docs)
    again, models_again, _ = ts.fit(made_up()[0], docs)
    assert models == models_again and first == again
    assert card["fields"]["total_amount"]["top_right"] == pytest.approx(0.9, abs=0.06)
    ts.write(tmp_path, first, models, ts.card_markdown(card))
    scorer = Scorer.load(tmp_path)
    marked = Candidate("total_amount", "a", {"by_rules": 1.0, "ocr_conf": 0.5})
    other = Candidate("total_amount", "b", {"by_rules": 0.0, "ocr_conf": 0.5})
    score = scorer.score({"total_amount": [other, marked]})["total_amount"]
    assert score.value == "a" and score.runner_up is other
    assert 0.7 < score.probability < 1.0  # right 9 times in 10


def test_a_folder_without_a_scorer_or_with_other_features_is_refused(tmp_path):
    with pytest.raises(ScorerError, match="run scripts/train-scorer"):
        Scorer.load(tmp_path)
    groups, docs = made_up(20)
    calibration, models, card = ts.fit(groups, docs)
    calibration["features"]["total_amount"] = ["something", "else"]
    ts.write(tmp_path, calibration, models, "")
    with pytest.raises(ScorerError, match="other features"):
        Scorer.load(tmp_path)


def outcome(key: str, p: float, right: bool, variant: str = "rules") -> ts.DocOutcome:
    return ts.DocOutcome(key, variant, p, right, "ocr", "synth")


def test_the_threshold_is_the_lowest_that_keeps_the_precision():
    # 100 sure and right, then 20 at 0.9 of which 2 wrong, then 20 at 0.5 of which 10 wrong
    outcomes = [outcome(f"a{i}", 0.995, True) for i in range(100)]
    outcomes += [outcome(f"b{i}", 0.9, i >= 2) for i in range(20)]
    outcomes += [outcome(f"c{i}", 0.5, i >= 10) for i in range(20)]
    cuts = ts.thresholds(outcomes)
    assert cuts["0.95"]["ocr"] == 0.9  # 118 of 120 right at 0.9 (expected 0.975); 128 of 140 at 0.5 is not
    assert cuts["0.98"]["ocr"] == 0.995 and cuts["0.99"]["ocr"] == 0.995  # 100 of 100: 0.990
    assert cuts["0.95"]["text_layer"] == ts.NEVER  # no text-layer document: none completes


def test_a_document_its_validation_holds_neither_completes_nor_raises_the_threshold():
    # 100 right at 0.99, 3 wrong at 0.995 whose totals do not add up: serving holds those anyway
    free = [outcome(f"a{i}", 0.99, True) for i in range(100)]
    wrong = [outcome(f"w{i}", 0.995, False) for i in range(3)]
    held = [ts.DocOutcome(o.key, o.variant, o.probability, o.right, o.mode, o.source, held=True) for o in wrong]
    assert ts.thresholds(free + wrong)["0.98"]["ocr"] == ts.NEVER  # 100 of 103: under 0.98
    assert ts.thresholds(free + held)["0.98"]["ocr"] == 0.99
    assert ts.coverage(free + held, 0.99) == (103, 100, 100)


def test_the_precision_a_threshold_promises_counts_how_many_documents_stand_behind_it():
    assert ts.expected_precision(30, 30) == 31 / 32  # not 1.0: thirty documents are little evidence
    assert 0 < 196 / 200 - ts.expected_precision(196, 200) < 1.0 - ts.expected_precision(30, 30)  # less, the more
    # 30 right of 30 keep 0.95 but do not promise 0.98; 60 of 60 do
    few = ts.thresholds([outcome(f"a{i}", 0.99, True) for i in range(30)])
    many = ts.thresholds([outcome(f"a{i}", 0.99, True) for i in range(60)])
    assert (few["0.95"]["ocr"], few["0.98"]["ocr"]) == (0.99, ts.NEVER)
    assert many["0.98"]["ocr"] == 0.99


def test_each_reading_gets_the_threshold_that_keeps_its_own_precision():
    # text layers: right from 0.985 up; scans: 2 of 10 wrong at 0.985, right above
    layers = [ts.DocOutcome(f"t{i}", "rules", 0.985, True, "text_layer", "synth") for i in range(60)]
    scans = [outcome(f"s{i}", 0.995, True) for i in range(60)] + [outcome(f"w{i}", 0.985, i >= 2) for i in range(10)]
    cuts = ts.thresholds(layers + scans)
    assert cuts["0.98"] == {"text_layer": 0.985, "ocr": 0.995, "ocr_script": ts.NEVER}
    assert ts.coverage(layers + scans, cuts["0.98"]) == (130, 120, 120)
    assert ts.coverage(layers + scans, 0.985)[1:] == (130, 128)  # one threshold: scans at 0.97 precision


def test_a_threshold_keeps_the_precision_the_documents_own_probabilities_promise():
    # 60 right at 0.99, 40 right at 0.6: all 100 right on the folds, but the 40 promise 0.6 each
    outcomes = [outcome(f"a{i}", 0.99, True) for i in range(60)] + [outcome(f"b{i}", 0.6, True) for i in range(40)]
    assert ts.promised_precision(ts.completed(ts.served(outcomes, 0.6), 0.6)) == pytest.approx(0.834)
    assert ts.thresholds(outcomes)["0.98"]["ocr"] == 0.99


def test_the_card_lists_the_fold_documents_that_complete_wrong():
    truth = {"invoice_number": "7", "total_amount": "x", "vendor_name": "x"}
    docs = [ts.TrainDoc(key, None, truth, list(truth), key, "synth", "ocr") for key in ("sure", "unread", "low")]
    labels = {"sure": [0, 1], "unread": [1, 0], "low": [0, 1]}  # the top candidate is the first

    def group(key: str, name: str) -> ts.Group:
        right = labels[key] if name == "total_amount" else [1, 0]
        return ts.Group(
            key, "rules", name, 0, ["a", "b"], np.zeros((2, 1)), np.array(right, float), raw=np.array([1.0, 0.0])
        )

    groups = [group(k, n) for k in labels for n in truth if not (k == "unread" and n == "invoice_number")]
    outcomes = [outcome("sure", 0.99, False), outcome("unread", 0.95, False), outcome("low", 0.5, False)]
    rows = ts.completed_wrong(outcomes, groups, docs, 0.9, 0.0)
    assert [(r["key"], r["probability"], r["wrong"]) for r in rows] == [
        ("sure", 0.99, ["total_amount: a (x)"]),
        ("unread", 0.95, ["invoice_number: not read (7)"]),
    ]  # surest first; below the threshold it does not complete


def test_without_enough_completed_documents_nothing_completes():
    cuts = ts.thresholds([outcome(f"a{i}", 0.9, True) for i in range(ts.MIN_COMPLETED - 1)])
    assert {cut for by_reading in cuts.values() for cut in by_reading.values()} == {ts.NEVER}


def test_the_model_is_asked_only_where_the_rules_state_is_not_sure():
    outcomes = [
        outcome("a", 0.99, True),
        outcome("a", 0.5, False, "model"),  # never served: the rules' state already completes
        outcome("b", 0.4, False),
        outcome("b", 0.97, True, "model"),
    ]
    assert {(o.key, o.variant) for o in ts.served(outcomes, 0.9)} == {("a", "rules"), ("b", "model")}


def with_a_telling_page_count(groups: list[ts.Group]) -> list[ts.Group]:
    """Where the rules' vendor is wrong, no candidate is right (the name is not on the page), and
    a feature every candidate shares says so (two pages, not one): the rules' candidate stands
    out just as much, so its share cannot tell, and a ranking learns nothing from a document
    without a right candidate; a verifier can."""
    column = FEATURES["vendor_name"].index("n_pages")
    for number, g in enumerate(g for g in groups if g.field == "vendor_name"):
        missing = number % 3 == 0 or not g.labels[0]
        g.vectors[:, column] = 2.0 if missing else 1.0
        g.labels = g.labels * (not missing)
    return groups


def test_a_field_takes_the_verifier_where_it_predicts_better_out_of_fold(tmp_path):
    groups, docs = made_up(150)
    calibration, models, card = ts.fit(with_a_telling_page_count(groups), docs)
    inputs = {name: row["input"] for name, row in calibration["fields"].items()}
    assert inputs["vendor_name"] == "verifier"
    for name, row in card["fields"].items():  # the verifier only where it predicts better
        assert (inputs[name] == "verifier") == (row["brier_verifier"] < row["brier_share"])
    verified = {name for name, kind in inputs.items() if kind == "verifier"}
    seeded = {f"{name}.{k}" for name in KEY_FIELDS for k in range(ts.ENSEMBLE)}
    assert set(models) == {*seeded, *(f"{name}.verifier" for name in verified)}
    (tmp_path / "total_amount.verifier.txt").write_text("a stale verifier of an earlier training")
    (tmp_path / "total_amount.txt").write_text("the single model of a training before the ensemble")
    ts.write(tmp_path, calibration, models, ts.card_markdown(card))
    assert {p.name for p in tmp_path.glob("*.verifier.txt")} == {f"{name}.verifier.txt" for name in verified}
    assert not (tmp_path / "total_amount.txt").exists()
    scorer = Scorer.load(tmp_path)
    assert set(scorer.verifiers) == verified

    def vendor(pages: float) -> float:
        cands = [
            Candidate("vendor_name", "a", {"by_rules": 1.0, "ocr_conf": 0.5, "n_pages": pages}),
            Candidate("vendor_name", "b", {"by_rules": 0.0, "ocr_conf": 0.5, "n_pages": pages}),
        ]
        return scorer.score({"vendor_name": cands})["vendor_name"].probability

    assert vendor(1.0) > 0.9 > 0.5 > vendor(2.0)


def test_a_scorer_that_names_a_verifier_it_lacks_is_refused(tmp_path):
    groups, docs = made_up(150)
    calibration, models, card = ts.fit(with_a_telling_page_count(groups), docs)
    del models["vendor_name.verifier"]
    ts.write(tmp_path, calibration, models, "")
    with pytest.raises(ScorerError, match="run scripts/train-scorer"):
        Scorer.load(tmp_path)


def test_the_ask_floor_is_the_lowest_state_the_model_completed_rightly():
    outcomes = [
        outcome("a", 0.617, False),
        outcome("a", 0.95, True, "model"),  # the model completes it, rightly: from 0.61 it pays
        outcome("b", 0.3, False),
        outcome("b", 0.95, False, "model"),  # completed wrongly: no reason to ask that low
        outcome("c", 0.2, False),
        outcome("c", 0.5, False, "model"),
    ]
    floors = ts.ask_floors(outcomes, {"0.98": 0.9, "0.99": 0.97})
    # at 0.97 the model completed none: rows only; no text-layer document: its threshold
    assert floors == {
        "0.98": {"text_layer": 0.9, "ocr": 0.61, "ocr_script": 0.9},
        "0.99": {"text_layer": 0.97, "ocr": 0.97, "ocr_script": 0.97},
    }
    assert {(o.key, o.variant) for o in ts.served(outcomes, 0.9, 0.61)} == {
        ("a", "model"),
        ("b", "rules"),
        ("c", "rules"),
    }


def test_the_ask_floor_is_fitted_per_reading():
    outcomes = [
        ts.DocOutcome("a", "rules", 0.5, False, "text_layer", "synth"),
        ts.DocOutcome("a", "model", 0.95, True, "text_layer", "synth"),  # a text layer completed from 0.5
        outcome("b", 0.5, False),
        outcome("b", 0.95, False, "model"),  # a scan completed wrongly: no gain
        outcome("c", 0.8, False),
        outcome("c", 0.95, True, "model"),  # a scan completed rightly from 0.8
    ]
    cuts = {"0.98": {"text_layer": 0.9, "ocr": 0.92, "ocr_script": 0.97}}
    floors = ts.ask_floors(outcomes, cuts)
    assert floors == {"0.98": {"text_layer": 0.5, "ocr": 0.8, "ocr_script": 0.97}}  # no OCR'd Thai: its threshold
    assert {(o.key, o.variant) for o in ts.served(outcomes, cuts["0.98"], floors["0.98"])} == {
        ("a", "model"),
        ("b", "rules"),  # below the scans' floor: not asked
        ("c", "model"),
    }


def test_a_verifier_trained_on_other_inputs_is_refused(tmp_path):
    groups, docs = made_up(150)
    calibration, models, card = ts.fit(with_a_telling_page_count(groups), docs)
    calibration["verifier_features"]["vendor_name"] = ["top_raw", "something else"]
    ts.write(tmp_path, calibration, models, "")
    with pytest.raises(ScorerError, match="verifier was trained on other inputs"):
        Scorer.load(tmp_path)


def test_a_document_the_profile_caps_below_the_threshold_is_not_asked_nor_counted_for_the_floor():
    outcomes = [
        ts.DocOutcome("a", "rules", 0.7, False, "ocr", "synth", reach=0.8),  # capped: the model cannot lift it
        outcome("a", 0.95, True, "model"),
        outcome("b", 0.75, False),
        outcome("b", 0.95, True, "model"),
    ]
    assert {(o.key, o.variant) for o in ts.served(outcomes, 0.9, 0.6)} == {("a", "rules"), ("b", "model")}
    assert ts.ask_floors(outcomes, {"0.98": 0.9}) == {"0.98": {"text_layer": 0.9, "ocr": 0.75, "ocr_script": 0.9}}


def backed_groups(n_docs: int = 120) -> list[ts.Group]:
    """Total-amount groups of documents read with a vendor profile: candidate 0 is the profile's
    proposal and right; the page alone (``plain``) ranks it first on the even documents only."""
    names = FEATURES["total_amount"]
    groups = []
    for d in range(n_docs):
        vectors = np.full((2, len(names)), np.nan)
        vectors[:, names.index("by_profile")] = [1, 0]
        vectors[:, names.index("by_rules")] = [1, 0]
        plain = vectors.copy()
        plain[:, names.index("by_profile")] = 0
        group = ts.Group(f"d{d}", "rules", "total_amount", d % FOLDS, ["a", "b"], vectors, np.array([1.0, 0.0]))
        group.plain = plain
        group.raw = np.array([3.0, 0.0])
        group.plain_raw = np.array([5.0, 0.0]) if d % 2 == 0 else np.array([0.0, 1.0])
        groups.append(group)
    return groups


def test_training_reads_a_backed_value_as_serving_does_never_below_the_page_alone():
    groups = backed_groups()
    assert groups[0].page_alone_agrees() and not groups[1].page_alone_agrees()
    probs, caps = ts.cross_calibrated(groups, "share")
    p = [probs[(g.key, "rules", "total_amount")] for g in groups[:2]]
    cap = (len(groups) * 4 // 5 + 1) / (len(groups) * 4 // 5 + 2)  # the rule of succession, 4 folds of 5
    assert p[1] == pytest.approx(cap, abs=1e-4)  # the backed map: capped
    assert caps[("d1", "rules", "total_amount")] == pytest.approx(cap, abs=1e-4)
    assert caps[("d0", "rules", "total_amount")] == 1.0  # the page alone agrees: it could go higher
    assert p[0] == pytest.approx(1.0)  # the page alone agrees: the field-wide map, every top right


def test_backed_values_are_calibrated_per_reading_where_each_has_enough():
    names = FEATURES["total_amount"]
    groups = backed_groups(200)
    for d, group in enumerate(groups):  # every other page OCR'd; every 10th OCR'd top wrong
        group.vectors[:, names.index("ocr")] = d % 2
        if d % 2 and d % 20 == 1:
            group.labels = np.array([0.0, 1.0])
    steps = ts.backed_steps(groups, "share")
    assert steps["text_layer"][1][-1] == pytest.approx(101 / 102, abs=1e-6)  # 100 right of 100
    assert steps["ocr"][1][-1] == pytest.approx(91 / 102, abs=1e-6)  # 90 of 100
    few = groups[:40]  # 20 of each reading: too few alone, enough together
    assert ts.backed_steps(few, "share")["ocr"] == ts.backed_steps(few, "share")["text_layer"]
    assert ts.backed_steps(groups[:20], "share") is None


def test_an_e_invoice_page_that_does_not_print_its_xml_values_is_not_learnt_from():
    # Mustang's example invoices print other sums and dates than their XML
    from pipeline.document import DocumentText

    page = DocumentText.of_text("Rechnung vom 13.06.2015\nGesamtbetrag 406,82 EUR")
    truth = {"total_amount": 571.04, "invoice_date": "2015-06-13", "vendor_name": "Bei Spiel GmbH"}
    asked = ["total_amount", "invoice_date", "vendor_name"]
    docs = [
        ts.TrainDoc(
            "zugferd-corpus:RE-503:text_layer", page, truth, asked, "producer:m", "zugferd-corpus", "text_layer"
        ),
        ts.TrainDoc("zugferd-corpus:RE-503:ocr", page, truth, asked, "producer:m", "zugferd-corpus", "ocr"),
        ts.TrainDoc("synth:s-1:text_layer", page, truth, asked, "synth:1", "synth", "text_layer"),
    ]
    assert ts.unprinted_fields(docs) == {"zugferd-corpus:RE-503": {"total_amount"}}
    kept = ts.without_unprinted(docs)
    assert [d.asked for d in kept] == [["invoice_date", "vendor_name"]] * 2 + [asked]  # a synthetic page: a miss


def test_a_cached_model_answer_is_asked_again_when_the_reading_changed(tmp_path, monkeypatch):
    """Answers are cached under the text the model read: an answer to a text the reader no
    longer produces is not reused (a clean clone must build the committed scorer)."""
    from pipeline.document import DocumentText

    def item(text: str) -> ts.TrainDoc:
        return ts.TrainDoc("synth:a:text_layer", DocumentText.of_text(text), {}, [], "g", "synth", "text_layer")

    class Asked(Exception):
        pass

    def load_llm(*args, **kwargs):
        raise Asked

    old, new = item("รวมท ั้ งส ิ้ น 100.00"), item("รวมทั้งสิ้น 100.00")
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({ts.answer_key(old): {"total_amount": "1.00"}}))
    monkeypatch.setattr(ts, "model_sample", lambda docs, limit: list(docs))
    monkeypatch.setattr("models.registry.load_llm", load_llm)

    class Args:
        answers, model_limit, threads, adapter = path, 1, 1, None

    assert ts.collect_answers([old], Args) == {"synth:a:text_layer": {"total_amount": "1.00"}}
    with pytest.raises(Asked):  # the reading changed: the model is asked again
        ts.collect_answers([new], Args)


def test_coverage_per_source_counts_each_source_at_the_shared_threshold():
    outcomes = [ts.DocOutcome(f"s{i}", "rules", 0.9, True, "ocr", "sroie") for i in range(3)]
    outcomes += [ts.DocOutcome(f"y{i}", "rules", 0.99, i > 0, "ocr", "synth") for i in range(4)]
    outcomes += [ts.DocOutcome("s9", "rules", 0.5, True, "ocr", "sroie")]
    rows = ts.by_source(outcomes, {"0.98": {"text_layer": 0.95, "ocr": 0.95, "ocr_script": 1.01}}, {"0.98": 0.0})
    assert rows == [
        {"target": "0.98", "source": "sroie", "documents": 4, "completed": 0, "precision": None},
        {"target": "0.98", "source": "synth", "documents": 4, "completed": 4, "precision": 0.75},
    ]


def test_training_without_serving_s_thai_reader_stops_unless_asked(tmp_path, monkeypatch, capsys):
    # a host without tesseract-ocr-tha read the 36 Thai pages with ppocr alone and fitted
    # another scorer (373 completed out of fold, not 410), silently and into the shared cache
    train = tmp_path / "train"
    train.mkdir()
    monkeypatch.setattr(ts, "thai_reader_installed", lambda: False)
    with pytest.raises(SystemExit):
        ts.main(["--train-dir", str(train), "--dry-run"])
    assert "tesseract-ocr-tha" in capsys.readouterr().err
    cache = tmp_path / "cache"
    assert ts.reader_cache(cache, without_thai=True) == cache / "without-thai"
    assert ts.reader_cache(cache, without_thai=False) == cache


def test_stability_refits_with_one_synthetic_reading_left_out_each_time():
    """``--stability``: the figures of a fit on everything, then of refits that each leave one
    synthetic reading out (drawn the same way every time), and their spread."""
    groups, docs = made_up()
    runs = ts.stability(groups, docs, None, 2)
    assert [run.left_out for run in runs][0] == "" and len({run.left_out for run in runs}) == 3
    assert runs[0].served["documents"] == 60 and [run.served["documents"] for run in runs[1:]] == [59, 59]
    assert [run.left_out for run in ts.stability(made_up()[0], docs, None, 2)] == [run.left_out for run in runs]
    full, _, card = ts.fit(made_up()[0], docs)
    assert runs[0].thresholds == full["thresholds"][ts.SHIPPED_TARGET]  # the first run is the plain fit
    text = ts.stability_markdown(runs)
    assert "| (none) |" in text and "synth: completed" in text and "all: completed" in text
