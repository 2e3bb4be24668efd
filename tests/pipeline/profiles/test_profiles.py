"""Vendor profiles without a database: identifiers found on a page, what an approval teaches,
what the profile proposes on the vendor's next page, and how a page is matched (or refused)."""

from __future__ import annotations

from pipeline.context import JobContext
from pipeline.decision.candidates import Candidate
from pipeline.decision.scorer import scorable
from pipeline.profiles.book import Match, ProfileBook, name_printed
from pipeline.profiles.identifiers import identifiers
from pipeline.profiles.lessons import Lesson, id_shape, label_key, learn, skeleton
from pipeline.profiles.profile import Edits, Proposal, build, in_shape, propose
from pipeline.steps import Work, profile_reasons, profile_step

IBAN = "DE89370400440532013000"
OTHER_IBAN = "DE02120300000000202051"


def receipt(number: str, day: str, total: str, cash: str, iban: str = IBAN) -> str:
    return "\n".join(
        [
            "TEO HENG STATIONERY & BOOKS",
            "(1234567-X)",
            "Tel: 03-5522 1234",
            "Invoice No: " + number,
            "Date: " + day + " 10:33",
            "Pencil 2 1.00 2.00",
            "TOTAL ROUNDED: " + total,
            "CASH " + cash,
            "IBAN " + iban,
        ]
    )


FIRST = receipt("CS00012345", "05/01/2017", "39.00", "50.00")
FIRST_DATA = {
    "vendor_name": "TEO HENG STATIONERY & BOOKS",
    "invoice_number": "CS00012345",
    "invoice_date": "2017-01-05",
    "total_amount": 39.0,
    "currency": "MYR",
}


def test_identifiers_are_typed_and_checked():
    text = (
        "ACME GmbH, USt-IdNr. DE136695976, IBAN DE89 3704 0044 0532 0130 00\n"
        "Co. Reg. No: 200301012345 (1234567-X)\n"
        "billing@acme-tools.de, www.acme-tools.de, someone@gmail.com, Tel: +49 89 1234 5678\n"
        "IBAN DE00370400440532013000"  # wrong check digits: no IBAN
    )
    found = identifiers(text)
    assert {
        f"iban:{IBAN}",
        "vat:DE136695976",
        "reg:200301012345",
        "reg:1234567X",
        "email:acme-tools.de",
        "web:acme-tools.de",
        "phone:912345678",
    } <= found
    assert not any("gmail" in i for i in found)  # a free mail domain names nobody
    # as OCR reads receipts: letters for digits, a doubled dash, "1D" for "ID", a tax line
    ocr = identifiers(
        "(CO.RFG : 86Q671-D)\n(65351--M)\nGST 1D: 000381399040\nGST 12.00 0.72\nGST ID: 0015317606 TAX INVOICE"
    )
    assert ocr == {"reg:860671D", "reg:65351M", "reg:000381399040", "reg:0015317606"}
    # China's taxpayer number, Spain's NIF, and bank accounts after their label (a bank between)
    cn = identifiers("纳税人识别号: 91133345MAQ6LK8TK0\n开户行及账号: 中国工商银行上海分行 7792 2622 5527 2634")
    assert cn == {"reg:91133345MA061K8TK0", "acct:7792262255272634"}
    assert identifiers("NIF-IVA: A94699044\nKonto-Nr. 1234 5678 90") == {"reg:A94699044", "acct:1234567890"}
    assert identifiers("Account No: 1,234.56") == frozenset()  # an amount after the label is no account
    assert "iban:DE00370400440532013000" not in found


