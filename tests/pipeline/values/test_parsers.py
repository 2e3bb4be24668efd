"""Unit tests of the library-backed value parsers: price-parser amounts, dateparser month names,
python-stdnum tax ids and IBANs, and how the rules use them to choose among candidates."""

import re
from decimal import Decimal

import pytest

from pipeline.rules import extract_rules
from pipeline.rules.country import country_votes
from pipeline.rules.identifiers import iban_country, is_valid_tax_id
from pipeline.values.parsers import find_amounts, find_dates, parse_amount, parse_amount_decimal, parse_date
from tests.pipeline.rules.test_rules import text_page


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("1,234.56", Decimal("1234.56")),
        ("1.234,56", Decimal("1234.56")),
        ("1 234,56", Decimal("1234.56")),
        ("1'234.50", Decimal("1234.5")),
        ("TOTAL 4’199.21 CHF", Decimal("4199.21")),  # typeset apostrophe, as Swiss invoices print it
        ("1.234.567,89", Decimal("1234567.89")),
        ("1,234,567", 1234567),
        ("1.000", Decimal("1.0")),
        ("1,000", 1000),
        ("0,500", Decimal("0.5")),
        ("(12.00)", Decimal("-12.0")),
        ("-9,32", Decimal("-9.32")),
        ("EUR 34,73", Decimal("34.73")),
        ("฿1,070.00", 1070),
    ],
)
def test_amount_in_the_document_convention(printed, value):
    assert parse_amount(printed) == value


def test_a_swiss_amount_s_tail_is_no_amount_of_its_own():
    assert [a.value for a in find_amounts("Net total 3’884.56 VAT 8.1% 314.65")] == [
        Decimal("3884.56"),
        Decimal("314.65"),
    ]


def test_a_currency_code_glued_to_an_amount_is_its_own():
    # an OCR'd Swiss receipt: the labels, then their amounts, the code glued to the total
    found = find_amounts("Total TTC Espèces Rendu 82.20CHF 85.00 2.80")
    assert [(a.value, a.currency) for a in found] == [
        (Decimal("82.20"), True),
        (Decimal("85.00"), False),
        (Decimal("2.80"), False),
    ]
    # after a space the code may be the next amount's, as before
    found = find_amounts("Total 82.20 CHF 85.00")
    assert [(a.value, a.currency) for a in found] == [(Decimal("82.20"), False), (Decimal("85.00"), True)]


def test_a_product_code_glued_to_letters_is_no_date_but_a_glued_label_s_date_is():
    assert find_dates("HC03-7 - 15", True, loose=True) == []  # a receipt's article code
    assert [m.iso for m in find_dates("DATE12/01/2019", True)] == ["2019-01-12"]
    assert [m.iso for m in find_dates("12-01-19 21:13", True)] == ["2019-01-12"]


def test_percentages_dates_and_times_are_not_amounts():
    assert [a.value for a in find_amounts("VAT 19% on 12/03/2021 at 18:24 total 5.00")] == [Decimal("5.0")]


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        ("1,234.50", "1234.50"),
        ("1.234,50", "1234.50"),
        ("1 234,5", "1234.5"),
        ("1234", "1234"),
        ("1.234", "1234"),
        ("1,234,567.8", "1234567.8"),
        ("-3,00", "-3.00"),
        ("EUR", None),
        ("12 EUR", None),
        ("", None),
        ("1.2.3", None),
    ],
)
def test_parse_amount_decimal(printed, value):
    assert parse_amount_decimal(printed) == (Decimal(value) if value else None)


@pytest.mark.parametrize(
    ("printed", "iso"),
    [
        ("3. März 2021", "2021-03-03"),
        ("5 maerz 2020", "2020-03-05"),
        ("1er janvier 2024", "2024-01-01"),
        ("7 de enero de 2024", "2024-01-07"),
        ("12 Ogos 23", "2023-08-12"),
        ("Aug 3, 2014", "2014-08-03"),
        ("12 มกราคม 2567", "2024-01-12"),
        ("1 มี.ค. 2566", "2023-03-01"),
        ("31 juli 2022", "2022-07-31"),
        ("2 Juillet 2015", "2015-07-02"),
    ],
)
def test_month_names_read_by_dateparser(printed, iso):
    assert parse_date(printed) == iso


def test_ocr_date_with_a_doubled_separator_is_read_loosely():
    # PP-OCR read "Date :26-05-2018 15:16:13" on SROIE receipt 547 as below
    assert [d.iso for d in find_dates("Date :26-05--201815:16:13", True, loose=True)] == ["2018-05-26"]
    assert find_dates("Date :26-05--2018", True) == []


def test_dotted_dates_are_day_first_and_not_ambiguous():
    (dotted,) = find_dates("vom 05.03.2018", True)
    (slashed,) = find_dates("on 05/03/2018", True)
    assert (dotted.iso, dotted.ambiguous) == ("2018-03-05", False)
    assert (slashed.iso, slashed.ambiguous) == ("2018-03-05", True)


def test_numeric_thai_buddhist_era_dates_are_gregorian():
    # a Thai receipt's "issued" line (synthetic training vendor 09000): 2562 BE is 2019
    assert parse_date("วันที่ออก: 01/05/2562 15:03", True) == "2019-05-01"
    assert parse_date("2566-03-01") == "2023-03-01"
    assert find_dates("12/05/2534", True)[0].iso == "1991-05-12"


