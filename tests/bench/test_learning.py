"""The learning-stream benchmark's own logic, without a server: which shops repeat, what the
simulated clerk corrects, when a document counts as right, and the position buckets."""

from __future__ import annotations

import json

from bench.learning import MATCH_PAGE, Outcome, bucket_rows, corrections, large_book, repeat_shops, right


class ScorePy:
    """score.py's ``field_ok`` as the benchmark calls it (exact comparison is enough here)."""

    @staticmethod
    def field_ok(name, pred, truth):
        return pred is not None and pred == truth


def test_repeat_shops_groups_receipts_by_their_vendor_in_file_order(tmp_path):
    for stem, vendor in (
        ("001", "Shop A Sdn Bhd"),
        ("002", "SHOP A SDN. BHD."),
        ("003", "Other"),
        ("004", "Shop A Sdn Bhd"),
    ):
        (tmp_path / f"{stem}.jpg").write_bytes(b"\xff\xd8" + stem.encode())
        (tmp_path / f"{stem}.json").write_text(json.dumps({"vendor_name": vendor, "total_amount": 1.0}))
    (tmp_path / "manifest.json").write_text("[]")
    shops = repeat_shops(tmp_path, 2)
    assert [(key, [d.name for d in docs]) for key, docs in shops] == [
        ("shopasdnbhd", ["001.jpg", "002.jpg", "004.jpg"])
    ]
    assert shops[0][1][0].content_type == "image/jpeg"


def test_the_clerk_corrects_only_the_wrong_key_fields_the_truth_has():
    truth = {"vendor_name": "A", "total_amount": 7.0, "invoice_number": None, "invoice_date": "2024-01-02"}
    data = {"vendor_name": "A", "total_amount": 9.0, "invoice_number": "X1", "invoice_date": None}
    assert corrections(ScorePy, data, truth) == ["invoice_date=2024-01-02", "total_amount=7.0"]
    assert not right(ScorePy, data, truth)
    assert right(ScorePy, {**data, "total_amount": 7.0, "invoice_date": "2024-01-02"}, truth)
    assert not right(ScorePy, None, truth)


def test_buckets_by_position_with_and_without_learning():
    def outcome(position, status, ok, learning=True):
        return Outcome("synth pdf", "v", position, status, ok, 1.0, learning)

    rows = bucket_rows(
        [
            outcome(1, "needs_review", True),
            outcome(2, "completed", True),
            outcome(3, "completed", True),
            outcome(4, "completed", False),
            outcome(7, "needs_review", False),
            outcome(1, "needs_review", True, learning=False),
        ]
    )
    got = {(r["learning"], r["bucket"]): (r["documents"], r["completed"], r["precision"]) for r in rows}
    assert got == {
        (True, "1st"): (1, 0, None),
        (True, "2nd"): (1, 1, 1.0),
        (True, "3rd-5th"): (2, 2, 0.5),
        (True, "6th+"): (1, 0, None),
        (False, "1st"): (1, 0, None),
    }


def test_the_large_book_holds_the_page_s_vendor_among_fillers():
    from pipeline.profiles.identifiers import identifiers

    book = large_book(100, key="bench:1:1")
    assert len(book) == 100 and book.key == "bench:1:1"
    assert book.match(identifiers(MATCH_PAGE), text=MATCH_PAGE).profile.profile_id == "mine"
