"""Candidates of the key fields and their features (pipeline.decision.candidates)."""

from __future__ import annotations

import math
from decimal import Decimal

from pipeline.decision.candidates import FEATURES, candidates
from pipeline.rules import extract_rules
from pipeline.values import normalise
from tests.pipeline.rules.test_rules import ocr_page, text_page

CASH_RECEIPT = ocr_page(
    "40: 100 KEDAI RUNCIT MAJU SDN BHD | size 20",
    "80: 100 NO 12, JALAN BESAR, 81100 JOHOR",
    "120: 50 Date: 25/12/2018 | 300 10:42",
    "200: 50 MILO 1KG | 400 21.50",
    "220: 50 SUGAR 2KG | 400 17.50",
    "300: 50 TOTAL | 400 39.00",
    "320: 50 CASH | 400 50.00",
    "340: 50 CHANGE | 400 11.00",
)


def by_value(cands, value):
    return next(c for c in cands if c.value == value)


def page_candidates(doc, field: str):
    """The candidates of ``field`` on ``doc``, the rules' proposals in, no line items, the model
    not run."""
    rules = extract_rules(doc)
    return candidates(doc, [], {"rules": normalise.fields(rules.fields)}, model_ran=False)[field]


def vendor_names(*lines: str):
    """The vendor-name candidates of a text-layer page of ``lines`` (``text_page``'s notation)."""
    return page_candidates(text_page(*lines), "vendor_name")


def test_every_amount_is_a_total_candidate_with_its_line_s_words():
    rules = extract_rules(CASH_RECEIPT)
    rows = [{"line_total": Decimal("21.50")}, {"line_total": Decimal("17.50")}]
    found = candidates(CASH_RECEIPT, rows, {"rules": normalise.fields(rules.fields)}, model_ran=False)
    totals = found["total_amount"]
    assert {c.value for c in totals} >= {Decimal("39.00"), Decimal("50.00"), Decimal("11.00"), Decimal("21.50")}
    total, cash = by_value(totals, Decimal("39.00")), by_value(totals, Decimal("50.00"))
    assert total.features["lab_total"] > 0 and total.features["kw_cash"] == 0
    assert cash.features["kw_cash"] == 1 and cash.features["above_labelled_total"] == 1
    assert total.features["eq_cash_change"] == 1  # 50.00 - 11.00
    assert total.features["eq_lines_sum"] == 1  # the rows' 21.50 + 17.50
    assert total.evidence["text"] == "TOTAL 39.00" and total.evidence["page"] == 1
    assert "rules" in total.sources and total.features["by_rules"] == 1
    assert total.features["ocr"] == 1 and 0 < total.features["rel_y"] < 1


def test_dates_names_and_vectors():
    rules = extract_rules(CASH_RECEIPT)
    found = candidates(CASH_RECEIPT, rules.line_items, {"rules": normalise.fields(rules.fields)}, model_ran=False)
    date = by_value(found["invoice_date"], "2018-12-25")
    assert date.features["has_time"] == 1 and date.features["lab_invoice_date"] > 0
    names = [c.value for c in found["vendor_name"]]
    assert names[0] == "KEDAI RUNCIT MAJU SDN BHD"  # the rules' best first
    legal = by_value(found["vendor_name"], "KEDAI RUNCIT MAJU SDN BHD")
    assert legal.features["legal"] == 1 and legal.features["line_index"] == 0
    for name, cands in found.items():
        for cand in cands:
            vector = cand.vector()
            assert len(vector) == len(FEATURES[name])
            assert not any(key.startswith("_") for key in cand.features)


def test_the_model_s_proposal_joins_or_marks_a_candidate():
    doc = text_page(
        "40: 50 Acme Tools GmbH | size 16",
        "80: 50 Invoice No: | 200 INV-7",
        "100: 50 Invoice Date: | 200 2024-03-05",
        "300: 300 Total EUR | 480 119.00",
    )
    rules = extract_rules(doc)
    model = {"total_amount": Decimal("119.00"), "invoice_number": "INV-7", "vendor_name": "Acme Tools"}
    found = candidates(doc, [], {"rules": normalise.fields(rules.fields), "model": model}, model_ran=True)
    total = by_value(found["total_amount"], Decimal("119.00"))
    assert total.sources == {"rules", "model"} and total.features["n_proposers"] == 2
    assert total.features["model_ran"] == 1
    number = by_value(found["invoice_number"], "INV-7")
    assert number.sources == {"rules", "model"}
    assert "EUR" in {c.value for c in found["currency"]}
    # the model's shorter name is another candidate (a fuzzy match would have merged it)
    assert any("model" in c.sources for c in found["vendor_name"])