@pytest.mark.parametrize(
    ("printed", "iso"),
    [
        ("1 กุมภาพันธ 2561", "2018-02-01"),  # THANTHAKHAT dropped
        ("9 พฤศจิกายน 2559", "2016-11-09"),
        ("11 พ.ย. 2560", "2017-11-11"),
        ("5 มิถุนายน 2565", "2022-06-05"),
        ("3 ก\u0e38มภาพ\u0e31นธ\u0e4c 2561", "2018-02-03"),
    ],
)
def test_thai_months_are_read_as_ocr_spells_them(printed, iso):
    """Tesseract drops Thai marks above the letters on the synthetic Thai scans; the month is
    told by its letters."""
    assert parse_date(printed) == iso


def test_impossible_and_out_of_range_dates_are_not_dates():
    assert find_dates("31 Feb 2023") == []
    assert find_dates("12 May 1850") == []


@pytest.mark.parametrize(
    "value",
    [
        "NL853746333B01",
        "DE 136 695 976",
        "FR40303265045",
        "ATU13585627",
        "GB 980 7806 84",
        "BE0403019261",
        "CHE-116.281.710 MWST",
        "CHE-116.281.710",
        "27AAPFU0939F1ZV",
    ],
)
def test_valid_tax_ids(value):
    assert is_valid_tax_id(value)


@pytest.mark.parametrize("value", ["DE 123 456 789", "NL853746334B01", "XX123456789", "123456789", "", "CHE"])
def test_invalid_tax_ids(value):
    assert not is_valid_tax_id(value)


def test_iban_country_needs_check_digits():
    assert iban_country("FR76 3000 6000 0112 3456 7890 189") == "FR"
    assert iban_country("FR76 3000 6000 0112 3456 7890 188") is None
    assert iban_country("not an iban") is None


def test_a_damaged_iban_counts_less_than_a_valid_one():
    assert country_votes("IBAN: FR76 3000 6000 0112 3456 7890 189 BIC AGRIFRPP")["FR"] == 5
    assert country_votes("IBAN: FR76 3000 6000 0112 3456 7890 188 BIC AGRIFRPP")["FR"] == 4


@pytest.mark.parametrize(
    ("doc", "tax_id"),
    [
        pytest.param(
            text_page(
                "40: 40 Muster Handel GmbH | size 16",
                "80: 40 Rechnungsnummer: R-2024-17",
                "95: 40 Ref DE 123 456 789",
                "110: 40 Sitz Berlin DE 136 695 976",
                "400: 300 Gesamtbetrag | 480 120,00 EUR",
            ),
            "DE 136 695 976",
            id="unlabelled_tax_id_with_valid_check_digits_wins",
        ),
        pytest.param(
            text_page(
                "40: 40 Muster Handel GmbH | size 16",
                "80: 40 USt-IdNr.: DE 123 456 789",
                "95: 40 USt-IdNr.: DE 136 695 976",
                "400: 300 Gesamtbetrag | 480 120,00 EUR",
            ),
            "DE 136 695 976",
            id="labelled_tax_id_with_valid_check_digits_wins",
        ),
        # OCR reads "USt-Id" as "UStld" and keeps the weak "Steuer-Nr." label intact.
        pytest.param(
            text_page(
                "40: 40 Muster Hosting GmbH | size 16",
                "80: 40 UStld DE812345 673 | 300 SWIFT HELADEF1GEL",
                "95: 40 Steuer-Nr.04424160103",
                "400: 300 Gesamtbetrag | 480 120,00 EUR",
            ),
            "DE812345 673",
            id="valid_vat_id_beside_an_ocr_damaged_label_beats_a_tax_number",
        ),
        pytest.param(
            text_page(
                "40: 40 Winkel BV | size 16",
                "80: 40 BTWNL853746333B01",
                "400: 300 Totaal | 480 € 99,00",
            ),
            "NL853746333B01",
            id="vat_id_glued_to_its_label",
        ),
        pytest.param(
            text_page(
                "40: 40 Muster Handel GmbH | size 16",
                "80: 40 Ihre USt-IdNr.: DE298765435",
                "95: 40 USt-Identnr.: DE812345673",
                "400: 300 Gesamtbetrag | 480 120,00 EUR",
            ),
            "DE812345673",
            id="the_customers_vat_id_is_not_the_vendors",
        ),
    ],
)
def test_vendor_tax_id_with_valid_check_digits_wins(doc, tax_id):
    """Among the tax ids a page prints, the vendor's is the one with valid check digits, whether
    labelled, unlabelled or glued to its label; the customer's is never the vendor's."""
    assert extract_rules(doc).fields["vendor_tax_id"] == tax_id


def test_thai_variants_leave_a_mark_the_pattern_already_made_optional_greedy():
    from pipeline.values.parsers import thai_variants

    pattern = re.compile(thai_variants("เลข[ทก]ี่?"))
    assert pattern.match("เลขที่: 44230").group() == "เลขที่"
    assert pattern.match("เลขที: 44230").group() == "เลขที"  # OCR dropped the mark
