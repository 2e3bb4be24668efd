"""Unit tests of the rules extractor on small synthetic pages, plus one real text-layer PDF."""

from decimal import Decimal

import pytest

from pipeline.document import DocumentText, Line, Page, Word
from pipeline.rules import extract_rules
from pipeline.rules.labels import COMPANY_RE
from pipeline.values.parsers import detect_currency, parse_amount, parse_date
from tests.paths import SHARED
from tests.support.fields import LINE_ITEM_KEYS

AWS_PDF = SHARED / "datasets" / "invoice2data" / "AmazonWebServices.pdf"


def make_line(y: float, *cells: tuple[float, str], size: float = 10.0) -> Line:
    """A line of words; each cell is (x, text) and its words are laid out left to right."""
    words = []
    for x, text in cells:
        for token in text.split():
            width = 0.55 * size * len(token)
            words.append(Word(token, (x, y, x + width, y + size)))
            x += width + 0.3 * size
    bbox = (min(w.bbox[0] for w in words), y, max(w.bbox[2] for w in words), y + size)
    return Line(" ".join(w.text for w in words), bbox, tuple(words))


def make_doc(*lines: Line) -> DocumentText:
    return DocumentText(pages=[Page(1, 595, 842, tuple(lines), "text_layer")])


def page_line(row: str) -> Line:
    """A line written as ``"y: x text | x text ... | size n"``: its cells left to right, each at
    ``x`` (``make_line``); ``"400: 300 Total | 480 £ 120.00"`` is
    ``make_line(400, (300, "Total"), (480, "£ 120.00"))``."""
    y, _, cells = row.partition(": ")
    found, size = [], 10.0
    for cell in cells.split(" | "):
        x, _, text = cell.partition(" ")
        if x == "size":
            size = _number(text)
        else:
            found.append((_number(x), text))
    return make_line(_number(y), *found, size=size)


def _number(text: str) -> float:
    return float(text) if "." in text else int(text)


def text_page(*rows: str) -> DocumentText:
    """A text-layer page of ``page_line`` rows, top to bottom."""
    return make_doc(*map(page_line, rows))


def ocr_page(*rows: str, width: float = 600, height: float = 1200) -> DocumentText:
    """An OCR'd page (engine "fake") of ``page_line`` rows, top to bottom."""
    lines = tuple(map(page_line, rows))
    return DocumentText(pages=[Page(1, width, height, lines, "ocr")], ocr_engine="fake")


def test_parsers():
    assert parse_amount("1,234.56") == Decimal("1234.56")
    assert parse_amount("1.234,56") == Decimal("1234.56")
    assert parse_amount("1 234,56") == Decimal("1234.56")
    assert parse_amount("$4.11") == Decimal("4.11")
    assert parse_amount("RM30.90") == Decimal("30.9")
    assert parse_amount("49,99 €") == Decimal("49.99")
    assert parse_date("August 3 , 2014") == "2014-08-03"
    assert parse_date("7. Mai 2014") == "2014-05-07"
    assert parse_date("03/20/2023") == "2023-03-20"
    assert parse_date("8-9-2022") == "2022-09-08"
    assert parse_date("2018年11月18日") == "2018-11-18"
    assert detect_currency("Total RM 30.90") == "MYR"
    assert detect_currency("Total EUR 34,73") == "EUR"
    assert detect_currency("Total 100EUR") == "EUR"
    assert detect_currency("Rechnungsbetrag 10'674.06 Fr.") == "CHF"  # the Swiss franc after the amount
    # a tax id ending in a code's letters names no currency
    assert detect_currency("纳税人识别号: 91045921MARA068DKK\n合计金额 ¥694172.96") == "CNY"
    assert detect_currency("4-17-9 Shinjuku, Tokyo 182-0454\nInvoice Total ¥614,856") == "JPY"
    assert detect_currency("Grand total ₹ 319") == "INR"


def test_value_right_of_label():
    doc = text_page(
        "40: 40 ACME Widgets Ltd. | size 16",
        "80: 40 Invoice No: INV-1001",
        "95: 40 Invoice Date: 12/03/2021",
        "400: 300 Total | 480 £ 120.00",
    )
    result = extract_rules(doc)
    assert result.fields["invoice_number"] == "INV-1001"
    assert result.fields["invoice_date"] == "2021-03-12"
    assert result.fields["total_amount"] == Decimal("120.0")
    assert result.fields["currency"] == "GBP"
    assert result.fields["vendor_name"] == "ACME Widgets Ltd."
    assert result.evidence["total_amount"]["page"] == 1
    assert len(result.evidence["total_amount"]["bbox"]) == 4


@pytest.mark.skipif(not AWS_PDF.exists(), reason="shared dev datasets (../shared/datasets) are not checked out here")
def test_aws_invoice_pdf():
    from pipeline.reading.text import pdf_text

    def no_ocr():
        raise AssertionError("the AWS invoice has a text layer and must not need OCR")

    doc = pdf_text(AWS_PDF.read_bytes(), no_ocr, max_ocr_pages=3)
    fields = extract_rules(doc).fields
    assert fields["total_amount"] == Decimal("4.11")
    assert fields["invoice_number"] == "42183017"
    assert fields["invoice_date"] == "2014-08-03"


def test_credit_note_amounts_are_positive():
    doc = text_page(
        "40: 40 Moulin SARL | size 16",
        "95: 40 Avoir AV-2017-0005 | size 14",
        "200: 40 Description | 300 Quantité | 380 Prix | 480 Montant",
        "215: 40 Nougat | 300 5 | 380 4,55 € | 480 -20,48 €",
        "300: 380 Total HT | 480 -20,48 €",
        "315: 380 TVA 20% | 480 -4,10 €",
        "330: 380 Total TTC | 480 -24,58 €",
    )
    result = extract_rules(doc)
    assert result.fields["total_amount"] == Decimal("24.58")
    assert result.fields["subtotal"] == Decimal("20.48")
    assert result.line_items[0]["line_total"] == Decimal("20.48")


def test_house_number_is_no_postcode():
    from pipeline.rules.labels import POSTCODE_RE

    assert not POSTCODE_RE.search("1242 chemin de l'olive")
    assert not POSTCODE_RE.search("4557 De Silva St")
    assert POSTCODE_RE.search("84340 Malaucène") and POSTCODE_RE.search("3012 CN Rotterdam")


# --- OCR'd receipts and scans (synthetic pages with source "ocr") ---------------------------


def test_ocr_word_repairs_digits_and_dollar_sign():
    from pipeline.rules.ocr import fix_ocr_word

    assert fix_ocr_word("475OO SUBANG") == "47500 SUBANG"
    assert fix_ocr_word("RM1O.5O") == "RM10.50"
    assert fix_ocr_word("ES1OOO1L") == "ES1OOO1L"  # a product code keeps its letters
    assert fix_ocr_word("Total:S8.20") == "Total:S8.20"  # no dollar context: unchanged
    assert fix_ocr_word("Total:S8.20", dollars=True) == "Total:$8.20"
    assert fix_ocr_word("SOLD 2", dollars=True) == "SOLD 2"
    assert fix_ocr_word("300∈HT") == "300€HT"


def test_ocr_word_repairs_zeros_read_for_the_o_of_a_capitalised_word():
    from pipeline.rules.ocr import fix_ocr_word

    assert fix_ocr_word("BR00KS LTD") == "BROOKS LTD"
    # ids, codes and short words keep their zeros
    for word in ("OR18-26792", "PO0123", "A0B", "SR0", "ID:A100B", "7-ELEVEN"):
        assert fix_ocr_word(word) == word
    assert fix_ocr_word("No: 0R13-16614") == "No: OR13-16614"  # an official receipt's number
    assert fix_ocr_word("0R/2023/04/2941") == "OR/2023/04/2941"
    assert fix_ocr_word("0W40") == "0W40" and fix_ocr_word("0R12") == "0R12"  # too few digits for an id
    assert fix_ocr_word("A0R1234") == "A0R1234"  # not at the start: a code as printed


def test_glued_colon_amount_and_dotted_time_after_date():
    assert parse_amount("Rounding:RM0.02") == Decimal("0.02")
    assert parse_amount("Time 18:24") is None
    assert parse_date("17/01/20188.08.53") == "2018-01-17"


def test_currency_from_country():
    from pipeline.rules.country import currency_from_country

    assert currency_from_country("TVA FR19787878784, 69001 Lyon, France") == "EUR"
    assert currency_from_country("no country here") is None


def test_company_name_wrapped_over_header_lines():
    doc = ocr_page(
        "100: 80 ACE HUAT HARDWARE | size 30",
        "132: 80 ENTERPRISE (SETIA | size 30",
        "164: 120 ALAM) SDN BHD | size 30",
        "200: 150 822737-X",
        "600: 300 Total | 450 14.00",
    )
    name = extract_rules(doc).fields["vendor_name"]
    assert name == "ACE HUAT HARDWARE ENTERPRISE (SETIA ALAM) SDN BHD"


def test_lot_number_is_no_postcode_when_a_postcode_line_follows():
    doc = ocr_page(
        "100: 160 Segi Cash & Carry Sdn.Rhd | size 30",
        "135: 280 (317041-W) | size 28",
        "170: 210 PT17920,SEKSYEN U9, | size 28",
        "205: 240 40150 SHAH ALAM, | size 28",
        "240: 200 SELANGOR DARUL EHSAN. | size 28",
        "275: 150 GST Reg No.: 001951645696 | size 28",
        "600: 300 Total | 450 12.60",
    )
    fields = extract_rules(doc).fields
    assert fields["vendor_name"] == "Segi Cash & Carry Sdn.Rhd"
    assert "40150 SHAH ALAM" in fields["vendor_address"]


def test_ocr_restores_dropped_word_boundaries():
    from pipeline.rules.ocr import fix_ocr_word

    assert fix_ocr_word("deLattreAlexis") == "de Lattre Alexis"
    assert fix_ocr_word("InvoiceINV/2023/03/0008") == "Invoice INV/2023/03/0008"
    assert fix_ocr_word("Facturen°562044387du02Juillet2015") == "Facturen°562044387 du 02Juillet 2015"
    assert fix_ocr_word("Grand Tota1RM21.85") == "Grand Tota1 RM21.85"  # else no amount: "1RM21.85"
    assert fix_ocr_word("Marcos Bermudez PorteroS.Com.") == "Marcos Bermudez Portero S.Com."  # else no legal form
    assert fix_ocr_word("BolañosS.A.") == "Bolaños S.A."
    for kept in (
        "GmbH",
        "iPad",
        "McDonald",
        "1st",
        "OR18030502160349",
        "azure.lnterior24@example.com",
        "FORM2",
        "U.S.A.",
    ):
        assert fix_ocr_word(kept) == kept