def test_a_page_without_amounts_or_dates_gives_empty_lists():
    doc = text_page("40: 50 Hello world")
    found = candidates(doc, [], {}, model_ran=False)
    assert found["total_amount"] == [] and found["invoice_date"] == [] and found["invoice_number"] == []
    line = by_value(found["vendor_name"], "Hello world")
    assert line.features["kind_line"] == 1
    assert math.isnan(line.vector()[FEATURES["vendor_name"].index("ends_open")]) is False


def test_a_dutch_invoiced_to_block_marks_its_names_as_labels_of_the_customer():
    # synthetic Dutch vendor (learning stream): the text layer interleaves "Gefactureerd aan:"
    # with the customer's name; the vendor's legal name is printed in its own address block
    found = vendor_names(
        "40: 40 ROUKES | 300 Gefactureerd GlaxoSmithKline aan:",
        "60: 300 Guusjesteeg 1",
        "80: 40 Zwijsen & die Witte",
        "100: 40 Yinthesingel 461",
        "400: 300 Totaal inclusief btw | 480 €1.980,77",
    )
    billed = [c for c in found if "Gefactureerd" in c.value]
    assert billed and all(c.features["label_words"] == 1 for c in billed)


def test_dutch_invoiced_to_labels_are_in_the_lexicon():
    from pipeline.rules.labels import LABEL_RES

    customer = next(rx for kind, _, rx in LABEL_RES if kind == "customer")
    assert all(customer.search(label) for label in ("Gefactureerd aan:", "Factuur aan", "GEFACTUREERD AAN"))


def test_the_profile_reads_an_ocr_misread_number_in_the_vendor_s_pattern_on_its_printed_candidate():
    # synthetic Malaysian vendor (learning stream, scans): OCR reads "OR18-47855" as "OR18-4785S"
    # (its "0R18-47855" pipeline.rules.ocr repairs on any page, profile or not)
    doc = ocr_page(
        "40: 100 KEDAI SOON KEE RESTAURANT SDN BHD | size 20",
        "80: 50 Invoice No: OR18-4785S",
        "120: 50 Date: 25/12/2018",
        "300: 50 TOTAL RM | 400 39.00",
    )
    rules = extract_rules(doc)
    proposals = {"rules": normalise.fields(rules.fields), "profile": {"invoice_number": "OR18-47855"}}
    found = candidates(doc, [], proposals, model_ran=False, profile_support={"invoice_number": 2})
    numbers = {c.value: c for c in found["invoice_number"]}
    assert "OR18-4785S" not in numbers  # one candidate, in the vendor's pattern
    number = numbers["OR18-47855"]
    assert "profile" in number.sources and "OR18-4785S" in number.evidence["text"]
    assert number.features["profile_support"] == 2 and number.features["lab_id_left"] > 0


def test_cash_given_is_marked_in_german_spanish_thai_and_chinese():
    # the learning stream's synthetic receipts: "the next best, 100.00, on 'Gegeben 100,00'"
    for given, change in (
        ("Gegeben", "Rückgeld"),
        ("Entregado", "Cambio"),
        ("เงินสด", "เงินทอน"),
        ("现金", "找零"),
        # every other change word the generator prints (training/synth_locale.py)
        ("Bar", "Zurück"),
        ("Contant", "Terug"),
        ("Efectivo", "Devolución"),
        ("Espèces", "Monnaie rendue"),
        ("Pagamento contante", "Resto"),
        ("实收", "找赎"),
        ("รับเงิน", "ทอน"),
    ):
        doc = ocr_page(
            "40: 100 Gude Klapp e.G. | size 20",
            "120: 50 Gesamtsumme | 400 16,19",
            f"140: 50 {given} | 400 100,00",
            f"160: 50 {change} | 400 83,81",
        )
        totals = candidates(doc, [], {}, model_ran=False)["total_amount"]
        cash, total = by_value(totals, Decimal("100.00")), by_value(totals, Decimal("16.19"))
        assert cash.features["kw_cash"] == 1 and total.features["eq_cash_change"] == 1, given