def test_a_lesson_records_where_each_confirmed_value_is_printed():
    lesson = learn("inv-1", FIRST, FIRST_DATA)
    assert lesson.labels == {
        "invoice_number": ("invoice no",),
        "invoice_date": ("date",),
        "total_amount": ("total rounded",),
    }  # not "cash": 50.00 is no total
    assert lesson.shapes["invoice_number"] == "AA99999999" and lesson.shapes["invoice_date"] == "dmy"
    assert f"iban:{IBAN}" in lesson.identifiers and lesson.values["vendor_name"] == FIRST_DATA["vendor_name"]
    assert label_key(["Total", "39.00"], 1, 0) == "^total"  # a value alone on its line: the line above
    exact_change = learn("inv-2", receipt("CS2", "06/01/2017", "39.00", "39.00"), FIRST_DATA)
    assert exact_change.labels["total_amount"] == ("total rounded",)  # cash equal to the total by chance
    assert id_shape("INV-2023/0042") == "AAA-9999/9999"


def test_the_profile_reads_the_next_receipt_where_the_vendor_prints_it():
    profile = build("p", [learn("inv-1", FIRST, FIRST_DATA)], vendor_id="v")
    # 03/02 is ambiguous: the vendor's habit (day first) settles it
    proposed = propose(profile, receipt("CS00012999", "03/02/2017", "12.50", "20.00"))
    values = {name: p.value for name, p in proposed.items()}
    assert values == {
        "vendor_name": "TEO HENG STATIONERY & BOOKS",
        "currency": "MYR",
        "invoice_number": "CS00012999",
        "invoice_date": "2017-02-03",
        "total_amount": "12.50",
    }
    assert proposed["total_amount"].support == 1 and proposed["total_amount"].label == "total rounded"


def test_two_readings_under_the_vendors_label_propose_nothing():
    profile = build("p", [learn("inv-1", FIRST, FIRST_DATA)])
    page = receipt("CS1", "05/01/2017", "39.00", "50.00") + "\nTOTAL ROUNDED: 41.00"
    assert "total_amount" not in propose(profile, page)


def test_a_page_matches_by_identifiers_not_by_a_phone_alone():
    profile = build("p", [learn("inv-1", FIRST, FIRST_DATA)], vendor_id="v")
    book = ProfileBook((profile,))
    match = book.match(identifiers(receipt("CS2", "06/01/2017", "5.00", "5.00")))
    assert match is not None and match.profile.profile_id == "p" and match.weight >= 2
    assert book.match(frozenset({"phone:355221234"})) is None
    assert book.match(frozenset(), vendor_id="v").profile.profile_id == "p"  # the upload's vendorId
    assert ProfileBook().match(identifiers(FIRST)) is None


def test_an_identifier_two_profiles_hold_names_nobody():
    ours = "vat:DE811907980"  # the tenant's own VAT id, printed in every supplier's bill-to block
    a = build("a", [learn("1", FIRST + "\nBill to: DE811907980", FIRST_DATA)])
    other_text = "Other Shop Sdn Bhd\n(7654321-A)\nBill to: DE811907980\nTOTAL 5.00"
    b = build("b", [learn("2", other_text, {"vendor_name": "Other Shop Sdn Bhd", "total_amount": 5})])
    book = ProfileBook((a, b))
    assert ours in a.identifiers and ours not in book.index
    assert book.match(frozenset({ours})) is None
    assert book.match(identifiers(other_text)).profile.profile_id == "b"


def test_a_profile_matches_a_page_only_where_its_vendor_name_is_printed():
    # the buyer's tax number is on every supplier's invoice: before a second vendor learns it,
    # it must not hand vendor B's page to vendor A's profile
    buyer = "Bill to: Our Company GmbH, USt-IdNr. DE811907980"
    a = build("a", [learn("1", FIRST + "\n" + buyer, FIRST_DATA)])
    b_page = "Other Shop Sdn Bhd\n" + buyer + "\nTOTAL 5.00"
    book = ProfileBook((a,))
    assert book.match(identifiers(b_page)) is not None  # identifiers alone: the old mistake
    assert book.match(identifiers(b_page), text=b_page) is None
    assert book.match(identifiers(FIRST), text=FIRST).profile.profile_id == "a"
    # OCR's misreadings and a name wrapped over two lines still count as printed
    assert name_printed("TEO HENG STATIONERY & BOOKS", "TE0 HENG STATI0NERY &\nBOOKS (1234567-X)")
    assert name_printed("บริษัท มิ่งขวัญ จำกัด", "บร ิ ษ ั ท ม ิ่ งขว ั ญ จําก ั ด")  # split marks, NFKC
    assert not name_printed("TEO HENG STATIONERY & BOOKS", "TEO HENG\nsomething else entirely here")
    assert name_printed(None, "anything")  # a profile without a name cannot be checked