def test_glued_ocr_label_and_value():
    def doc_with(line: str) -> DocumentText:
        return ocr_page(
            "60: 80 ACME Interior Ltd | size 30",
            f"300: 80 {line} | size 40",
            "900: 700 Total | 900 $ 120.00 | size 25",
            width=1650,
            height=2340,
        )

    assert extract_rules(doc_with("InvoiceINV/2023/03/0008")).fields["invoice_number"] == "INV/2023/03/0008"
    fields = extract_rules(doc_with("Facturen°562044387du02Juillet2015")).fields
    assert fields["invoice_number"] == "562044387"
    assert fields["invoice_date"] == "2015-07-02"


def test_credit_note_titles_of_other_languages_and_compounds():
    for title in ("Gutschriftsnummer GS-1", "Factura de abono A-7", "Nota di credito NC-3", "ใบลดหนี้ 12"):
        doc = text_page(
            "40: 40 Muster S.p.A. | size 16",
            f"95: 40 {title} | size 14",
            "300: 380 Total | 480 -11,90 €",
        )
        assert extract_rules(doc).fields["total_amount"] == Decimal("11.9"), title


@pytest.mark.parametrize(
    "rows, expected",
    [
        # both totals add up within a cent; only the rounded one to the cent (service charge "SrvChg")
        (
            ("Sub Total | 400 24.43", "10%SrvChg: | 400 2.45", "GST@6% | 400 1.61", "Total: | 400 28.49"),
            {"rounding": "0.01", "total_amount": "28.5", "service_charge": "2.45"},
        ),
        # "Total (Excluding GST)" had been read as a tax (its "GST"), so the rounding did not add up
        (
            (
                "Total (Excluding GST): | 400 21.30",
                "Serv. Charge (3%): | 400 0.65",
                "GST payable (6%): | 400 1.31",
                "Total (Inclusive of GST): | 400 23.26",
            ),
            {"rounding": "-0.01", "total_amount": "23.25", "subtotal": "21.30", "tax_amount": "1.31"},
        ),
    ],
)
def test_total_after_a_one_cent_rounding_wins_over_the_total_before_it(rows, expected):
    rounding, total = expected.pop("rounding"), expected["total_amount"]
    doc = ocr_page(
        "40: 100 OLD TOWN KOPITIAM SDN BHD | size 20",
        *(f"{300 + 20 * i}: 50 {row}" for i, row in enumerate(rows)),
        f"380: 50 Rounding: | 400 {rounding}",
        f"400: 50 TOTAL: | 400 {Decimal(total):.2f}",
    )
    fields = extract_rules(doc).fields
    assert {k: fields.get(k) for k in expected} == {k: Decimal(v) for k, v in expected.items()}


# --- Fields read from small pages ---------------------------------------------------------------

# Pages (``text_page``/``ocr_page`` rows) and fields the rules must read from them (only those
# fields are checked); the id says what each page tries.
FIELD_CASES = [
    pytest.param(
        text_page(
            "40: 40 Northwind B.V. | size 16",
            "100: 40 Factuurnummer | 200 Factuurdatum | 360 Vervaldatum",
            "114: 40 F2022-17 | 200 8-9-2022 | 360 22-9-2022",
            "300: 300 Totaal | 480 € 49,99",
        ),
        {
            "invoice_number": "F2022-17",
            "invoice_date": "2022-09-08",
            "due_date": "2022-09-22",
            "total_amount": Decimal("49.99"),
            "currency": "EUR",
        },
        id="value_below_label",
    ),
    pytest.param(
        text_page(
            "40: 40 Muster Handel GmbH | size 14",
            "80: 40 Rechnungsnummer | 200 R-4711",
            "95: 40 Rechnungsdatum | 200 05.06.2018",
            "300: 300 Nettobetrag | 480 1.000,00 €",
            "315: 300 MwSt. 19% | 480 190,00 €",
            "330: 300 Gesamtbetrag | 480 1.190,00 €",
        ),
        {
            "invoice_number": "R-4711",
            "invoice_date": "2018-06-05",
            "subtotal": Decimal("1000.0"),
            "tax_amount": Decimal("190.0"),
            "total_amount": Decimal("1190.0"),
            "vendor_name": "Muster Handel GmbH",
        },
        id="european_decimal_comma_and_german_labels",
    ),
    # "Subtotaal" prints the gross amount; the arithmetic picks the net one as subtotal.
    pytest.param(
        text_page(
            "40: 40 Shop B.V. | size 14",
            "300: 60 Exclusief BTW | 200 € 593,36 | 300 Subtotaal | 480 € 717,97",
            "315: 60 BTW 21% | 200 € 124,61",
            "330: 300 Totaal | 480 € 717,97",
        ),
        {
            "total_amount": Decimal("717.97"),
            "subtotal": Decimal("593.36"),
            "tax_amount": Decimal("124.61"),
        },
        id="arithmetic_chooses_total",
    ),
    pytest.param(
        text_page(
            "40: 40 上海某某有限公司 | size 16",
            "80: 40 发票号码: 12345678",
            "95: 40 开票日期: 2023年05月17日",
            "300: 40 合计 | 400 ¥ 88.50",
        ),
        {
            "invoice_number": "12345678",
            "invoice_date": "2023-05-17",
            "total_amount": Decimal("88.5"),
            "currency": "CNY",
        },
        id="chinese_labels",
    ),
    pytest.param(
        text_page(
            "40: 40 Seller Corp. | size 16",
            "120: 40 Bill To:",
            "134: 40 Jane Buyer",
            "148: 40 1 Main Street",
        ),
        {
            "customer_name": "Jane Buyer",
        },
        id="customer_after_bill_to",
    ),
    pytest.param(
        text_page(
            "40: 40 Muster GmbH | size 16",
            "95: 40 Rechnungskorrektur Nr. RK-1 | size 14",
            "300: 380 Nettobetrag | 480 -10,00 €",
            "315: 380 MwSt. 19% | 480 -1,90 €",
            "330: 380 Gesamtbetrag | 480 -11,90 €",
        ),
        {
            "total_amount": Decimal("-11.9"),
        },
        id="corrected_invoice_keeps_its_signs",
    ),
    pytest.param(
        text_page(
            "100: 70 Verkäufer",
            "118: 70 Name: | 262 Verkehrsbetriebe GmbH",
            "136: 70 Ansprechpartner: | 262 Torti Mayer",
            "154: 70 Anschrift: | 262 Musterstraße 3",
            "178: 262 DE 12345 Berlin",
            "196: 70 Telefon: +493012345678",
            "250: 70 Käufer",
            "268: 70 Name: | 262 Kunde AG",
        ),
        {
            "vendor_name": "Verkehrsbetriebe GmbH",
            "vendor_address": "Musterstraße 3, DE 12345 Berlin",
            "customer_name": "Kunde AG",
        },
        id="labelled_address_in_seller_block",
    ),
    pytest.param(
        text_page(
            "30: 420 Global Wholesaler",
            "48: 30 Azure Interior",
            "63: 30 4557 De Silva St",
            "78: 30 Fremont CA 94538",
            "94: 30 United States",
        ),
        {
            "vendor_name": "Azure Interior",
            "vendor_address": "4557 De Silva St, Fremont CA 94538",
        },
        id="vendor_name_heads_an_address_block",
    ),
    pytest.param(
        text_page(
            "40: 40 Lieferant GmbH | size 16",
            "80: 40 Rechnungsdatum: 05.03.2018",
            "600: 40 Zahlbar innerhalb 30 Tagen netto bis 04.04.2018, 3% Skonto innerhalb 10 Tagen bis",
            "612: 40 15.03.2018.",
        ),
        {
            "invoice_date": "2018-03-05",
            "due_date": "2018-04-04",
        },
        id="due_date_in_payment_sentence",
    ),
    pytest.param(
        text_page(
            "40: 40 Muster GmbH | size 16",
            "400: 40 Zahlungsbedingungen",
            "420: 40 Einen zu zahlenden Beitrag überweisen Sie bitte auf folgende Bankverbindung:",
            "429: 40 IBAN DE75123456780000001234, BIC WELADED1MST.",
            "438: 40 Beitragsgutschriften erstatten wir per Scheck.",
            "460: 40 Zahlungsart: Überweisung",
        ),
        {
            "payment_terms": "Einen zu zahlenden Beitrag überweisen Sie bitte auf folgende Bankverbindung: "
            "IBAN DE75123456780000001234, BIC WELADED1MST. Beitragsgutschriften erstatten wir per Scheck.",
        },
        id="payment_terms_paragraph",
    ),
    pytest.param(
        text_page(
            "40: 40 Cloud Services LLC | size 16",
            "140: 40 Bill to Address:",
            "152: 40 ATTN: iViveLabs Limited | 300 TOTAL AMOUNT DUE $4.11",
            "166: 40 93B Sai Yu Chung",
        ),
        {
            "customer_name": "iViveLabs Limited",
        },
        id="label_remainder_is_no_customer_name",
    ),
    pytest.param(
        text_page(
            "160: 70 Verkäufer",
            "178: 70 Nummer: | 262 549910",
            "196: 262 MVM Musterhafter",
            "208: 70 Name: | 262 Versicherungsverein a.G.",
            "320: 70 Käufer",
            "338: 262 Herrn",
            "350: 70 Name: | 262 Max Mustermann",
        ),
        {
            "vendor_name": "MVM Musterhafter Versicherungsverein a.G.",
            "customer_name": "Herrn Max Mustermann",
        },
        id="name_row_with_wrapped_line_above",
    ),
    pytest.param(
        text_page(
            "30: 40 Au bon moulin SARL - 1242 chemin de l'olive - 84340 Malaucène - France",
            "100: 40 Facture FA-2017-0010 | size 14",
        ),
        {
            "vendor_address": "1242 chemin de l'olive, 84340 Malaucène",
        },
        id="house_number_is_no_postcode",
    ),
    pytest.param(
        text_page(
            "48: 40 FACTUUR. | 400 Coolblue B.V. | size 14",
            "63: 400 Weena 664",
            "66: 40 Dat betaal ik zelf wel.",
            "76: 400 3012 CN Rotterdam",
            "90: 400 Nederland",
        ),
        {
            "vendor_address": "Weena 664, 3012 CN Rotterdam",
        },
        id="country_ends_address",
    ),
    pytest.param(
        ocr_page(
            "40: 100 NOODLE HOUSE SDN BHD | size 20",
            "200: 100 Vege | 300 $5.50",
            "230: 100 Pork | 300 $2.70",
            "260: 250 Total Amount:S8.20",
            "290: 250 GST@6%:$0.46",
            "320: 250 Nett Total: S8.20",
        ),
        {
            "total_amount": Decimal("8.2"),
        },
        id="ocr_dollar_read_as_s_with_dollar_context",
    ),
    pytest.param(
        ocr_page(
            "40: 100 FLOWER SHOP SDN BHD | size 20",
            "300: 50 Total Sales (Excluding GST) | 400 353.00",
            "330: 50 Total GST: | 400 21.18",
            "360: 50 Total Sales (Inclusive of GST): | 400 374.20",
            "400: 50 Total: | 300 353.00 | 400 21.18",
        ),
        {
            "total_amount": Decimal("374.2"),
        },
        id="total_on_cash_rounding_step_wins",
    ),
    pytest.param(
        ocr_page(
            "40: 100 RICE HOUSE SDN BHD | size 20",
            "300: 250 Total Amount: RM8.48",
            "330: 250 GST @0%: RM0.00",
            "360: 250 Rounding:RM0.02",
            "390: 250 NettTotal:RM8.50",
        ),
        {
            "total_amount": Decimal("8.5"),
        },
        id="total_after_printed_rounding_wins",
    ),
    pytest.param(
        ocr_page(
            "40: 100 Bakkerij Jansen B.V. | size 20",
            "80: 100 Factuurnummer: 12345",
            "300: 100 Totaal | 400 717,97",
            "500: 100 IBANNL50INGB0683251309",
        ),
        {
            "currency": "EUR",
        },
        id="currency_from_iban_country_without_symbol",
    ),
    pytest.param(
        ocr_page(
            "40: 30 GOOD BAKERIES (KL) SDN BHD | size 22",
            "70: 150 Lot 3, Jalan Pelabur 23/1,",
            "95: 150 40300 Shah Alam, Selangor.",
            "200: 130 TAX INVOICE | size 30",
            "300: 20 CITY FRESH MARKET SDN BHD | size 30",
            "340: 20 Ground Floor No 4, Jalan SS15",
            "600: 300 Total | 450 12.00",
        ),
        {
            "vendor_name": "GOOD BAKERIES (KL) SDN BHD",
        },
        id="company_above_title_beats_company_below_it",
    ),
    pytest.param(
        ocr_page(
            "40: 40 SUNNY STATIONERY SHOP | size 24",
            "80: 40 NO.31G, JALAN SETIA INDAH",
            "110: 40 40170 SETIA ALAM",
            "160: 40 Owned By: | size 24",
            "190: 40 SUNNY SUPPLY SDN BHD (1135772-K) | size 24",
            "600: 300 Total | 450 10.00",
        ),
        {
            "vendor_name": "SUNNY STATIONERY SHOP",
        },
        id="owned_by_names_the_owner_not_the_shop",
    ),
    pytest.param(
        ocr_page(
            "160: 240 RELAIS TOTAL OULMES | size 32",
            "200: 220 AUTOROUTE RABAT MEKNES | size 32",
            "235: 270 15000 KHEMISSET | size 30",
            "470: 40 Total Facture : | 400 56.00 DH",
            width=746,
            height=768,
        ),
        {
            "vendor_name": "RELAIS TOTAL OULMES",
        },
        id="label_word_inside_a_header_name",
    ),
    pytest.param(
        text_page(
            "40: 40 azure | size 15",
            "58: 40 interior | size 15",
            "80: 40 Azure Interior",
            "92: 40 4557 De Silva St",
            "104: 40 Fremont CA 94538",
            "400: 300 Total | 480 $ 120.00",
            "700: 40 http://www.azure-interior.com",
        ),
        {
            "vendor_name": "Azure Interior",
        },
        id="web_domain_spells_the_vendor",
    ),
    pytest.param(
        ocr_page(
            "40: 100 FLOWER SHOP SDN BHD | size 20",
            "300: 50 Total Sales(Excluding GST) | 400 78.00",
            "330: 50 Total GST | 400 4.68",
            "360: 50 Total Sales(lnclusive of GsT) | 400 82.68",
            "400: 50 Total: | 300 78.00 | 400 4.68",
        ),
        {
            "total_amount": Decimal("82.68"),
        },
        id="ocr_l_for_i_in_total_label",
    ),
    pytest.param(
        ocr_page(
            "87: 308 AubonmoulinSARL-1242chemindelolive-84340Malaucene-France | size 27",
            "261: 87 Facture FA-2017-0010 | size 46",
            "1266: 1242 Total TTC | 1400 671,15",
            width=1653,
            height=2339,
        ),
        {
            "vendor_name": "Aubonmoulin SARL",
            "vendor_address": "1242 chemindelolive, 84340Malaucene",
        },
        id="glued_ocr_sender_line_splits_into_name_and_address",
    ),
    pytest.param(
        text_page(
            "116: 386 ALEXINUX",
            "129: 387 de Lattre Alexis",
            "141: 387 27 rue Henri Rolland",
            "154: 387 69100 Villeurbanne",
            "179: 245 Facture n° 2022089083",
            "415: 376 Total TTC : 56,02 €",
            "795: 279 NETPRESSE | size 5",
            "802: 137 Siège social : 16 rue Mollien - 92100 BOULOGNE | size 6",
            "811: 153 Sarl au capital de 10 000€ - RSC Paris B 530 848 134 | size 6",
        ),
        {
            "vendor_name": "NETPRESSE",
        },
        id="name_over_legal_footer_is_the_vendor",
    ),
    # Receipts as PP-OCR reads them (spaces kept, registration numbers and till codes beside
    # the name): SROIE dev receipts 426, 492 and 531, invoice2data oyo.
    pytest.param(
        ocr_page(
            "40: 60 AEON CO. (M) BHD (126926-H) A05148 | size 14",
            "60: 60 3RD FLR, AEON TAMAN MALURI SC",
            "75: 60 CHERAS, 55100 KUALA LUMPUR",
            "90: 60 SHOPPING HOURS",
            "105: 60 SUN-THU:1000 HRS - 2230 HRS",
            "300: 60 TOTAL | 400 99.90",
        ),
        {"vendor_name": "AEON CO. (M) BHD"},
        id="registration_number_and_till_code_after_the_name",
    ),
    pytest.param(
        ocr_page(
            "40: 60 SANYU STATIONERY SHOP | size 14",
            "60: 60 NO. 31G&33G, JALAN SETIA INDAH X,U13/X",
            "75: 60 40170 SETIA ALAM",
            "90: 60 Owned By : GST ID No: 001531760640 TAX INVOICE",
            "105: 60 SANYU SUPPLY SDN BHD (1135772-K)",
            "300: 60 Total | 400 10.00",
        ),
        {"vendor_name": "SANYU STATIONERY SHOP"},
        id="owned_by_sharing_its_row_with_other_labels",
    ),
    pytest.param(
        ocr_page(
            "300: 60 Sub Total RM | 400 28.15",
            "315: 60 Total Due (GST Inc): | 400 28.15",
            "330: 60 Pald: Cash | 400 50.00",
            "345: 60 Change: | 400 21.85",
        ),
        {"total_amount": Decimal("28.15")},
        id="bracketed_qualifier_after_the_total_label",
    ),
    pytest.param(
        text_page(
            "40: 60 OYO PAYMENT RECEIPT | size 20",
            "80: 60 Guest Name: Sanjay | 300 Date:31/12/2017",
            "200: 60 DESCRIPTION | 300 RATE | 400 AMOUNT",
            "220: 60 Room Charges Rs 1939 x 1 Night x 1 Room | 400 Rs 1939",
            "240: 60 Grand Total | 400 Rs 1939",
        ),
        {"vendor_name": "OYO"},
        id="name_before_a_two_word_title",
    ),
]


