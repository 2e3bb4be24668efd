"""training.calibrate_arbiter: its fit (labelled records in, the arbiter table's rules out) and
its labelling (a fake model asked every hold-out document; the real model's run is
scripts/calibrate-arbiter's)."""

from __future__ import annotations

import json

from pipeline.decision.arbitrate import ArbiterTable
from tests.paths import ROOT
from training import calibrate_arbiter

REPO = ROOT


def record(field, outcome, ok, rules_ok=None, model_ok=None, real=False):
    return {
        "doc": "d",
        "field": field,
        "real": real,
        "outcome": outcome,
        "ok": ok,
        "rules_ok": rules_ok,
        "model_ok": model_ok,
    }


def disputes(field, n, rules_ok, model_ok, real=False):
    return [record(field, "disputed:rules", rules_ok, rules_ok, model_ok, real) for _ in range(n)]


def test_the_model_is_preferred_only_where_it_wins_on_real_documents_too():
    fit = calibrate_arbiter.fit
    # synthetic disputes won by the model, real ones by the rules: the rules stay preferred
    vendor = disputes("vendor_name", 10, False, True) + disputes("vendor_name", 3, True, False, real=True)
    # the model wins everywhere: preferred, and its wins are counted as disputed:llm outcomes
    address = disputes("vendor_address", 6, False, True) + disputes("vendor_address", 1, False, True, real=True)
    # won on synthetic documents only: not enough
    date = disputes("invoice_date", 6, False, True)
    table = fit(vendor + address + date + disputes("invoice_number", 3, False, True))
    assert table["preferred"]["vendor_name"] == "rules"
    assert table["preferred"]["vendor_address"] == "llm"
    assert table["preferred"]["invoice_date"] == "rules"
    assert table["preferred"]["invoice_number"] == "rules"  # fewer than MIN_DISPUTES disputes
    assert table["outcomes"]["vendor_address"] == {"disputed:llm": {"n": 7, "ok": 7, "real_n": 1, "real_ok": 1}}
    assert table["disputes"]["vendor_name"]["real_rules"] == 3


def test_an_outcome_is_trusted_at_95_percent_over_12_fields_and_on_real_documents_too():
    fit = calibrate_arbiter.fit
    rows = [record("total_amount", "agreed:rules", True) for _ in range(40)]
    rows += [record("total_amount", "agreed:rules", False)]  # 40/41 right
    rows += [record("total_amount", "rules:rules", i < 80) for i in range(97)]  # 80/97 right
    rows += [record("invoice_date", "agreed:rules", i < 18, real=True) for i in range(20)]  # real 18/20
    rows += [record("invoice_date", "agreed:rules", True) for _ in range(100)]
    rows += [record("currency", "model:llm", True) for _ in range(3)]  # too few to judge
    rows += [record("invoice_number", "missing", False)]
    table = fit(rows)
    assert table["trusted"]["total_amount"] == ["agreed:rules"]
    assert table["trusted"]["invoice_date"] == []  # 118/120 overall, but 0.90 on real documents
    assert table["trusted"]["currency"] == ["agreed:rules"]  # unmeasured agreement stays trusted
    assert "invoice_number" not in table["outcomes"]


def test_a_fitted_table_loads_as_an_arbiter_table(tmp_path):
    script = calibrate_arbiter
    path = tmp_path / "table.json"
    path.write_text(json.dumps(script.fit([record("vendor_name", "agreed:rules", True)])))
    table = ArbiterTable.load(path)
    assert table.trusted["vendor_name"] == frozenset({"agreed:rules"})


def test_an_outcome_refined_by_evidence_is_trusted_where_the_plain_one_is_not():
    fit = calibrate_arbiter.fit
    # agreed totals: 44/48 right, too few to trust; the 30 the rules' arithmetic confirms are all right
    rows = [{**record("total_amount", "agreed:rules", i < 30), "tag": "sum"} for i in range(30)]
    rows += [record("total_amount", "agreed:rules", i < 14) for i in range(18)]
    # a tag proves nothing about a value the model gave
    rows += [{**record("total_amount", "model:llm", True), "tag": "sum"} for _ in range(20)]
    # an unmeasured refinement is not trusted (a plain agreement would be)
    rows += [{**record("vendor_name", "agreed:rules", True), "tag": "legal"} for _ in range(3)]
    rows += [record("vendor_name", "agreed:rules", i < 10) for i in range(20)]
    table = fit(rows)
    assert table["outcomes"]["total_amount"]["agreed:rules"]["n"] == 48
    assert table["outcomes"]["total_amount"]["agreed:rules+sum"] == {"n": 30, "ok": 30, "real_n": 0, "real_ok": 0}
    assert "model:llm+sum" not in table["outcomes"]["total_amount"]
    assert table["trusted"]["total_amount"] == ["agreed:rules+sum", "model:llm"]
    assert table["trusted"]["vendor_name"] == []


def test_the_model_answers_every_hold_out_document_and_the_arbiter_decides_without_the_scorer(tmp_path, monkeypatch):
    """Serving asks the model only where the scorer is unsure, which would leave the table few
    disputes to learn from: calibration asks it every document, and the key fields it labels are
    the arbiter's decisions (what serves where an operator turns the scorer off), not the
    scorer's."""
    import argparse

    import pytest

    # the synthetic generator needs the scorer extra (fpdf2, faker, fonts); the test install has not
    pytest.importorskip("fpdf", reason="the synthetic generator's fpdf2 (the scorer extra) is not installed")
    pytest.importorskip("faker", reason="the synthetic generator's faker (the scorer extra) is not installed")

    from models import registry
    from tests.fakes.llm import EchoLLM
    from tests.paths import SHARED
    from training.dataset import HOLDOUT_FOLD, fold_of
    from training.scorer import load_scorer
    from training.synth import generate

    synth = tmp_path / "synth"
    synth.mkdir()
    written, truth = 0, {}
    for doc in generate(12, seed=5):
        if doc.stem.endswith("-en") and fold_of(f"synth:synth-{doc.stem}") == HOLDOUT_FOLD:
            (synth / f"{doc.stem}.pdf").write_bytes(doc.pdf)
            (synth / f"{doc.stem}.json").write_text(json.dumps(doc.truth))
            written, truth = written + 1, doc.truth
    assert written, "no English synthetic document of the hold-out fold among the first 12"
    (tmp_path / "train").mkdir()
    backend = EchoLLM({k: v for k, v in truth.items() if k != "line_items"})  # the model reads it right
    monkeypatch.setattr(registry, "load_llm", lambda *args, **kwargs: backend)
    if not (SHARED / "bench" / "score.py").is_file():
        pytest.skip("../shared/bench/score.py (the reference scorer that labels the fields) is absent")
    monkeypatch.setattr(calibrate_arbiter, "load_scorer", lambda _: load_scorer(SHARED / "datasets"))
    args = argparse.Namespace(
        train_dir=tmp_path / "train",
        synth_dir=[synth],
        cache=tmp_path / "cache",
        limit=160,
        threads=1,
        model=None,
        adapter="",
    )
    records, answers = calibrate_arbiter.label(args)
    assert len(backend.calls) == written == len(answers)
    assert records and not [r for r in records if r["outcome"].startswith("scored")]
    assert {r["outcome"] for r in records if r["field"] == "total_amount"} == {"agreed:rules"}