def test_an_ocr_misread_id_is_read_back_into_the_vendors_shape():
    assert in_shape("0R18-26792", {"AA99-99999": 2}) == "OR18-26792"
    assert in_shape("OR18-26792", {"AA99-99999": 2}) == "OR18-26792"
    assert in_shape("CS-1", {"AA99-99999": 2}) is None and in_shape("x1", {}) == "x1"
    data = {**FIRST_DATA, "invoice_number": "OR18-26792"}
    profile = build("p", [learn("1", receipt("OR18-26792", "05/01/2017", "39.00", "50.00"), data)])
    page = receipt("0R18-30001", "06/01/2017", "12.00", "20.00")  # OCR read the O as a zero
    assert propose(profile, page)["invoice_number"].value == "OR18-30001"


def number_lesson(approved: str, printed: str, shape: str) -> Lesson:
    """The lesson of a receipt printing ``printed`` where the clerk approved ``approved``; it
    learnt the number under its label, in ``shape``, and not as a miss there."""
    lesson = learn("1", receipt(printed, "05/01/2017", "39.00", "50.00"), {**FIRST_DATA, "invoice_number": approved})
    assert lesson.labels["invoice_number"] == ("invoice no",) and lesson.shapes["invoice_number"] == shape
    assert "invoice no" not in lesson.misses.get("invoice_number", ())
    return lesson


def test_an_id_ocr_misread_on_an_approved_scan_still_teaches_its_label_and_shape():
    lesson = number_lesson("OR18-26792", "0R18-26792", "AA99-99999")
    page = receipt("0R18-30001", "06/01/2017", "12.00", "20.00")
    assert propose(build("p", [lesson]), page)["invoice_number"].value == "OR18-30001"


def test_a_label_ocr_misread_is_read_as_the_habit_it_misspells():
    # a thermal receipt's OCR (SROIE, a pharmacy chain): "IUIAL (GSI INUL)" for "TOTAL (GST INCL)"
    lesson = learn("1", receipt("CS1", "05/01/2017", "39.00", "50.00"), FIRST_DATA)
    page = receipt("CS2", "06/01/2017", "12.00", "20.00").replace("TOTAL ROUNDED", "IUIAL ROUNDED")
    assert skeleton("iuial rounded") == skeleton("total rounded")
    assert propose(build("p", [lesson]), page)["total_amount"] == Proposal("12.00", 1, "total rounded")
    assert skeleton("cash") != skeleton("total rounded")


def test_an_amount_in_chinese_capital_numerals_is_no_word_of_the_label():
    # a fapiao prints its total twice, in words and in figures; the words change every invoice
    line = "价税合计(大写) ⊗贰拾叁万玖仟捌佰肆拾捌圆壹角陆分 (小写) ¥239,848.16"
    assert label_key([line], 0, line.index("¥")) == "价税合计 大写 小写"
    other = "价税合计(大写) ⊗壹佰圆整 (小写) ¥100.00"
    assert label_key([other], 0, other.index("¥")) == "价税合计 大写 小写"