@pytest.mark.parametrize(("doc", "expected"), FIELD_CASES)
def test_fields_read_from_small_pages(doc, expected):
    fields = extract_rules(doc).fields
    for name, value in expected.items():
        assert fields[name] == value, name


# Pages with a table, the fields (if any) and the line items the rules must read from them: the
# items' descriptions in order, and the other values given for each item.
LINE_CASES = [
    pytest.param(
        text_page(
            "40: 40 Tools Inc. | size 16",
            "200: 40 Description | 300 Qty | 380 Unit Price | 480 Amount",
            "215: 40 Hammer | 300 2 | 380 10.00 | 480 20.00",
            "230: 40 Screwdriver set | 300 1 | 380 15.50 | 480 15.50",
            "260: 380 Total | 480 35.50",
        ),
        {
            "total_amount": Decimal("35.5"),
        },
        [
            {
                "description": "Hammer",
                "quantity": 2,
                "unit_price": Decimal("10.0"),
                "line_total": Decimal("20.0"),
            },
            {
                "description": "Screwdriver set",
                "line_total": Decimal("15.5"),
            },
        ],
        id="line_item_table",
    ),
    # e-invoice renderings print the line total below the description, next to a GTIN.
    pytest.param(
        text_page(
            "40: 40 Lieferant GmbH | size 16",
            "200: 40 Pos Beschreibung | 250 Nettopreis | 330 Menge | 480 Nettobetrag",
            "215: 40 1 Trennblätter A4 | 250 9,9000 | 330 20 Stk",
            "224: 100 4012345001235 | 480 198,00",
            "245: 40 2 Joghurt Banane | 250 5,5000 | 330 50 Stk",
            "254: 100 4000050986428 | 480 275,00",
            "300: 300 Gesamtbetrag | 480 473,00",
        ),
        {},
        [
            {
                "description": "Trennblätter A4",
                "line_total": Decimal("198.0"),
                "unit_price": Decimal("9.9"),
                "quantity": 20,
            },
            {
                "description": "Joghurt Banane",
                "line_total": Decimal("275.0"),
            },
        ],
        id="row_with_total_on_the_next_line",
    ),
    pytest.param(
        text_page(
            "40: 40 Versicherung AG | size 16",
            "200: 40 Pos Beschreibung | 250 Nettopreis | 330 Menge | 480 Nettobetrag",
            "215: 40 1 Haftpflicht SF25 Typkl. 18 | 250 67,22 | 330 1",
            "224: 70 Regio R9 | 480 80,00",
        ),
        {},
        [
            {
                "description": "Haftpflicht SF25 Typkl. 18 Regio R9",
                "line_total": Decimal("80.0"),
            },
        ],
        id="wrapped_row_joins_its_description",
    ),
    pytest.param(
        text_page(
            "40: 40 Shop Inc. | size 16",
            "200: 40 Description | 300 Qty | 380 Unit Price | 480 Amount",
            "215: 40 Chair | 300 1.00 | 380 70.00 | 480 70.00",
            "230: 400 Subtotal | 480 70.00",
            "245: 40 Truffles | 300 15.00 | 380 10.00 | 480 150.00",
            "260: 400 Subtotal | 480 150.00",
            "275: 400 Subtotal | 480 220.00",
            "290: 400 Tax 15% | 480 33.00",
            "305: 400 Total | 480 253.00",
        ),
        {
            "total_amount": Decimal("253.0"),
        },
        [
            {
                "description": "Chair",
            },
            {
                "description": "Truffles",
            },
        ],
        id="section_subtotal_does_not_end_the_table",
    ),
    pytest.param(
        text_page(
            "40: 40 Winkel B.V. | size 16",
            "200: 40 Omschrijving | 300 Prijs | 380 Aantal | 480 Bedrag",
            "215: 40 Onderhoudsset | 300 49,99 | 380 1 | 480 49,99",
            "230: 40 Prijzen zijn inclusief BTW | 480 49,99",
        ),
        {},
        [
            {
                "description": "Onderhoudsset",
            },
        ],
        id="line_stating_prices_include_vat_is_no_item",
    ),
    pytest.param(
        text_page(
            "40: 40 QualityHosting AG | size 16",
            "200: 40 Pos. Menge Beschreibung | 330 Rabatt % | 400 VK-Preis | 480 Zeilenbetrag",
            "215: 40 4 1 Small Business Quality Exchange 2010 | 400 5,39 | 480 5,39",
            "230: 40 5 2 Small Business Standard Exchange 2010 | 400 3,89 | 480 7,78",
        ),
        {},
        [
            {"description": "Small Business Quality Exchange 2010", "quantity": 1, "line_total": Decimal("5.39")},
            {"description": "Small Business Standard Exchange 2010", "quantity": 2, "line_total": Decimal("7.78")},
        ],
        id="quantity_column_left_of_the_description",
    ),
    # a Chinese VAT invoice (增值税专用发票) prints each row's tax amount right of its amount
    pytest.param(
        text_page(
            "40: 40 飞利信网络有限公司 | size 16",
            "200: 40 货物或应税劳务、服务名称 | 300 单位 | 330 数量 | 370 单价 | 420 金额 | 470 税率 | 510 税额",
            "215: 40 办公桌 | 330 1 | 370 1,800.99 | 420 1,800.99 | 470 13% | 510 234.13",
            "230: 40 合 计 | 420 ¥1,800.99 | 510 ¥234.13",
        ),
        {},
        [{"description": "办公桌", "line_total": Decimal("1800.99"), "unit_price": Decimal("1800.99"), "tax": 13}],
        id="tax_amount_column_right_of_the_amount",
    ),
    pytest.param(
        text_page(
            "40: 40 Bureau GmbH | size 16",
            "200: 40 Beschreibung | 250 Menge | 300 Nettobetrag | 380 MwSt.-Betrag | 460 Bruttobetrag",
            "215: 40 Bürostuhl | 250 1 | 300 100,00 | 380 19,00 | 460 119,00",
        ),
        {},
        [{"description": "Bürostuhl", "line_total": Decimal("119.0")}],
        id="tax_amount_column_inside_the_table_leaves_the_rightmost_amount",
    ),
]