def test_a_total_after_a_one_cent_rounding_line_is_the_rounded_one():
    # sroie-style: the total with tax, a rounding adjustment of one cent, the amount due
    doc = ocr_page(
        "40: 100 BANH MI CAFE SDN BHD | size 20",
        "300: 50 Total (Inclusive of GST): | 400 23.26",
        "320: 50 Rounding Adj: | 400 -0.01",
        "340: 50 TOTAL: | 400 23.25",
    )
    totals = candidates(doc, [], {}, model_ran=False)["total_amount"]
    rounded, before = by_value(totals, Decimal("23.25")), by_value(totals, Decimal("23.26"))
    assert rounded.features["rounded_of_labelled"] == 1 and before.features["has_rounded_twin"] == 1
    assert before.features["rounded_of_labelled"] == 0 and rounded.features["has_rounded_twin"] == 0


def test_a_proposed_amount_marks_the_candidate_of_that_very_value_not_one_a_cent_away():
    doc = ocr_page(
        "40: 100 BANH MI CAFE SDN BHD | size 20",
        "360: 50 Total (Inclusive of GST): | 400 23.26",
        "380: 50 Rounding Adj: | 400 -0.01",
        "400: 50 TOTAL: | 400 23.25",
    )
    proposals = {"rules": {"total_amount": Decimal("23.25")}}
    totals = candidates(doc, [], proposals, model_ran=False)["total_amount"]
    assert by_value(totals, Decimal("23.25")).features["by_rules"] == 1
    assert by_value(totals, Decimal("23.26")).features["by_rules"] == 0


def test_a_name_row_s_label_is_no_part_of_its_candidates():
    # FeRD's invoice prints: "Name: Lieferant GmbH" under the seller heading; with its label the
    # line was another answer than the rules' "Lieferant GmbH" and split the name's share
    found = vendor_names(
        "40: 40 Verkäufer",
        "60: 40 Name: Lieferant GmbH",
        "80: 40 Lieferantenstraße 20",
        "100: 40 80333 München",
        "400: 300 Gesamtbetrag | 480 529,87",
    )
    names = [c.value for c in found]
    assert "Lieferant GmbH" in names
    assert not any(str(name).casefold().startswith("name:") for name in names)
    assert names.count("Lieferant GmbH") == 1


def test_a_copyright_notice_names_no_vendor():
    # FeRD's ZUGFeRD 2.2 samples print "Beispiel-Rechnungen für ZUGFeRD 2.2, (c) FeRD 2022" at the
    # top of the page: the rules took it for the physiotherapist's name on a scan, and elsewhere
    # it stood second to "Lieferant GmbH" and held the scan at 84%
    rows = (
        "20: 40 Beispiel-Rechnungen für ZUGFeRD 2.2, (c) FeRD 2022",
        "60: 40 Handelsrechnung (380) Nr. R18-31 vom 03.10.2018",
        "100: 40 Verkäufer",
        "120: 40 Name: Lieferant GmbH",
        "140: 40 Lieferantenstraße 20",
        "400: 300 Gesamtbetrag | 480 529,87",
    )
    names = [str(c.value) for c in vendor_names(*rows)]
    assert "Lieferant GmbH" in names
    assert not any("Beispiel" in name or "FeRD" in name for name in names), names
    assert extract_rules(text_page(*rows[:2], "400: 300 Gesamtbetrag | 480 529,87")).fields.get("vendor_name") is None


def test_an_id_shaped_as_a_tax_id_or_iban_is_marked():
    # a Swiss UID printed beside the invoice number was taken for it (a synthetic scan, 0.91 sure)
    doc = text_page(
        "40: 40 Muster AG",
        "60: 40 UID CHE-339.363.486",
        "80: 40 IBAN DE89370400440532013000",
        "120: 40 Rechnung Nr. RE20-41506",
        "400: 300 Gesamtbetrag | 480 529,87",
    )
    tax = {str(c.value): c.features["tax_id"] for c in page_candidates(doc, "invoice_number")}
    assert tax["RE20-41506"] == 0
    assert tax["CHE-339.363.486"] == 1 and tax["DE89370400440532013000"] == 1