def test_a_number_printed_in_parts_is_learnt_and_read_whole():
    # a hardware shop's receipts (SROIE): "Invoice No. : CR 1806/0729"; the approved number is
    # the whole of it, though the page's tokens are "CR" and "1806/0729"
    lesson = number_lesson("CR 1803/0064", "CR 1803/0064", "AA 9999/9999")
    page = receipt("CR 1806/0729", "06/01/2017", "12.00", "20.00")
    assert propose(build("p", [lesson]), page)["invoice_number"] == Proposal("CR 1806/0729", 1, "invoice no")
    # its parts set apart by more than spaces are no run: the number is not read there
    assert "invoice_number" not in propose(build("p", [lesson]), page.replace("CR 1806", "CR: 1806"))


def test_a_number_the_profile_reads_is_in_the_promise_without_an_invoice_number_label():
    bare = Candidate("invoice_number", "0021367", {"n_ids": 0})
    assert scorable("invoice_number", [bare]) == []
    learned = Candidate("invoice_number", "0021367", {"n_ids": 0}, sources={"profile"})
    assert scorable("invoice_number", [learned, bare]) == [learned, bare]


def test_a_new_iban_for_a_known_vendor_is_a_reason_to_look():
    book = ProfileBook((build("p", [learn("inv-1", FIRST, FIRST_DATA)], vendor_id="v"),))
    page = receipt("CS3", "07/01/2017", "9.90", "10.00", iban=OTHER_IBAN)
    match = book.match(identifiers(page))
    assert match is not None and match.contradicts == (f"iban:{OTHER_IBAN}",)
    (reason,) = profile_reasons(match)
    assert OTHER_IBAN in reason and IBAN in reason and "bank details" in reason
    assert profile_reasons(book.match(identifiers(FIRST))) == [] and profile_reasons(None) == []


def test_a_vendor_that_numbers_its_invoices_is_not_completed_without_a_number():
    profile = build("p", [learn(f"inv-{i}", FIRST, FIRST_DATA) for i in range(3)])
    match = Match(profile, ("reg:1",), 1)
    assert profile.filled["invoice_number"] == 3
    (reason,) = profile_reasons(match, {"invoice_number": None, "total_amount": 39})
    assert reason.startswith("invoice_number not found") and "approved invoices print one" in reason
    assert profile_reasons(match, {"invoice_number": "CS00012345"}) == []
    unnumbered = build("q", [learn("inv-9", FIRST, {**FIRST_DATA, "invoice_number": None})])
    assert profile_reasons(Match(unnumbered, ("reg:1",), 1), {"invoice_number": None}) == []


def test_a_label_that_printed_the_total_once_by_chance_is_no_habit():
    # exact change once: "GIVEN 20.00" is the total on the first receipt, the cash on the others
    given = receipt("CS1", "05/01/2017", "20.00", "20.00").replace("CASH", "GIVEN")
    first = learn("inv-1", given, {**FIRST_DATA, "total_amount": 20.0})
    assert "given" in first.labels["total_amount"] and "pencil" in first.misses["total_amount"]
    later = [
        learn(
            f"inv-{n}",
            receipt(f"CS{n}", "06/01/2017", f"{n}.40", "50.00").replace("CASH", "GIVEN"),
            {**FIRST_DATA, "total_amount": n + 0.4},
        )
        for n in (2, 3)
    ]
    assert "given" in later[0].misses["total_amount"] and "given" not in later[0].labels["total_amount"]
    profile = build("p", [first, *later])
    assert "given" not in profile.habits["total_amount"]  # printed it 1 time, another amount 2 times
    assert profile.habits["total_amount"]["total rounded"] == 3
    page = receipt("CS9", "07/01/2017", "12.30", "20.00").replace("CASH", "GIVEN")
    assert propose(profile, page)["total_amount"] == Proposal("12.30", 3, "total rounded")