@pytest.mark.parametrize(("doc", "fields", "items"), LINE_CASES)
def test_line_items_read_from_small_pages(doc, fields, items):
    result = extract_rules(doc)
    for name, value in fields.items():
        assert result.fields[name] == value, name
    assert [item["description"] for item in result.line_items] == [item["description"] for item in items]
    for got, want in zip(result.line_items, items, strict=True):
        assert set(got) == LINE_ITEM_KEYS
        for name, value in want.items():
            assert got[name] == value, (got["description"], name)


def test_a_paid_invoice_reads_its_amount_due_of_zero_as_the_balance():
    """A paid SaaS invoice without a "Total" line: "Amount due $0.00" after "Amount paid
    $49.00". The total is what was paid, the zero its balance (it completed as total 0.00)."""
    doc = text_page(
        "40: 50 Acme Cloud Inc. | size 16",
        "80: 50 Invoice number | 200 INV-2024-0012",
        "100: 50 Date of issue | 200 January 5, 2024",
        "200: 50 Pro plan | 400 1 | 480 $49.00",
        "240: 300 Subtotal | 480 $49.00",
        "280: 300 Amount paid | 480 $49.00",
        "300: 300 Amount due | 480 $0.00",
    )
    fields = extract_rules(doc).fields
    assert fields["total_amount"] == Decimal("49.00")
    assert (fields["paid_amount"], fields["balance_amount"]) == (Decimal("49.00"), Decimal("0.00"))


@pytest.mark.parametrize(
    ("label", "number"),
    [
        ("Gutschriftsnummer:", "GS/2017/09/3513"),
        ("Nota di credito n.:", "AV2023-59520"),
        ("Bonnr.:", "CS2022-81626"),
        ("N° de ticket:", "OR002450"),
        ("CS No:", "CS2018-90159"),
        ("Documento n.:", "R/2016/11/4421"),
        ("收据编号:", "OR15-24135"),
        # the text layer spaces "n . :"; OCR reads "º" as "2" and drops Thai tone marks
        ("Ricevuta n . :", "44914"),
        ("Recibo n2:", "201675732"),
        ("FATTURA Numero fattura:", "74414"),
        ("Numéro:", "10199"),
        ("No ticket:", "12345"),
        ("เลขทีใบเสร็จ :", "0050078"),
        ("เลขที่:", "44230"),  # the tone mark is part of the label, not the number's first character
    ],
)
def test_credit_note_and_till_receipt_number_labels(label, number):
    doc = text_page("40: 40 Kleine Laden GmbH | size 16", f"80: 40 {label} {number}", "400: 300 Total | 480 120.00")
    assert extract_rules(doc).fields["invoice_number"] == number


def test_the_invoice_a_credit_note_corrects_is_not_its_number():
    doc = text_page(
        "40: 40 Salz AG | size 16",
        "80: 40 Gutschriftsnummer: GS/2017/09/3513",
        "95: 40 zu Rechnung: 0045946",
        "400: 300 Total | 480 120.00",
    )
    assert extract_rules(doc).fields["invoice_number"] == "GS/2017/09/3513"


def test_a_name_under_a_billing_address_label_is_the_customer_not_the_vendor():
    doc = text_page(
        "40: 40 Rechnung",
        "60: 40 Rechnungsadresse: Geißler Schuchhardt GmbH",
        "80: 40 Cornelia-Wilms-Straße 59, 34195 Bayreuth",
        "400: 300 Endbetrag | 480 120.00",
    )
    assert extract_rules(doc).fields.get("vendor_name") != "Geißler Schuchhardt GmbH"


def test_thai_labels_match_the_nfkc_text_layer_and_either_spelling_of_sara_am():
    # NFKC writes SARA AM (U+0E33) as NIKHAHIT + SARA AA: "จำนวน" arrives as "จํานวน"
    for spelling in ("จำนวน", "จ\u0e4d\u0e32นวน"):
        doc = text_page(
            "40: 40 หสน.ธรรมทินนา | size 16",
            f"200: 40 รายการ | 300 {spelling} | 380 ราคา | 460 {spelling}เงิน",
            "215: 40 เมล็ดกาแฟคั่ว | 300 2 | 380 637.99 | 460 1,275.98",
            "260: 380 รวมทั้งสิ้น | 460 ฿1,275.98",
        )
        items = extract_rules(doc).line_items
        assert [(i["description"], i["quantity"], i["line_total"]) for i in items] == [
            ("เมล็ดกาแฟคั่ว", 2, Decimal("1275.98"))
        ], spelling