def test_an_amount_before_tax_and_cash_split_from_its_words_are_marked():
    # OCR of a two-column block: the cash and change amounts stand on the total's line, their
    # words below ("Espèces", "Rendu"); 300.00 - 16.85 is the total 283.15 all the same
    doc = ocr_page(
        "40: 100 Gloor GmbH | size 20",
        "200: 50 Arrondi Total TTC | 300 283.15 | 380 CHF 300.00 | 460 -0.02",
        "220: 50 Espèces | 300 16.85",
        "240: 50 Rendu",
        "300: 50 Amt Paid excl. GST | 300 73.87",
    )
    totals = page_candidates(doc, "total_amount")
    total, cash, net = (by_value(totals, Decimal(v)) for v in ("283.15", "300.00", "73.87"))
    assert total.features["tender_split"] == 1 and cash.features["tender_split"] == 0
    assert net.features["kw_excl"] == 1 and total.features["kw_excl"] == 0


def test_a_name_right_of_a_customer_label_on_its_line_is_marked_as_after_it():
    """Two columns on one line: the vendor left, "Facturar a: <customer>" right."""
    found = vendor_names(
        "40: 40 Marcos Bermudez Portero S.Com. | 300 Facturar a: | 360 Alvarado y Bolaños S.A.",
        "60: 40 Camino de Zacarías Jimenez 43 | 300 Plaza de Ruperto Ropero 337",
        "400: 300 Total | 480 1.724,98",
    )
    assert by_value(found, "Alvarado y Bolaños S.A.").features["after_customer_label"] == 1
    assert by_value(found, "Marcos Bermudez Portero S.Com.").features["after_customer_label"] == 0


def test_the_tail_of_a_name_wrapped_or_set_apart_is_marked_as_a_tail():
    wrapped = vendor_names(
        "40: 40 Supermercados Castrillo &",
        "52: 40 Asociados S.Com.",
        "80: 40 Alameda de Hermenegildo Aranda 69",
    )
    assert by_value(wrapped, "Asociados S.Com.").features["tail"] == 1
    assert by_value(wrapped, "Supermercados Castrillo & Asociados S.Com.").features["tail"] == 0
    apart = vendor_names("53: 49 DE SMET, | 95 DE MUYNCK EN YILMAZ BV", "64: 48 Annahof 229")
    assert by_value(apart, "DE MUYNCK EN YILMAZ BV").features["tail"] == 1
    assert by_value(apart, "DE SMET, DE MUYNCK EN YILMAZ BV").features["tail"] == 0


def test_a_chinese_name_with_its_legal_form_glued_on_is_a_candidate_of_its_own():
    """The legal form "有限公司" ends a name inside one word: the name is that word, without the slogan and the
    fapiao's row label before it."""
    found = vendor_names(
        "40: 40 诚信经营 品质保证 巨奥信息有限公司",
        "300: 43 销 名 称: 飞利信网络有限公司",
        "400: 300 合计 | 480 ¥120.00",
    )
    assert by_value(found, "巨奥信息有限公司").features["legal"] == 1
    assert by_value(found, "诚信经营 品质保证 巨奥信息有限公司").features["slogan"] == 1
    assert by_value(found, "飞利信网络有限公司").features["kind_legal"] == 1


def test_a_name_its_company_number_follows_is_marked():
    """A receipt prints its seller's legal name with the company number after it, on its line or
    alone under it (train/sroie 299: "1241045-D"); the brand above it has none."""
    found = vendor_names(
        "40: 40 FAMILYMART",
        "60: 40 MAXINCOME RESOURCES SDN BHD | 300 (383322-D)",
        "80: 40 KEDAI MAJU SDN BHD",
        "92: 40 1241045-D",
        "120: 40 NO 12, JALAN BESAR",
        "140: 40 PERNIAGAAN SRI JAYA | 300 Co. Reg. No: 002345678-K",
    )
    assert by_value(found, "PERNIAGAAN SRI JAYA").features["company_no"] == 1  # "Co. Reg. No" and the digits
    assert by_value(found, "MAXINCOME RESOURCES SDN BHD").features["company_no"] == 1
    assert by_value(found, "KEDAI MAJU SDN BHD").features["company_no"] == 1
    assert by_value(found, "FAMILYMART").features["company_no"] == 0