def test_where_two_habits_read_two_values_the_stronger_wins_by_its_margin():
    due = "Amount due: 9.00"
    lessons = [learn(f"inv-{n}", FIRST + "\n" + due.replace("9.00", "39.00"), FIRST_DATA) for n in range(3)]
    lessons.append(learn("inv-3", FIRST + "\n" + "Amount due: 19.00", FIRST_DATA))  # paid in part
    profile = build("p", lessons)
    assert profile.habits["total_amount"] == {"total rounded": 4, "amount due": 2}
    page = receipt("CS9", "07/01/2017", "12.30", "20.00") + "\nAmount due: 2.30"
    assert propose(profile, page)["total_amount"] == Proposal("12.30", 2, "total rounded")
    assert Lesson.from_json(lessons[3].to_json()) == lessons[3]
    assert Lesson.from_json({"invoice_id": "old"}).misses == {}  # lessons stored before misses


def test_forgetting_a_lesson_removes_what_it_taught():
    second = receipt("CS00012999", "03/02/2017", "12.50", "20.00", iban=OTHER_IBAN)
    lessons = [learn("inv-1", FIRST, FIRST_DATA), learn("inv-2", second, {**FIRST_DATA, "total_amount": 12.5})]
    both = build("p", lessons)
    assert both.identifiers[f"iban:{OTHER_IBAN}"] == 1 and both.approvals == 2
    first_only = build("p", lessons[:1])
    assert f"iban:{OTHER_IBAN}" not in first_only.identifiers and first_only.invoices == ("inv-1",)


def test_an_admins_edits_hold_over_what_later_approvals_teach():
    second = receipt("CS00012999", "03/02/2017", "12.50", "20.00", iban=OTHER_IBAN)
    lessons = [learn("inv-1", FIRST, FIRST_DATA), learn("inv-2", second, {**FIRST_DATA, "total_amount": 12.5})]
    edits = Edits(
        name="Teo Heng Stationery & Books Sdn Bhd",
        currency="SGD",
        identifiers=(f"iban:{OTHER_IBAN}",),
        labels=(("total_amount", "total rounded"),),
    )
    profile = build("p", lessons, edits=edits)
    assert f"iban:{OTHER_IBAN}" not in profile.identifiers and f"iban:{IBAN}" in profile.identifiers
    assert "total_amount" not in profile.habits and profile.approvals == 2
    proposed = propose(profile, receipt("CS00013000", "04/02/2017", "7.00", "10.00"))
    assert proposed["vendor_name"].value == "Teo Heng Stationery & Books Sdn Bhd"
    assert proposed["vendor_name"].support == 2 and proposed["currency"].value == "SGD"
    assert "total_amount" not in proposed  # struck: the profile no longer reads it there
    assert Edits.from_json(profile.edits) == edits and Edits.from_json(None) == Edits()
    assert build("p", []).edits == {} and build("p", [], edits=Edits(name="X")).values["vendor_name"] == {"X": 1}
    # the page still prints the learnt name: the pinned one does not stop the match
    assert profile.printed_names == ("Teo Heng Stationery & Books Sdn Bhd", "TEO HENG STATIONERY & BOOKS")
    page = receipt("CS1", "05/01/2017", "39.00", "50.00")
    assert ProfileBook((profile,)).match(identifiers(page), text=page) is not None


def test_the_profile_step_matches_and_proposes():
    from pipeline.document import DocumentText, Line, Page

    profile = build("p", [learn("inv-1", FIRST, FIRST_DATA)], vendor_id="v")
    page_text = receipt("CS7", "08/01/2017", "7.00", "10.00")
    lines = tuple(
        Line(text, (0, 20.0 * i, 300, 20.0 * i + 12), confidence=0.99) for i, text in enumerate(page_text.splitlines())
    )
    doc = DocumentText([Page(1, 300, 600, lines, source="ocr")])
    work = Work(JobContext("x", "image/png", profiles=ProfileBook((profile,))), doc=doc)
    profile_step(work, None)
    assert work.profile.profile.profile_id == "p" and work.vendor_id == "v"
    assert work.profile_proposals["total_amount"].value == "7.00"