def test_a_thai_total_label_whose_tone_marks_ocr_dropped_still_labels_the_total():
    """Tesseract reads "รวมทั้งสิ้น" as "รวมทั้งสิน" on the synthetic Thai scans; the cash tendered
    below it (เงินสด) is no total."""
    doc = text_page(
        "40: 40 หสน.ธรรมทินนา | size 16",
        "200: 40 มูลค่าสินค้า | 460 4,175.15",
        "215: 40 ภาษีมูลค่าเพิ่ม @7% | 460 292.26",
        "230: 40 รวมทั้งสิน | 460 ฿4,467.41",
        "245: 40 เงินสด | 460 4,480.00",
        "260: 40 เงินทอน | 460 12.59",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("4467.41")


def test_the_sum_row_of_a_net_and_tax_table_is_no_total():
    """A Chinese VAT invoice sums its 金额 and 税额 columns on the "合 计" row; the total is the
    价税合计 line below (the net 224,878.78 had been read as the total)."""
    doc = text_page(
        "40: 40 增值税专用发票 | 300 发票号码: 81091409",
        "200: 40 货物或应税劳务、服务名称 | 330 数量 | 370 单价 | 420 金额 | 470 税率 | 510 税额",
        "215: 40 人体工学办公椅 | 330 106 | 370 1,921.90 | 420 224,878.78 | 470 6% | 510 14,969.38",
        "230: 40 合 计 | 420 ¥224,878.78 | 510 ¥14,969.38",
        "245: 40 价税合计 (大写) ⊗贰拾叁万玖仟捌佰肆拾捌圆壹角陆分 | 420 (小写) ¥239,848.16",
    )
    fields = extract_rules(doc).fields
    assert (fields["subtotal"], fields["tax_amount"], fields["total_amount"]) == (
        Decimal("224878.78"),
        Decimal("14969.38"),
        Decimal("239848.16"),
    )


def test_a_tax_printed_per_rate_sums_to_the_document_tax():
    doc = text_page(
        "300: 60 Base imponible | 400 660,29",
        "315: 60 Cuota IVA @21% | 400 70,81",
        "330: 60 Cuota IVA @10% | 400 6,00",
        "345: 60 Cuota IVA @4% | 400 10,53",
        "360: 60 Importe total EUR | 400 747,63",
    )
    fields = extract_rules(doc).fields
    assert (fields["subtotal"], fields["tax_amount"], fields["total_amount"]) == (
        Decimal("660.29"),
        Decimal("87.34"),
        Decimal("747.63"),
    )


def test_a_tax_per_rate_sums_without_a_line_item_that_reads_as_a_tax_line():
    """A line item whose description names the tax ("Pfand inkl. MwSt. 3,99") reads as a tax
    line just above the VAT breakdown; the breakdown's own lines still sum to the document's tax."""
    doc = text_page(
        "200: 40 Beschreibung | 250 Menge | 350 Preis | 450 Betrag",
        "215: 40 Kopierpapier, Pfand inkl. MwSt. | 250 1 | 350 3,99 | 450 3,99",
        "230: 40 Beratung | 250 10 | 350 399,515 | 450 3.995,15",
        "260: 40 Nettobetrag | 450 3.999,14",
        "275: 40 Umsatzsteuer 19 % | 450 48,52",
        "290: 40 Umsatzsteuer 7 % | 450 262,06",
        "305: 40 Endbetrag | 450 4.309,72 €",
    )
    fields = extract_rules(doc).fields
    assert (fields["subtotal"], fields["tax_amount"], fields["total_amount"]) == (
        Decimal("3999.14"),
        Decimal("310.58"),
        Decimal("4309.72"),
    )


@pytest.mark.parametrize(
    "net_label, tax_label",
    [
        ("Net amount", "VAT 23%"),
        ("Base imp.", "Cuota IVA 21%"),
        ("Montant HT", "Montant TVA 20 %"),
        ("不含税金额", "税额 13%"),
        # a net amount under a name no lexicon holds: one amount, the sum of the rows above
        ("Sous-total marchandises", "TVA 20 %"),
    ],
)
def test_the_totals_block_under_a_table_is_no_line_item(net_label, tax_label):
    doc = text_page(
        "200: 40 Description | 250 Qty | 350 Unit price | 450 Amount",
        "215: 40 Office chair | 250 2 | 350 134.90 | 450 269.80",
        "230: 40 Copper cable | 250 5 | 350 3.99 | 450 19.95",
        f"250: 40 {net_label} | 450 289.75",
        f"265: 40 {tax_label} | 450 57.95",
        "280: 40 Total | 450 347.70",
    )
    result = extract_rules(doc)
    assert [item["description"] for item in result.line_items] == ["Office chair", "Copper cable"]
    assert result.fields["subtotal"] == Decimal("289.75")


def test_a_quantity_printed_into_the_description_column_leaves_the_description():
    """Right-aligned quantities reach left of their header into the description column."""
    doc = text_page(
        "200: 40 Désignation | 250 Qté | 350 Prix unitaire | 450 Montant",
        "215: 40 Création de logo 1 unité | 350 705,99 | 450 705,99",
        "230: 40 Prestation de conseil 8 | 350 153,70 | 450 1.229,60",
    )
    items = extract_rules(doc).line_items
    assert [(item["description"], item["quantity"]) for item in items] == [
        ("Création de logo", Decimal(1)),
        ("Prestation de conseil", Decimal(8)),
    ]
    assert items[0]["unit"] == "unité"


@pytest.mark.parametrize("label", ["Gutschriftsbetrag", "Total credit", "Montant de l'avoir"])
def test_a_credit_notes_total_is_what_it_credits(label):
    doc = text_page(
        "100: 40 Gutschrift | 300 Gutschriftsnummer: GS/2017/09/3513",
        "200: 40 Pos. Bezeichnung | 250 Menge | 350 Preis | 450 Betrag",
        "215: 40 5 Bürostuhl ergonomisch | 250 1 | 350 229,99 | 450 -229,99",
        "230: 40 6 Kopierpapier A4 | 250 2 | 350 30,60 | 450 -61,20",
        "250: 40 Gesamt netto | 450 -291,19 €",
        "265: 40 Umsatzsteuer 19 % | 450 -55,33 €",
        f"280: 40 {label} | 450 -346,52 €",
    )
    fields = extract_rules(doc).fields
    assert (fields["subtotal"], fields["tax_amount"], fields["total_amount"]) == (
        Decimal("291.19"),
        Decimal("55.33"),
        Decimal("346.52"),
    )


def test_the_labels_of_a_table_header_name_its_columns_not_amounts():
    """ "Discount" and "Line Total" head the columns of the rows below, whose amounts are no
    discount or total of the document."""
    doc = text_page(
        "200: 40 No. Item | 200 Quantity | 260 Rate | 320 Discount | 400 Line Total",
        "215: 40 1 Copper cable 2.5mm2 | 200 6 | 260 2.00 | 320 50% | 400 6.00",
        "230: 40 2 Toner cartridge black | 200 1 | 260 118.90 | 320 10% | 400 107.01",
        "250: 40 Net total | 400 CHF 113.01",
        "265: 40 VAT (8.1%) | 400 CHF 9.15",
        "280: 40 Total credit | 400 CHF 122.16",
    )
    fields = extract_rules(doc).fields
    assert fields["total_amount"] == Decimal("122.16")
    assert "discount" not in fields


@pytest.mark.parametrize("summary_total", ["TOTAL | 300 6.60 | 400 0.40", "TAX TOTAL: | 400 0.40"])
def test_the_total_row_of_a_receipts_tax_summary_is_no_total(summary_total):
    """The receipt's own TOTAL line lost its amount to OCR ("TAL"); the tax summary's TOTAL row
    below sums the net amounts and the tax, so the total is the receipt's largest amount (``_fallback_total``)."""
    doc = ocr_page(
        "600: 40 SUB-TOTAL | 400 6.60",
        "615: 40 GST | 400 0.40",
        "630: 40 ROUNDING | 400 0.00",
        "645: 40 TAL",
        "660: 40 CASH | 400 7.00",
        "675: 40 GST SUMMARY",
        "690: 40 CODE | 300 AMOUNT | 400 TAX/AMT",
        "705: 40 SR | 300 6.60 | 400 0.40",
        f"720: 40 {summary_total}",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("7.00")


def test_a_chinese_tax_per_rate_line_is_no_total():
    """ "税额合计 13%" is the tax at one rate, though 合计 alone labels a total."""
    doc = text_page(
        "300: 40 小计 | 450 7984.97",
        "315: 40 折扣 5% | 450 -399.25",
        "330: 40 金额合计 | 450 7585.72",
        "345: 40 税额合计 13% | 450 986.14",
        "360: 40 合计金额 CNY | 450 8571.86",
    )
    fields = extract_rules(doc).fields
    assert (fields["tax_amount"], fields["total_amount"]) == (Decimal("986.14"), Decimal("8571.86"))


def test_a_paid_invoice_whose_payment_is_printed_as_a_deduction_totals_what_was_paid():
    doc = text_page(
        "300: 40 Base imponible | 450 98.276,74",
        "315: 40 IVA 21% | 450 20.638,12",
        "345: 40 Cobrado | 450 -118.914,86",
        "360: 40 Total a pagar EUR | 450 0,00",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("118914.86")


def test_a_receipt_amount_whose_decimal_point_ocr_lost_reads_with_cents():
    """ "Subtotal 600" on a receipt that prints "Payment: 6.00": the point was lost, not 594.00."""
    doc = ocr_page(
        "600: 40 3.00 X 2.00 | 400 6.00 SR",
        "615: 40 Subtotal | 400 600",
        "630: 40 TotalIn of GST | 400 600",
        "645: 40 Payment: | 400 6.00",
        "660: 40 Change Due | 400 0.00",
    )
    fields = extract_rules(doc).fields
    assert (fields["subtotal"], fields["total_amount"]) == (Decimal("6.00"), Decimal("6.00"))


def test_a_row_named_by_its_article_number_is_a_line_item_and_the_totals_are_not():
    """A till receipt's row starts with a GTIN, its description on the line below; "Total Qty."
    under a description line is no second line of a row."""
    doc = ocr_page(
        "200: 40 ITEM | 250 QTY | 300 U/P | 350 DISC% | 400 AMOUNT (RM)",
        "215: 40 TP-24 | 250 5 | 300 1.32 | 350 0.00 | 400 6.60*",
        "230: 40 - DOUBLE SIDED TISSUE TAPE 18MM",
        "245: 40 9557546631393 | 250 5 | 300 2.08 | 350 0.00 | 400 10.38*",
        "260: 40 - LION FILE 220*307 LAMINATING FILM",
        "275: 40 Total Qty. : | 250 10 | 400 16.98",
        "290: 40 SUB-TOTAL (EX) | 400 16.98",
    )
    items = extract_rules(doc).line_items
    assert [(item["description"], item["line_total"]) for item in items] == [
        ("TP-24", Decimal("6.60")),
        ("9557546631393", Decimal("10.38")),
    ]


def test_charges_after_the_subtotal_of_a_table_are_no_line_items():
    doc = text_page(
        "200: 40 货物或应税劳务、服务名称 | 250 数量 | 300 单位 | 350 单价 | 450 金额",
        "215: 40 铜芯电缆 2.5平方 | 250 19.43 | 300 米 | 350 23.51 | 450 456.80",
        "230: 40 办公桌 | 250 1 | 300 件 | 350 3,753.99 | 450 3,753.99",
        "245: 40 小计 | 450 4,210.79",
        "260: 40 物流费 | 450 41.65",
        "275: 40 服务费 10% | 450 421.08",
        "290: 40 合计 | 450 4,673.52",
        "305: 40 增值税 13% | 450 607.56",
        "320: 40 合计金额 CNY | 450 5,281.08",
    )
    result = extract_rules(doc)
    assert [item["line_total"] for item in result.line_items] == [Decimal("456.80"), Decimal("3753.99")]
    fields = result.fields
    assert (fields["subtotal"], fields["shipping_cost"], fields["service_charge"], fields["tax_amount"]) == (
        Decimal("4210.79"),
        Decimal("41.65"),
        Decimal("421.08"),
        Decimal("607.56"),
    )
    assert fields["total_amount"] == Decimal("5281.08")


def test_a_thai_row_whose_description_says_including_stays_a_row():
    """ "รวม" starts a Thai total line ("รวม ฿139,102.55"), but inside a description it means
    "including" ("ค่าลิขสิทธิ์ซอฟต์แวร์รายปี รวมค่าติดตั้ง": licence, installation included)."""
    doc = text_page(
        "200: 40 ลำดับ | 70 รายการสินค้า | 300 จำนวน | 360 ราคา/หน่วย | 460 จำนวนเงิน",
        "215: 40 1 | 70 ตลับหมึกโทนเนอร์สีดำ | 300 19 | 360 3,832.90 | 460 72,825.10",
        "230: 40 2 | 70 ค่าลิขสิทธิ์ซอฟต์แวร์รายปี รวมค่าติดตั้ง | 300 11 | 360 17,263.99 | 460 189,903.89",
        "245: 40 รวม | 460 ฿262,728.99",
    )
    assert [item["line_total"] for item in extract_rules(doc).line_items] == [
        Decimal("72825.10"),
        Decimal("189903.89"),
    ]


def test_a_date_under_a_narrow_label_is_read_from_its_first_word():
    """The word under the label "Date" is the year of "12 March 2024", which starts left of the
    label: the cell starts at the date, not at the date of the next column."""
    doc = text_page(
        "40: 40 Kleine Laden GmbH | size 16",
        "100: 300 Date | 400 Pay by",
        "115: 240 12 March 2024 | 400 30 March 2024",
        "400: 300 Total | 480 120.00",
    )
    fields = extract_rules(doc).fields
    assert (fields["invoice_date"], fields["due_date"]) == ("2024-03-12", "2024-03-30")


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (
            ("Imponibile | 100,00", "Spese di spedizione | 10,00", "IVA 22% | 24,20", "Totale documento | 134,20"),
            {"subtotal": "100.00", "shipping_cost": "10.00", "tax_amount": "24.20", "total_amount": "134.20"},
        ),
        (
            ("Totale merce | 200,00", "Sconto | -20,00", "Imposta | 39,60", "Totale | 219,60", "Acconto | 100,00"),
            {"subtotal": "200.00", "discount": "20.00", "total_amount": "219.60", "paid_amount": "100.00"},
        ),
        (
            ("Sous-total | 50,00", "Frais de dossier | 5,00", "TVA | 11,00", "Net TTC | 66,00"),
            {"subtotal": "50.00", "service_charge": "5.00", "total_amount": "66.00"},
        ),
        (
            ("Netto bedrag | 80,00", "Bezorgkosten | 5,00", "BTW | 17,85", "Totaal | 102,85", "Nog te betalen | 2,85"),
            {"subtotal": "80.00", "shipping_cost": "5.00", "total_amount": "102.85", "balance_amount": "2.85"},
        ),
        (
            ("Total base imponible | 10,00", "Total IVA | 2,10", "Total a pagar | 12,10"),
            {"subtotal": "10.00", "tax_amount": "2.10", "total_amount": "12.10"},
        ),
        (
            (
                "小计 | 18,264.99",
                "物流费 | 41.65",
                "增值税 13% | 2,379.86",
                "合计金额 | 20,686.50",
                "已付金额 | -8,750.00",
            ),
            {"shipping_cost": "41.65", "tax_amount": "2379.86", "total_amount": "20686.50", "paid_amount": "8750.00"},
        ),
    ],
)
def test_amount_labels_of_italian_french_dutch_spanish_and_chinese_invoices(rows, expected):
    doc = text_page(*(f"{300 + 15 * i}: 60 {row.replace(' | ', ' | 400 ')}" for i, row in enumerate(rows)))
    fields = extract_rules(doc).fields
    assert {name: str(fields.get(name)) for name in expected} == expected


@pytest.mark.parametrize(
    ("header", "values", "expected"),
    [
        (
            "Datum | 300 Te betalen voor | 450 Leverdatum",
            "1 juli 2013 | 300 15 juli 2013 | 450 24 juni 2013",
            ("2013-07-01", "2013-07-15"),
        ),
        (
            "Data fattura | 300 Data scadenza | 450 Data consegna",
            "01/07/2013 | 300 15/07/2013 | 450 24/06/2013",
            ("2013-07-01", "2013-07-15"),
        ),
        (
            "开票日期 | 300 付款截止日期 | 450 发货日期",
            "2013-07-01 | 300 2013-07-15 | 450 2013-06-24",
            ("2013-07-01", "2013-07-15"),
        ),
    ],
)
def test_due_and_delivery_date_labels_of_dutch_italian_and_chinese_invoices(header, values, expected):
    doc = text_page(
        "40: 40 Kleine Laden | size 16", f"100: 150 {header}", f"115: 150 {values}", "400: 300 Total | 480 1,00"
    )
    fields = extract_rules(doc).fields
    assert (fields["invoice_date"], fields["due_date"]) == expected


def test_thai_pay_by_sentence_gives_the_due_date_not_the_invoice_date():
    """ "ชำระภายในวันที่ 11 ธ.ค. 2560" is "pay by 11 Dec 2017": the word for "date" inside it is
    no invoice-date label."""
    doc = text_page(
        "100: 40 เลขที่ | 200 วันที่",
        "115: 40 0021367 | 200 11 พ.ย. 2560",
        "400: 300 รวมทั้งสิ้น | 480 ฿1,000.00",
        "420: 40 เงื่อนไขการชำระเงิน: ชำระภายในวันที่ 11 ธ.ค. 2560",
    )
    fields = extract_rules(doc).fields
    assert (fields["invoice_date"], fields["due_date"]) == ("2017-11-11", "2017-12-11")


def test_a_total_that_includes_the_tax_in_parentheses_stays_the_total():
    doc = ocr_page(
        "40: 100 GUARDIAN HEALTH AND BEAUTY SDN BHD | size 20",
        "300: 50 SUBTOTAL | 400 2.56",
        "320: 50 TOTAL (GST INCL) | 400 2.56",
        "340: 50 CASH | 400 50.55",
        "360: 50 ROUNDING ADJUSTMENTS | 400 0.01-",
        "380: 50 CHANGE DUE | 400 48.00",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("2.56")


@pytest.mark.parametrize(
    "name",
    [
        "Supermercados Castrillo & Asociados S.Com.",
        "Cooperativa del Campo S.Coop.",
        "Gude Klapp e.G.",
        "Volksbank Mittelhessen eG",
        "Henkel AG & Co. KGaA",
        "Müller & Söhne GbR",
        "Rossi Forniture S.r.l.",
        "Stavby Novák s.r.o.",
        "Kowalski Sp. z o.o.",
        "Jansen en Zonen VOF",
        "Acme Trading Pte. Ltd.",
        "Comercial Paulista Ltda.",
    ],
)
def test_legal_forms_of_more_countries_mark_a_company(name):
    assert COMPANY_RE.search(name)


@pytest.mark.parametrize("text", ["e.g. the receipt", "E.G. FLOOR", "EG links"])
def test_lower_case_abbreviations_are_no_legal_form(text):
    assert not COMPANY_RE.search(text)


def test_a_fapiao_s_seller_below_the_table_is_the_vendor_and_its_buyer_the_customer():
    # the layout of 增值税专用发票: the buyer's block (购买方, printed vertically) over the items,
    # the seller's (销售方) under them; "有限公司" glued to the name was no legal form (\b)
    doc = text_page(
        "53: 233 增值税专用发票 | 423 发票号码: 96423494",
        "69: 423 开具日期: 2015-12-25",
        "128: 43 购 名 称: 天开科技有限公司",
        "140: 43 买 纳税人识别号: 91122468MAL5TMJFXX",
        "171: 65 货物或应税劳务、 服务名称 | 300 数量 | 380 单价 | 440 金额",
        "185: 40 员工培训服务 | 300 1 | 380 7,167.00 | 440 7,167.00",
        "244: 43 合 计 | 440 ¥7,167.00",
        "283: 43 销 名 称: 飞利信网络有限公司",
        "295: 66 纳税人识别号: 91133345MAQ6LK8TK0",
    )
    assert COMPANY_RE.search("飞利信网络有限公司")
    fields = extract_rules(doc).fields
    assert fields["vendor_name"] == "飞利信网络有限公司"
    assert fields.get("customer_name") != "飞利信网络有限公司"


def test_a_slogan_line_over_a_chinese_name_is_no_part_of_it():
    doc = text_page(
        "40: 40 电子发票 (普通发票) | size 14",
        "62: 40 诚信经营 品质保证",
        "76: 40 巨奥信息有限公司",
        "90: 40 河北省璐县崇文齐齐哈尔街o座 260926",
        "400: 300 合计 | 480 ¥120.00",
    )
    assert extract_rules(doc).fields["vendor_name"] == "巨奥信息有限公司"


def test_a_name_set_apart_after_its_comma_is_read_whole():
    doc = text_page(
        "53: 49 DE SMET, | 115 DE MUYNCK EN YILMAZ BV",
        "64: 48 Annahof 229",
        "75: 49 2942 Montleban",
        "120: 279 FACTURE",
        "400: 300 Total TTC | 480 120,00 €",
    )
    assert extract_rules(doc).fields["vendor_name"] == "DE SMET, DE MUYNCK EN YILMAZ BV"


def test_a_name_wrapped_after_its_ampersand_is_read_whole():
    doc = text_page(
        "40: 40 Supermercados Castrillo &",
        "52: 40 Asociados S.Com.",
        "80: 40 Alameda de Hermenegildo Aranda 69",
        "92: 40 28001 Madrid",
        "400: 300 Total | 480 1.724,98 €",
    )
    assert extract_rules(doc).fields["vendor_name"] == "Supermercados Castrillo & Asociados S.Com."


def test_a_legal_form_alone_on_its_line_ends_the_name_above_it():
    doc = text_page(
        "24: 23 Supermercados Castrillo & Asociados | size 9",
        "36: 98 S.Com. | size 7",
        "47: 28 Alameda de Hermenegildo Aranda 69",
        "56: 90 30774 Soria",
        "400: 300 Total | 480 1.724,98 €",
    )
    assert extract_rules(doc).fields["vendor_name"] == "Supermercados Castrillo & Asociados S.Com."


def test_a_label_that_opens_a_line_also_opens_a_cell_of_a_line_ocr_joined():
    doc = ocr_page(
        "100: 80 Blum Hotz & Cie. | 700 Facture d'avoir",
        "150: 80 Tél: 032 246 40 16 | 700 Numéro: 10199",
        "180: 80 Email: sales@bader-group.ch | 700 Date d'émission: 12 juin 2025",
        "600: 300 Total TTC | 700 120,00 CHF",
    )
    assert extract_rules(doc).fields["invoice_number"] == "10199"


def test_without_a_total_label_the_cash_tendered_is_no_total():
    doc = ocr_page(
        "100: 80 KEDAI ELEKTRIK SDN BHD | size 30",
        "400: 80 00004285 5 16.00 | 500 80.00",
        "440: 80 00002348 4 14.00 | 500 56.00",
        "480: 80 Gross Amt: | 500 136.00",
        "520: 80 Net Amt : | 500 136.00",
        "560: 80 Received | 500 150.00",
        "600: 80 Change | 500 14.00",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("136.00")


def test_the_items_total_of_a_till_receipt_is_its_subtotal_and_the_rounded_net_total_the_total():
    """SROIE receipts 029 and 582 (training set): "2 Item(s) Total (MYR)" is the items' sum
    before the tax, no total; the receipt's total is the rounded line below the tax."""
    doc = ocr_page(
        "100: 80 SYARIKAT PERNIAGAAN GIN KEE | size 30",
        "400: 80 2 Item(s) Total (MYR) : | 500 17.93",
        "430: 80 SR @ 6% 2 | 400 17.93 | 500 1.08",
        "460: 80 Net Total (MYR) : | 500 19.01",
        "490: 80 Net Total Rounded (MYR) : | 500 19.00",
        "520: 80 Cash | 500 19.00",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("19.00")


def test_what_a_parking_machine_accepted_is_tendered_not_the_total():
    """SROIE receipts 584 and 587 (training set): "Accepted total 10.00" is the cash put in, the
    change given back 5.00; the ticket cost 5.00."""
    doc = ocr_page(
        "60: 40 Dion Realties Sdn Bhd (Co. No:20154-T)",
        "520: 40 Tax Invoice no. 7698/0601/00601",
        "593: 40 010100 Pay parking ticket 5.00 RH",
        "662: 40 Length of stay: 0 Dy. 0 Hr. 17 Min.",
        "771: 115 Anount Incl. GST 5.00 RM",
        "838: 115 Accepted total 10.00 RM",
        "874: 114 Change 5.00 RH",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("5.00")


def test_a_name_opening_with_an_ampersand_continues_the_line_above():
    doc = ocr_page(
        "100: 80 THE COFFEE BEAN | size 30",
        "132: 80 & TEA LEAF (M) SDN. BHD. | size 30",
        "200: 80 (426614-U)",
        "600: 300 Total | 450 14.00",
    )
    assert extract_rules(doc).fields["vendor_name"] == "THE COFFEE BEAN & TEA LEAF (M) SDN. BHD."


def test_after_a_deposit_the_amount_to_pay_is_the_balance_and_the_total_the_invoice_s():
    doc = text_page(
        "40: 40 Pulizie Rossi S.r.l.",
        "120: 40 N. documento FA22-8582",
        "324: 300 TOTALE | 480 Fr. 1'083.05",
        "336: 300 Acconto ricevuto | 480 -Fr. 350.00",
        "348: 300 Da pagare | 480 Fr. 733.05",
    )
    fields = extract_rules(doc).fields
    assert (fields["total_amount"], fields["balance_amount"]) == (Decimal("1083.05"), Decimal("733.05"))


def test_an_industrial_estate_is_no_tax_label_in_a_receipts_address():
    """ "ust" (a German tax label) stood inside "PERINDUSTRIAN" and ended the address there."""
    doc = ocr_page(
        "100: 90 MR D.I.Y. (JOHOR) SDN BHD | size 26",
        "130: 133 (CO.REG :933109-X) | size 26",
        "160: 50 LOT 1851-A & 1851-B, JALAN KPB 6, | size 26",
        "190: 59 KAWASAN PERINDUSTRIAN BALAKONG, | size 26",
        "220: 70 43300 SERI KEMBANGAN, SELANGOR | size 26",
        "250: 174 -INVOICE- | size 26",
        "600: 50 Total | 300 14.00",
    )
    assert extract_rules(doc).fields["vendor_address"] == (
        "LOT 1851-A & 1851-B, JALAN KPB 6, KAWASAN PERINDUSTRIAN BALAKONG, 43300 SERI KEMBANGAN, SELANGOR"
    )


def test_a_receipts_gst_number_above_its_address_is_passed_over():
    doc = ocr_page(
        "100: 99 B & BEST RESTAURANT | size 30",
        "140: 259 (001610235-P) | size 26",
        "175: 200 GST NO. : 001800839168 | size 26",
        "210: 128 NO.12,JALAN SS4C/5,PETALING JAYA | size 26",
        "245: 216 SELANGOR DARUL EHSAN | size 26",
        "280: 230 TEL:012-2060 778 | size 26",
        "315: 247 **TAX INVOICE** | size 26",
        "600: 50 Total | 300 14.00",
    )
    assert extract_rules(doc).fields["vendor_address"] == "NO.12,JALAN SS4C/5,PETALING JAYA, SELANGOR DARUL EHSAN"


def test_a_receipts_registration_and_brand_lines_are_no_address():
    """A bare company number ("1118258-K") and a line without digits or street words (a brand,
    "formerly known as", a licensee) between the name and the street are passed over; a
    phone after the city ends the address on its line."""
    doc = ocr_page(
        "100: 230 RESTAURANT JIAWEI SDN BHD | size 30",
        "140: 278 JIAWEI HOUSE | size 30",
        "180: 300 002693074-K | size 30",
        "220: 218 13, JLN TASIK UTAMA 8 | size 30",
        "260: 176 MEDAN NIAGA DAMAI SG BESI | size 30",
        "300: 200 57000 KL Tel No.: 03-387 3322 | size 30",
        "340: 351 INVOICE | size 30",
        "600: 50 Total | 300 14.00",
    )
    assert extract_rules(doc).fields["vendor_address"] == "13, JLN TASIK UTAMA 8, MEDAN NIAGA DAMAI SG BESI, 57000 KL"


def test_a_title_below_a_receipts_city_is_no_part_of_its_address():
    doc = ocr_page(
        "100: 90 KEDAI RUNCIT SOON HUAT SDN BHD | size 26",
        "130: 90 NO. 53, JALAN BESAR, | size 26",
        "160: 90 45600 BATANG BERJUNTAI | size 26",
        "190: 90 SIMPLIFIED TAX INVOICE | size 26",
        "600: 50 Total | 300 14.00",
    )
    assert extract_rules(doc).fields["vendor_address"] == "NO. 53, JALAN BESAR, 45600 BATANG BERJUNTAI"


def test_a_receipts_state_line_centred_under_its_postcode_line_belongs_to_its_address():
    """A receipt centres its header: the state under a postcode line that starts further left
    is still the address's last line; a web address there, or a line further down, is not."""
    doc = ocr_page(
        "100: 75 TEO HENG STATIONERY &BOOKS | size 26",
        "130: 122 NO. 53, JALAN BESAR, 45600 BATANG BERJUNTAI | size 26",
        "156: 214 SELANGOR DARUL EHSAN | size 26",
        "182: 153 TEL:03-3271 9872 | size 26",
        "600: 50 Total | 300 14.00",
    )
    assert extract_rules(doc).fields["vendor_address"] == (
        "NO. 53, JALAN BESAR, 45600 BATANG BERJUNTAI, SELANGOR DARUL EHSAN"
    )
    for row in ("156: 200 www.moonlightcake.com | size 26", "196: 160 PREPAY CHIT NUMBER | size 26"):
        doc = ocr_page(
            "100: 75 TEO HENG STATIONERY &BOOKS | size 26",
            "130: 122 NO. 53, JALAN BESAR, 45600 BATANG BERJUNTAI | size 26",
            row,
            "600: 50 Total | 300 14.00",
        )
        assert extract_rules(doc).fields["vendor_address"] == "NO. 53, JALAN BESAR, 45600 BATANG BERJUNTAI"


def test_an_ocr_address_line_is_cut_to_the_cells_under_the_name():
    """OCR joins a line across the page: the title or the invoice number printed beside the
    address ("Lieferantenstraße 20 ... RECHNUNG") is no part of it."""
    doc = ocr_page(
        "100: 70 Lieferant GmbH | size 20",
        "130: 70 Lieferantenstraße 20 | 900 RECHNUNG | size 20",
        "160: 70 80333 München | 800 Rechnungsnummer 471102 | size 20",
        "600: 50 Gesamtbetrag | 900 529,87",
        width=1200,
    )
    assert extract_rules(doc).fields["vendor_address"] == "Lieferantenstraße 20, 80333 München"


@pytest.mark.parametrize(
    "street, more",
    [
        ("LOT 1504, BATU 8 1/2, JALAN KLANG LAMA,", ["4600D PETALING JAYA, SELANGOR."]),  # OCR's D for 0
        ("L0T PT 1138,PT 33122,", ["BANDAR MAHKOTA CHERAS", "43200 CHERAS, SELANGOR"]),
    ],
)
def test_a_lot_number_that_looks_like_a_postcode_does_not_end_a_receipts_address(street, more):
    rows = [f"{130 + 30 * i}: 40 {text} | size 26" for i, text in enumerate([street, *more])]
    doc = ocr_page("100: 40 YONG SOON FATT S/B | size 26", *rows, "600: 40 Total | 300 14.00")
    assert extract_rules(doc).fields["vendor_address"] == ", ".join([street.rstrip(","), *more])


def test_a_receipts_owner_line_and_ocrs_te1_phone_are_no_address():
    """ "Dimiliki: ... sdn bhd 1110644-W" (owned by) above the street is passed over, as is a
    company with its registration number, a brand with a long number; "Te1:" (OCR's "Tel:") or a
    bare phone number ends the address."""
    owners = (
        "Dimiliki: banh mi cafe sdn bhd 1110644-W",
        "Farmasi Maluri S/B(587969-U)",
        "(Subang Jasa) 666770-U",
        "bakery 000965911.p",
    )
    for owner in owners:
        doc = ocr_page(
            "100: 200 Banh Mi CafE | size 26",
            f"130: 76 {owner} | size 26",
            "160: 169 No. 1 Jalan Puteri 7/10 | size 26",
            "190: 145 Bandar Puteri, 47100 Puchong | size 26",
            "220: 160 Te1:03-62584088 | size 26",
            "600: 50 Total | 300 14.00",
        )
        assert extract_rules(doc).fields["vendor_address"] == "No. 1 Jalan Puteri 7/10, Bandar Puteri, 47100 Puchong"
    doc = ocr_page(  # no postcode line to end it
        "100: 156 & BEST RESTAURANT | size 26",
        "130: 132 NO.12, JALAN SS4C/5,PETALING JAYA | size 26",
        "160: 161 SELANGOR DARUL EHSAN | size 26",
        "190: 180 :012-2060778 | size 26",
        "600: 50 Total | 300 14.00",
    )
    assert extract_rules(doc).fields["vendor_address"] == "NO.12, JALAN SS4C/5,PETALING JAYA, SELANGOR DARUL EHSAN"


def test_a_receipts_first_item_ends_an_address_without_a_postcode():
    doc = ocr_page(
        "100: 63 Watson's Personal Care Stores Sdn Bhd | size 26",
        "130: 139 USJ Summit, Subang (SS) | size 26",
        "160: 54 22241 WS CUT SCISSORS 18.00 S | size 26",
        "190: 54 64542 QVS TEMPO TWEEZER 17.90 ss | size 26",
        "600: 50 Total | 300 35.90",
    )
    assert extract_rules(doc).fields["vendor_address"] == "USJ Summit, Subang (SS)"


def test_a_text_layer_address_centred_under_the_name_or_set_flush_right_is_read():
    """Under a name that starts further in (a centred receipt) or ends where its lines end (a
    letterhead set flush right), the address lines do not start where the name starts."""
    doc = text_page(
        "25: 96 Drewes | size 8",
        "37: 75 Schmiedtring 7/6 | size 8",
        "48: 63 04369 Marktheidenfeld | size 8",
        "58: 87 Deutschland | size 8",
        "69: 61 Telefon : (09790) 916548 | size 8",
        "300: 20 Summe | 180 354,00",
    )
    assert extract_rules(doc).fields["vendor_address"] == "Schmiedtring 7/6, 04369 Marktheidenfeld"
    doc = text_page(
        "36: 371 Hofer Steiner Treuhand AG | size 10",  # ends at x 501, as the lines below
        "52: 424 Wüthrichstrasse 61 | size 8",
        "62: 437 2048 Volketswil | size 8",
        "129: 66 Hofer Steiner Treuhand AG · Wüthrichstrasse 61 · 2048 Volketswil | size 6",
        "600: 300 Total | 480 CHF 120.00",
    )
    assert extract_rules(doc).fields["vendor_address"] == "Wüthrichstrasse 61, 2048 Volketswil"


def test_the_addressees_block_under_the_vendors_name_is_no_vendor_address():
    """ "Herrn" on its own line opens the addressee's block (DIN 5008): the letterhead has no
    address of its own here, and the customer's is not the vendor's."""
    doc = text_page(
        "73: 72 MVM Musterhafter",
        "84: 71 Versicherungsverein Musterstadt a.G.",
        "107: 72 Herrn",
        "119: 72 Max Mustermann",
        "130: 72 Musterstr. 11",
        "142: 72 12346 Bad Musterhausen",
        "600: 300 Gesamtbetrag | 480 529,87 EUR",
    )
    fields = extract_rules(doc).fields
    assert fields["vendor_name"] == "Versicherungsverein Musterstadt a.G."
    assert "vendor_address" not in fields


def test_an_ibans_country_and_check_digits_are_no_vat_id():
    """ "IBAN IT29 5023 6483 ..." starts like an Italian VAT id; the VAT id is the one after
    "P.IVA" (which the label lexicon reads as the VAT amount's label)."""
    doc = text_page(
        "40: 50 Collodi S.r.l.",
        "52: 50 Canale Collodi, 65 | 250 IBAN IT29 5023 6483 0575 4714 21",
        "64: 50 43017 Feriole | 250 P.IVA IT98184067845",
        "600: 300 Totale | 480 120,00 €",
    )
    assert extract_rules(doc).fields["vendor_tax_id"] == "IT98184067845"


def test_a_sender_line_with_an_eircode_still_heads_the_addressee():
    doc = text_page(
        "36: 465 Diskin LLC",
        "129: 66 Diskin LLC · 79 McDowell Street · E6489H5 Eoghan Ville | size 6",
        "143: 66 Shine, O'Shea and O'Kennedy",
        "155: 66 10 MacConnaghy Street",
        "600: 300 Total | 480 EUR 120.00",
    )
    assert extract_rules(doc).fields["customer_name"] == "Shine, O'Shea and O'Kennedy"


def test_a_vendor_email_named_contact_is_the_vendors():
    """ "contact" on a line is a customer's or contact person's label; the address itself may be
    "contact@...": it is read (the word outside the address still counts against it)."""
    doc = text_page(
        "60: 50 HAUSER ALBRECHT AG",
        "72: 50 Wüthrichstrasse 61 | 250 contact@bieri.ch | 400 IBAN CH86 7741 0256 8656 9860 05",
        "84: 50 2048 Volketswil",
        "400: 300 Total | 480 CHF 120.00",
    )
    assert extract_rules(doc).fields["vendor_email"] == "contact@bieri.ch"
    doc = text_page(
        "60: 50 BIERI AG",
        "72: 50 Wüthrichstrasse 61",
        "300: 50 Contact person: anna@example.org",
        "400: 300 Total | 480 CHF 120.00",
    )
    assert extract_rules(doc).fields.get("vendor_email") is None


@pytest.mark.parametrize(
    "row",
    [
        "46: 84 电话: 15102760844",
        "46: 84 www.xindashop.com.cn",
        "46: 84 โทร: 0-2360-6115",
        "46: 84 เลขประจำตัวผู้เสียภาษี: 0449641964995",
    ],
)
def test_a_web_address_or_a_chinese_or_thai_phone_label_ends_the_address(row):
    doc = text_page(
        "24: 72 毕博诚网络有限公司",
        "36: 56 海南省峰市上街大冶街g座 155803",
        row,
        "71: 95 收款收据",
        "300: 15 合计 | 150 368.17",
    )
    assert extract_rules(doc).fields["vendor_address"] == "海南省峰市上街大冶街g座 155803"


@pytest.mark.parametrize(
    "row, terms",
    [
        ("500: 40 Zahlbar ohne Abzug bis 04.07.2015", "Zahlbar ohne Abzug bis 04.07.2015"),
        ("500: 40 Condizioni di pagamento: Pagamento a 7 giorni data fattura", "Pagamento a 7 giorni data fattura"),
        ("500: 40 IBAN DE02120300000000202051 | 400 Net 15 days", "Net 15 days"),
        ("500: 40 ชำระภายใน 14 วัน", "ชําระภายใน 14 วัน"),  # as NFKC spells it
        ("500: 40 Betaling: Betaaltermijn 14 dagen", "Betaaltermijn 14 dagen"),
        ("500: 40 结算方式: 开票后7天内付款", "开票后7天内付款"),
        ("500: 40 付款期限：30天", "付款期限:30天"),  # NFKC: the full-width colon
        ("500: 40 Forma de pago: Pago a30 días", "Pago a30 días"),  # OCR glued "a30"
        ("500: 40 .Bei Zahlung innerhalb 14 Tagen 2,0% Skonto .", "Bei Zahlung innerhalb 14 Tagen 2,0% Skonto"),
    ],
)
def test_payment_terms_that_need_no_label(row, terms):
    import unicodedata

    doc = text_page("40: 40 ACME Widgets Ltd.", unicodedata.normalize("NFKC", row), "600: 300 Total | 480 120.00")
    assert extract_rules(doc).fields["payment_terms"] == terms


def test_a_word_in_a_sentence_is_no_payment_terms():
    doc = text_page(
        "40: 40 ACME Widgets Ltd.",
        "500: 40 Thank you, the amount is payable by transfer",
        "600: 300 Total | 480 120.00",
    )
    assert "payment_terms" not in extract_rules(doc).fields


def test_a_salutation_on_its_own_line_opens_the_addressees_name():
    doc = ocr_page(
        "100: 80 Verkäufer:",
        "130: 80 MVM Musterhafter Versicherungsverein a.G.",
        "160: 80 Musterstr. 12",
        "190: 80 DE 12345 Musterstadt",
        "250: 80 Käufer/Leistungsempfänger:",
        "280: 80 Herrn",
        "300: 80 Max Mustermann",
        "320: 80 Musterstr. 11",
        "600: 300 Gesamtbetrag | 700 120,00 EUR",
    )
    assert extract_rules(doc).fields["customer_name"] == "Herrn Max Mustermann"


def test_the_addressee_under_a_window_envelopes_sender_line_is_the_customer():
    """DIN 5008: the sender's name, street and city set small on one line above the address
    field; no label names the customer."""
    doc = text_page(
        "37: 347 Bühler Schnyder GmbH | size 12",
        "55: 457 Sigriststrasse 35",
        "67: 490 3487 Rüti",
        "129: 66 Bühler Schnyder GmbH · Sigriststrasse 35 · 3487 Rüti | size 6",
        "144: 66 Gerber Meili GmbH | 344 Numéro de facture: 41724",
        "157: 66 Stockerstrasse 70 | 344 Date de facture: 18/03/2025",
        "171: 66 3803 Uster",
        "600: 300 Total TTC | 480 120,00 CHF",
    )
    fields = extract_rules(doc).fields
    assert fields["customer_name"] == "Gerber Meili GmbH"
    assert fields["vendor_name"] == "Bühler Schnyder GmbH"


def test_a_receipt_s_total_after_rounding_is_its_total():
    """SROIE receipt 091 (training set) as ppocr read it: "Total After Rounding" is one total
    label; its "Rounding" took the amount as a rounding adjustment, and a stamp had glued "Total"
    and "Rounding Adjustment 0.00" into one line whose last amount was read as the total."""
    doc = ocr_page(
        "60: 40 TRI SHAAS SDN BHD | size 30",
        "758: 10 Item Count | 418 18",
        "806: 9 Rounding Adjustment Total MART MYDIN | 383 85.10 | 420 0.00",
        "831: 10 Total After Rounding | 383 85.10",
        "881: 8 Cash | 374 100.10",
        "929: 7 CHANGE | 384 15.00",
    )
    assert extract_rules(doc).fields["total_amount"] == Decimal("85.10")


def test_the_tax_word_of_a_ferd_sum_label_qualifies_it():
    """A FeRD ZUGFeRD 1.0 page (training set): "Rechnungssumme Netto (excl. USt.)" is the net sum
    and "Rechnungssumme Brutto (inkl. USt.)" the total; their "USt." took the amounts as tax."""
    doc = text_page(
        "40: 40 Lieferant GmbH",
        "300: 60 Rechnungssumme Netto (excl. USt.) | 500 198,00",
        "320: 60 Steuerbasisbetrag USt. 19% | 450 198,00 | 500 37,62",
        "340: 60 Rechnungssumme Brutto (inkl. USt.) | 500 235,62",
    )
    fields = extract_rules(doc).fields
    assert (fields["subtotal"], fields["tax_amount"], fields["total_amount"]) == (
        Decimal("198.00"),
        Decimal("37.62"),
        Decimal("235.62"),
    )


def test_a_gtin_below_the_totals_is_no_amount():
    """A GTIN ("GTIN: 4012345001235") below a total label is a barcode number (``MAX_AMOUNT``, ``money_amounts``),
    not the total the label introduces."""
    doc = text_page(
        "40: 40 Lieferant GmbH",
        "300: 60 Rechnungssumme",
        "320: 60 GTIN: 4012345001235",
    )
    assert extract_rules(doc).fields.get("total_amount") != Decimal("4012345001235")


def test_a_total_whose_tax_word_is_bracketed_is_one_total_label():
    """Guardian's receipts (SROIE 171, 312, 386, 416, training set): "TOTAL (GST INCL)" is one
    total label, as "Total incl. GST" is, not a total label followed by a tax label."""
    from pipeline.rules.layout import annotated_lines

    doc = ocr_page(
        "60: 40 GUARDIAN HEALTH AND BEAUTY SDN BHD | size 30",
        "500: 40 SUBTOTAL | 400 2.56",
        "530: 40 TOTAL (GST INCL) | 400 2.56",
        "560: 40 CASH | 400 50.55",
    )
    line = next(ln for ln in annotated_lines(doc) if ln.text.startswith("TOTAL"))
    assert [(label.kind, line.text[label.start : label.end]) for label in line.labels] == [
        ("total_amount", "TOTAL (GST INCL)")
    ]
