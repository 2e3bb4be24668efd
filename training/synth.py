"""Synthetic invoices, receipts and credit notes with their ground truth, for training the
extraction model on what real documents vary in: language, layout, fonts, number and date
formats, currencies, tax rates, discounts, charges, payments.

    python -m training.synth --n 40 --seed 1 --out DIR [--scans] [--dpi 200] [--series K]

writes ``DIR/<stem>.pdf`` (text-layer PDF), ``DIR/<stem>.json`` (truth) and, with ``--scans``,
``DIR/<stem>.jpg`` (page 1 as a noisy scan). With ``--series K`` the documents are ``n / K``
repeat vendors of ``K`` documents each (``generate_series``), and ``DIR/series.txt``
(``training.dataset.SERIES_MARK``) says so: ``training.dataset`` then groups a vendor's
documents (their stem's number // 1000). Nothing else goes into DIR: ``training.dataset``
reads every ``*.json`` there as a truth file.

Truth follows ``shared/datasets/README.md``: exactly the schema keys, ISO dates, amounts as
numbers, ``null`` where the print does not show a value. Conventions chosen here:

- ``line_total`` is the printed line amount: net, quantity x unit price - line discount;
  ``unit_price`` is the printed (gross of line discount) price; a line's ``discount`` is money.
- ``subtotal`` is the sum of the line totals (before document discounts and charges); a print
  may also show the net after them ("Total HT"), as the e-invoice prints do.
- Credit notes keep the e-invoice sign (type 381): truth amounts are positive, whether the
  print shows them positive or negative (as the Factur-X "Avoir" sample does).
- A receipt's ``total_amount`` is the amount after cash rounding; cash tendered and change are
  printed but are no schema field; ``paid_amount``/``balance_amount`` stay null on receipts.

Each document is first a ``Plan`` (everything it shows, from one seeded RNG); its truth and its
PDF are both read off the plan. Who owns what (each module imports only those listed before it):

- ``training.synth_locale``: the per-language labels, formats and catalogues, and the locale
  value types a plan holds (``Country``, ``NumFmt``, ``Cur``).
- ``training.synth_types``: the plan types (``Plan``, ``Party``, ``Item``, ``Totals``) and
  ``line_tax``.
- ``training.synth_render``: the page layouts.
- this module: the seeded choices that fill a plan, its truth, ``SynthDoc``, scans, the command.

Uses fpdf2 and faker (the ``train`` extra) and fonts: DejaVu (system, fonts-dejavu-core) for
Latin text, Noto Sans/Serif SC (pip) for Chinese, Noto Sans Thai and Sarabun (pip) for Thai.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

from pipeline.schema import HEADER_FIELDS
from training.synth_locale import (
    BRAND_TAGLINES,
    COUNTRIES,
    COUNTRY_NAMES,
    DATE_STYLES,
    DETAILS,
    ITEMS,
    LABELS,
    LANG_COUNTRIES,
    MY_PREFIX,
    MY_SUFFIX,
    MY_TRADES,
    MY_WORDS,
    PRICE_SCALE,
    ROMAN_WORDS,
    SUFFIX_SYMBOLS,
    SYMBOLS,
    TERMS,
    TLD,
    UNITS,
    ZERO,
    Country,
    Cur,
    D,
    NumFmt,
    faker_for,
    make_tax_id,
    money,
)
from training.synth_render import render
from training.synth_types import Item, Party, Plan, Totals, line_tax

TRUTH_KEYS = (*HEADER_FIELDS, "line_items")  # the dataset truth files' keys, in order


LANGS = ("en", "de", "fr", "nl", "es", "it", "zh", "th")


KINDS = ("invoice", "receipt", "credit_note")


# Weighted cycles (shuffled per seed): every language and kind shows up in any 19 documents.
_LANG_CYCLE = ("en",) * 4 + ("de",) * 3 + ("fr", "nl", "es", "it", "zh", "th") * 2


_KIND_CYCLE = ("invoice",) * 6 + ("receipt",) * 2 + ("credit_note",)


@dataclass
class SynthDoc:
    """One synthetic document: ``stem`` ("synth-00042-de"), ``lang`` (one of LANGS), ``kind``
    (one of KINDS), ``truth`` (the schema keys of the dataset truth files, in their order) and
    ``pdf`` (the one- or multi-page text-layer PDF, bytes)."""

    stem: str
    lang: str
    kind: str
    truth: dict
    pdf: bytes


def _weighted(rng: random.Random, table: tuple[tuple[object, float], ...]):
    return rng.choices([value for value, _ in table], [weight for _, weight in table])[0]


def _pick_labels(rng: random.Random, lang: str) -> dict[str, str]:
    labels = {key: rng.choice(values) for key, values in LABELS[lang].items()}
    others = [text for text in LABELS[lang]["net_total"] if text != labels["subtotal"]]
    if labels["net_total"] == labels["subtotal"]:
        labels["net_total"] = rng.choice(others)
    return labels


def _drop_vat_words(plan: Plan) -> None:
    """US documents have sales tax, not VAT: no "VAT" in their labels."""
    for key in ("subtotal", "net_total", "total", "tax_id"):
        if "VAT" in plan.label[key]:
            plan.label[key] = {"subtotal": "Subtotal", "net_total": "Net amount", "total": "Total", "tax_id": "Tax ID"}[
                key
            ]


def _split_address(text: str) -> list[str]:
    lines = [part.strip() for part in text.replace(";", "\n").split("\n") if part.strip()]
    return lines


def _postal(fake, rng: random.Random, country: Country, lang: str) -> list[str]:
    """Postal address lines of a party in ``country`` (street lines, postcode city, maybe country)."""
    code = country.code
    if code == "CN":
        return [fake.address()]
    if code == "TH":
        parts = fake.address().replace("\n", " ").split(" ")
        cut = max(1, len(parts) // 2)
        return [" ".join(parts[:cut]), " ".join(parts[cut:])]
    if code == "MY":
        return _my_address(fake, rng)
    street = _split_address(fake.street_address())
    if code == "US":
        city = f"{fake.city()}, {fake.state_abbr()} {fake.postcode()}"
    elif code == "GB":
        city = f"{fake.city()} {fake.postcode()}"
    elif code == "JP":
        street = [
            f"{rng.randrange(1, 9)}-{rng.randrange(1, 30)}-{rng.randrange(1, 20)} "
            f"{rng.choice(('Shibuya', 'Minato', 'Chuo', 'Shinjuku'))}"
        ]
        city = f"Tokyo {rng.randrange(100, 200)}-{rng.randrange(0, 10000):04d}"
    else:
        city = f"{fake.postcode()} {fake.city()}"
    lines = street + [city]
    if rng.random() < 0.35:
        lines.append(COUNTRY_NAMES.get(code, {}).get(lang) or COUNTRY_NAMES.get(code, {}).get("en", code))
    return lines


def _my_address(fake, rng: random.Random) -> list[str]:
    parts = [part.strip().upper() for part in fake.address().replace("\n", ", ").split(",") if part.strip()]
    if rng.random() < 0.5 and len(parts) > 3:
        parts = [parts[0] + ", " + parts[1]] + parts[2:]
    return parts[:4]


def _vendor(plan: Plan, fake) -> Party:
    rng, lang, code = plan.rng, plan.lang, plan.country.code
    name = fake.company()
    if code == "MY":
        name = _my_shop_name(rng)
    elif code in ("US", "GB", "IE", "JP") and rng.random() < 0.5:
        name = f"{fake.last_name()} {rng.choice(('Ltd', 'Limited', 'LLC', 'Inc.', 'Co., Ltd.', 'Group Ltd'))}"
        if code == "JP":
            first = rng.choice(("Sakura", "Fuji", "Kobe", "Nippon", "Yamato"))
            name = f"{first} {rng.choice(('Trading', 'Systems', 'Electronics'))} Co., Ltd."
    party = Party(name, _postal(fake, rng, plan.country, lang))
    party.tax_id = make_tax_id(rng, code)
    slug = "".join(ch for ch in fake.last_name().lower() if ch.isascii() and ch.isalpha())
    slug = slug or rng.choice(ROMAN_WORDS.get(lang, ("nova",)))
    domain = (
        fake.domain_name()
        if not slug
        else f"{slug}{rng.choice(('', '-group', 'shop', 'tech'))}.{rng.choice(TLD.get(code, ('com',)))}"
    )
    party.email = f"{rng.choice(('info', 'billing', 'invoice', 'accounts', 'contact', 'sales'))}@{domain}"
    party.web = "www." + domain
    party.phone = (
        fake.phone_number()
        if code != "MY"
        else f"0{rng.randint(3, 9)}-{rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"
    )
    if rng.random() < 0.35 and code != "MY":
        party.brand = (
            slug.upper() if rng.random() < 0.6 else slug.capitalize() + rng.choice(("Tec", "Pro", "ware", "line"))
        )
        if rng.random() < 0.5:
            party.tagline = rng.choice(BRAND_TAGLINES[lang]).format(y=rng.randrange(1950, 2012))
    party.bank = _bank(rng, code)
    return party


# Domestic bank details where IBANs are not the custom: the template, and the lengths of the
# digit groups it prints (taken in turn from 18 random digits).
_ACCOUNT_FORMATS = {
    "GB": ("Sort code {}-{}-{}, Account {}", (2, 2, 2, 8)),
    "CN": ("中国工商银行上海分行 {} {} {} {}", (4, 4, 4, 4)),
    "TH": ("ธนาคารกสิกรไทย {}-{}-{}-{}", (3, 1, 5, 1)),
}
_OTHER_ACCOUNT = ("Account {}, Routing {}", (10, 8))


def _bank(rng: random.Random, code: str) -> str:
    digits = "".join(str(rng.randrange(10)) for _ in range(18))
    if code in ("DE", "AT", "FR", "BE", "NL", "ES", "IT", "IE", "CH"):
        iban = f"{'NL' if code == 'NL' else code}{rng.randrange(10, 99)}{digits}"
        return "IBAN " + " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
    template, lengths = _ACCOUNT_FORMATS.get(code, _OTHER_ACCOUNT)
    groups, at = [], 0
    for length in lengths:
        groups.append(digits[at : at + length])
        at += length
    return template.format(*groups)


def _my_shop_name(rng: random.Random) -> str:
    words = " ".join(rng.sample(MY_WORDS, 2))
    name = f"{rng.choice(MY_PREFIX)}{words} {rng.choice(MY_TRADES)} {rng.choice(MY_SUFFIX)}"
    return " ".join(name.split())


def _customer(plan: Plan, fake) -> Party:
    rng = plan.rng
    name = fake.company() if rng.random() < 0.7 else fake.name()
    return Party(name, _postal(fake, rng, plan.country, plan.lang))


def _number(rng: random.Random, kind: str, lang: str, issued: date, scheme: random.Random | None = None) -> str:
    """A document number; ``scheme`` (a vendor's, fresh for each of its documents) picks the
    pattern and prefix, so that one vendor numbers alike."""
    y, n = issued.year, rng.randrange(1, 99999)
    pick = scheme or rng
    if lang == "zh" and kind != "receipt":
        return f"{rng.randrange(10**7, 10**8):08d}" if pick.random() < 0.7 else f"{rng.randrange(10**19, 10**20)}"
    prefix = {"credit_note": ("CN", "GS", "AV", "NC", "CR"), "receipt": ("R", "CS", "OR", "B")}.get(
        kind, ("INV", "RE", "F", "FA", "IV")
    )
    p = pick.choice(prefix)
    patterns = (
        f"{p}-{y}-{n:05d}",
        f"{y}{n:05d}",
        f"{p}{y % 100:02d}-{n:04d}",
        f"{p}{y}-{n:04d}",
        f"{n:07d}",
        f"{p}/{y}/{issued.month:02d}/{n % 10000:04d}",
        f"{n % 100000}",
        f"{p}{n:06d}",
    )
    if lang == "th":
        patterns += (f"{p}{y + 543}/{n:05d}", f"IV{(y + 543) % 100}{issued.month:02d}-{n % 10000:04d}")
    return pick.choice(patterns)


def _quantity(rng: random.Random, unit: str) -> Decimal:
    if unit == "h":
        return D(rng.choice((1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 40))) / (2 if rng.random() < 0.3 else 1)
    if unit in ("kg", "m", "l"):
        return money(D(rng.uniform(0.5, 60)), rng.choice((0, 1, 2)))
    if unit == "mo":
        return D(rng.choice((1, 1, 1, 3, 6, 12)))
    return D(min(int(rng.paretovariate(1.3)), 200)) if rng.random() < 0.85 else D(rng.randrange(10, 120))


def _price(rng: random.Random, lo: float, hi: float, scale: float, places: int) -> Decimal:
    value = rng.uniform(lo, hi) * scale
    if places == 0:
        return money(D(round(value / 10) * 10 or 10), 0)
    style = rng.random()
    if style < 0.3:
        return money(D(int(value)) + D("0.99") if value > 3 else D(value))
    if style < 0.55:
        return money(D(int(value)))
    if style < 0.7:
        return money(D(int(value)) + D("0.90") if value > 3 else D(value))
    return money(D(value))


def _item_count(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.55:
        return rng.randint(1, 3)
    if roll < 0.85:
        return rng.randint(4, 8)
    if roll < 0.96:
        return rng.randint(9, 20)
    return rng.randint(21, 40)


def _items(plan: Plan) -> list[Item]:
    rng, style = plan.rng, plan.style
    catalogue = ITEMS[style]
    rates = [D(rate) for rate in plan.country.rates]
    multi = len(rates) > 1 and rng.random() < 0.3 and plan.country.code != "US"
    line_disc = rng.random() < 0.12 and plan.kind != "receipt"
    items = []
    receipt = plan.kind == "receipt"
    if receipt:
        catalogue = [entry for entry in catalogue if entry[1] in ("pc", "kg", "l", "box", "set") and entry[3] < 200]
    for _ in range(_item_count(rng) if not receipt else rng.randint(1, 9)):
        desc, unit_key, lo, hi = rng.choice(catalogue)
        if not receipt and rng.random() < 0.2:
            desc = f"{desc}, {_detail(plan)}" if plan.lang not in ("zh", "th") else f"{desc} {_detail(plan)}"
        if receipt:
            qty = D(rng.choice((1, 1, 1, 1, 2, 2, 3, 4, 6))) if unit_key != "kg" else money(D(rng.uniform(0.2, 2.5)), 3)
        else:
            qty = _quantity(rng, unit_key)
        if plan.fmt.places == 0:  # yen: whole quantities, so line totals need no rounding
            qty = max(D(1), qty.to_integral_value())
        price = _price(rng, lo, hi, 1 if style == "my" else PRICE_SCALE[plan.cur.code], plan.fmt.places)
        rate = rates[0] if not multi or rng.random() < 0.6 else rng.choice(rates[1:])
        pct = D(rng.choice((5, 10, 10, 15, 20, 25, 50))) if line_disc and rng.random() < 0.5 else ZERO
        gross = money(qty * price, plan.fmt.places)
        disc = money(gross * pct / 100, plan.fmt.places)
        sku = _sku(rng) if rng.random() < 0.9 else None
        unit = plan.units.get(unit_key)
        items.append(Item(desc, qty, unit, price, pct, disc, rate, gross - disc, sku))
    return items


def _detail(plan: Plan) -> str:
    rng = plan.rng
    start = plan.issued - timedelta(days=rng.randrange(20, 60))
    return rng.choice(DETAILS[plan.lang]).format(
        ref=f"{rng.choice(('Q', 'AN', 'DEV', 'P'))}-{rng.randrange(1000, 99999)}",
        d=plan.d(start),
        d2=plan.d(start + timedelta(days=29)),
        sn=f"{rng.choice('ABCDEFGHKLMNPRSTXZ')}{rng.randrange(10**7, 10**8)}",
    )


def _sku(rng: random.Random) -> str:
    style = rng.random()
    if style < 0.3:
        return f"{rng.randrange(10**12, 10**13)}"  # EAN-13
    if style < 0.6:
        return f"{''.join(rng.choices('ABCDEFGHKLMNPRSTUVWXYZ', k=rng.randint(2, 4)))}{rng.randrange(10, 9999)}"
    return f"{rng.randrange(100, 99999):05d}-{rng.randrange(10, 99)}"


def _totals(plan: Plan) -> Totals:
    """Net pricing: line totals -> subtotal - discount + charges, tax per rate -> total."""
    rng, places, items = plan.rng, plan.fmt.places, plan.items
    tot = Totals(subtotal=sum((item.total for item in items), ZERO))
    if plan.layout == "fapiao":
        return _fapiao_totals(plan, tot)
    if plan.kind == "invoice" and rng.random() < 0.2:
        tot.disc_pct = D(rng.choice((2, 3, 5, 5, 10, 15)))
    if plan.kind != "credit_note" and rng.random() < 0.18:
        tot.shipping = money(
            D(rng.choice((4.9, 5.95, 6.5, 9.9, 12, 15, 25, 49))) * D(str(PRICE_SCALE[plan.cur.code])), places
        )
    if rng.random() < (0.35 if plan.style == "my" else 0.05):
        tot.service_pct = D(10)
        tot.service = money(tot.subtotal * tot.service_pct / 100, places)
    reverse = plan.show.get("reverse", False)
    standard = D(0) if reverse else D(plan.country.rates[0])
    bases: dict[Decimal, Decimal] = {}
    for item in items:
        rate = ZERO if reverse else item.rate
        bases[rate] = bases.get(rate, ZERO) + item.total
    for rate, base in sorted(bases.items(), reverse=True):
        disc = money(base * tot.disc_pct / 100, places)
        tot.discount += disc
        charges = tot.shipping + tot.service if rate == standard else ZERO
        net = base - disc + charges
        tot.taxes.append((rate, net, money(net * rate / 100, places)))
    if standard not in bases and (tot.shipping or tot.service):
        net = tot.shipping + tot.service
        tot.taxes.append((standard, net, money(net * standard / 100, places)))
    tot.tax = sum((tax for _, _, tax in tot.taxes), ZERO)
    tot.total = tot.subtotal - tot.discount + tot.shipping + tot.service + tot.tax
    if plan.style == "my" or plan.cur.code == "CHF" and plan.kind == "receipt":
        _cash_round(tot)
    return tot


def _fapiao_totals(plan: Plan, tot: Totals) -> Totals:
    """A fapiao rounds the tax of each line and adds those up; no document discounts or charges."""
    for rate in sorted({item.rate for item in plan.items}, reverse=True):
        lines = [item for item in plan.items if item.rate == rate]
        base = sum((item.total for item in lines), ZERO)
        tot.taxes.append((rate, base, sum((line_tax(item, plan.fmt.places) for item in lines), ZERO)))
    tot.tax = sum((tax for _, _, tax in tot.taxes), ZERO)
    tot.total = tot.subtotal + tot.tax
    return tot


def _inclusive_totals(plan: Plan) -> Totals:
    """Receipt pricing: line totals include tax; the tax is taken out per rate."""
    places = plan.fmt.places
    gross = sum((item.total for item in plan.items), ZERO)
    tot = Totals(inclusive=True)
    by_rate: dict[Decimal, Decimal] = {}
    for item in plan.items:
        by_rate[item.rate] = by_rate.get(item.rate, ZERO) + item.total
    for rate, amount in sorted(by_rate.items(), reverse=True):
        tax = money(amount * rate / (100 + rate), places)
        tot.taxes.append((rate, amount - tax, tax))
    tot.tax = sum((tax for _, _, tax in tot.taxes), ZERO)
    tot.subtotal = gross - tot.tax
    tot.total = gross
    if plan.style == "my" or plan.cur.code == "CHF":
        _cash_round(tot)
    return tot


def _cash_round(tot: Totals) -> None:
    """Round the total to 5 cents (Malaysia, Switzerland); the difference is printed as rounding."""
    rounded = money(tot.total * 20, 0) / 20
    tot.rounding = rounded - tot.total
    tot.total = money(rounded)


def _payments(plan: Plan) -> None:
    rng, tot, places = plan.rng, plan.totals, plan.fmt.places
    if plan.kind == "receipt":
        if rng.random() < 0.65:
            step = D(10) ** (3 if places == 0 else 0) * rng.choice((1, 5, 10, 20, 50, 100))
            cash = ((tot.total // step) + (1 if rng.random() < 0.85 else 0)) * step
            tot.cash = max(cash, tot.total)
            tot.change = tot.cash - tot.total
        return
    roll = rng.random()
    if plan.kind == "invoice" and roll < 0.12:
        tot.paid, tot.balance = tot.total, ZERO
        plan.show["paid_stamp"] = rng.random() < 0.6
    elif plan.kind == "invoice" and roll < 0.22 and tot.total > 50:
        step = D(10) ** (3 if places == 0 else 1) * rng.choice((1, 5, 10))
        paid = money((tot.total * D(rng.uniform(0.1, 0.6))) // step * step, places)
        tot.paid = paid if paid > 0 else ZERO
        tot.balance = tot.total - tot.paid
    elif rng.random() < 0.5:
        tot.balance = tot.total


def _columns(plan: Plan) -> tuple[str, ...]:
    rng = plan.rng
    if plan.kind == "receipt":
        return (("sku",) if rng.random() < 0.3 else ()) + ("desc", "qty", "price", "amount")
    cols = []
    if rng.random() < 0.4:
        cols.append("pos")
    if rng.random() < 0.35:
        cols.append("sku")
    cols.append("desc")
    priced = rng.random() < 0.88
    if priced:
        cols.append("qty")
        if rng.random() < 0.5 or plan.layout == "fapiao":
            cols.append("unit")
        cols.append("price")
    if any(item.disc for item in plan.items):
        cols.append("line_disc")
    rates = {item.rate for item in plan.items}
    if plan.layout == "fapiao" or len(rates) > 1 or rng.random() < 0.3:
        cols.append("rate")
    cols.append("amount")
    return tuple(cols)


def _choose_layout(rng: random.Random, kind: str, lang: str) -> str:
    if kind == "receipt":
        return "receipt"
    table = [("classic", 3), ("modern", 3), ("letter", 3), ("right", 2), ("mono", 1.5), ("boxed", 2)]
    if lang == "zh":
        table.append(("fapiao", 6))
    if lang in ("zh", "th"):
        table = [(name, weight) for name, weight in table if name != "mono"]
    return _weighted(rng, tuple(table))


def _currency_display(rng: random.Random, code: str, lang: str) -> Cur:
    symbols = SYMBOLS[code]
    symbol = rng.choice(symbols)
    if code == "CNY" and lang != "zh":
        symbol = rng.choice(("¥", "RMB"))
    if code == "THB" and lang != "th":
        symbol = "฿"
    modes = ["code_before", "code_after", "sym_before", "sym_after"]
    if symbol in SUFFIX_SYMBOLS:
        mode = "sym_after"
    elif lang in ("en", "zh", "th", "nl") or code in ("MYR", "GBP", "USD", "CNY", "JPY"):
        mode = rng.choice(("sym_before", "sym_before", "code_before", "code_after"))
    else:
        mode = rng.choice(modes + ["sym_after", "sym_after"])
    return Cur(code, symbol, mode)


# What stays the same on every document of one vendor (``generate_series``): the print's look
# and the parties; the rest (number, dates, items, amounts, payments) is drawn per document.
_HOUSE_ATTRS = ("style", "layout", "country", "fmt", "cur", "label", "units", "date_style")
_HOUSE_SHOWS = (
    "tax_id", "email", "phone", "web", "country", "rate_in_label", "tax_base", "bank", "thanks",
    "currency_line", "table_currency", "brand_over_name", "cur_rows", "disc_as_pct", "terms_in_meta",
)  # fmt: skip


def _plan(index: int, seed: int, lang: str, kind: str, house: Plan | None = None, series: int | None = None) -> Plan:
    """Document ``index``'s plan; with ``house`` (the first document of its vendor), the print's
    look and the parties are the house's (``_HOUSE_ATTRS``, ``_HOUSE_SHOWS``); ``series`` (the
    vendor's number) fixes the numbering scheme."""
    rng = random.Random(f"synth:{seed}:{index}")
    style = "my" if lang == "en" and kind == "receipt" and rng.random() < 0.8 else lang
    country = COUNTRIES["MY" if style == "my" else rng.choice(LANG_COUNTRIES[lang])]
    if style != "my" and country.code == "MY":
        country = COUNTRIES["US"]
    thousands, decimal = rng.choice(country.numfmt)
    places = 0 if country.currency == "JPY" else 2
    issued = _issue_date(rng, style)
    if style == "my" and issued.year > 2018:  # after GST: sales and service tax, no GST id on receipts
        country = Country("MY", "en_MS", "MYR", ("6",) if rng.random() < 0.3 else ("0",), ((",", "."),))
    cur = _currency_display(rng, country.currency, lang)
    label = _pick_labels(rng, lang)
    if style == "my":
        cur = Cur("MYR", "RM", rng.choice(("sym_before", "sym_before", "code_before")))
        label["receipt"] = rng.choice(
            ("TAX INVOICE", "RECEIPT", "CASH BILL", "SIMPLIFIED TAX INVOICE", "OFFICIAL RECEIPT")
        )
        label["receipt_number"] = rng.choice(("Invoice No", "Bill No", "Doc No", "Receipt #", "CS No", "Inv No."))
    units = {key: rng.choice(values) for key, values in UNITS[lang].items()} if rng.random() < 0.9 else {}
    plan = Plan(
        stem=f"synth-{index:05d}-{lang}",
        lang=lang,
        kind=kind,
        style=style,
        layout=_choose_layout(rng, kind, lang),
        rng=rng,
        country=country,
        fmt=NumFmt(thousands, decimal, places),
        cur=cur,
        label=label,
        units=units,
        number=_number(
            rng, kind, lang, issued, random.Random(f"synth-scheme:{seed}:{series}") if series is not None else None
        ),
        issued=issued,
        date_style=rng.choice(DATE_STYLES["my" if style == "my" else lang]),
    )
    if plan.date_style == "mdy/" and country.code != "US":
        plan.date_style = "dmy/"
    if house is not None:
        for name in _HOUSE_ATTRS:
            setattr(plan, name, getattr(house, name))
        country = plan.country
    elif country.code == "US":
        _drop_vat_words(plan)
    if house is None:
        _people(plan)
    else:
        plan.vendor, plan.customer = house.vendor, house.customer
    plan.show["reverse"] = (
        kind == "invoice" and country.code in ("DE", "FR", "NL", "BE", "AT", "ES", "IT") and rng.random() < 0.04
    )
    plan.items = _items(plan)
    inclusive = kind == "receipt" and not (style == "my" and rng.random() < 0.35)
    plan.totals = _inclusive_totals(plan) if inclusive else _totals(plan)
    _payments(plan)
    _terms(plan)
    plan.negative = kind == "credit_note" and rng.random() < 0.5
    plan.cols = _columns(plan)
    _visibility(plan)
    if house is not None:
        plan.show.update({key: house.show[key] for key in _HOUSE_SHOWS})
    plan.meta = _meta(plan)
    return plan


def _issue_date(rng: random.Random, style: str) -> date:
    if style == "my":
        return date(2015, 4, 1) + timedelta(days=rng.randrange(0, 1600))
    return date(2013, 1, 1) + timedelta(days=rng.randrange(0, 13 * 365))


def _people(plan: Plan) -> None:
    fake = faker_for(plan.country.faker)
    fake.seed_instance(plan.rng.getrandbits(32))
    plan.vendor = _vendor(plan, fake)
    plan.customer = _customer(plan, fake) if plan.kind != "receipt" else None


def _terms(plan: Plan) -> None:
    rng = plan.rng
    if plan.kind == "receipt":
        return
    days = rng.choice((0, 7, 10, 14, 14, 15, 30, 30, 30, 45, 60))
    plan.due = plan.issued + timedelta(days=days) if rng.random() < 0.7 or days == 0 else None
    if plan.kind == "credit_note" or rng.random() < 0.35:
        return
    choices = [t for t in TERMS[plan.lang] if ("{n}" in t) == bool(days) or "{due}" in t]
    template = rng.choice(choices or TERMS[plan.lang])
    due = plan.issued + timedelta(days=days)
    plan.terms = template.format(n=days, due=plan.d(due))
    if "{due}" in template:
        plan.due = plan.due or due


def _visibility(plan: Plan) -> None:
    """Which optional facts this print shows (a value not shown has null truth)."""
    rng, show = plan.rng, plan.show
    my = plan.style == "my"
    show["tax_id"] = rng.random() < (0.85 if not my else 0.7) and plan.country.rates != ("0",)
    show["email"] = rng.random() < (0.6 if not my else 0.15)
    show["phone"] = rng.random() < 0.7
    show["web"] = rng.random() < 0.3
    show["country"] = True
    show["rate_in_label"] = rng.random() < 0.85
    show["net_row"] = bool(plan.totals.discount or plan.totals.shipping or plan.totals.service) and rng.random() < 0.5
    show["tax_base"] = rng.random() < 0.25
    show["bank"] = rng.random() < 0.5
    show["thanks"] = rng.random() < 0.5
    show["refund"] = plan.kind == "credit_note" and rng.random() < 0.4
    show["currency_line"] = rng.random() < 0.25
    show["table_currency"] = rng.random() < 0.2
    show["brand_over_name"] = plan.vendor.brand is not None
    show["tax_printed"] = plan.kind != "receipt" or any(rate for rate, _, _ in plan.totals.taxes)
    show["net_line"] = show["tax_printed"] and rng.random() < 0.6
    show["cur_rows"] = rng.random() < 0.35
    show["disc_as_pct"] = rng.random() < 0.6
    show["terms_in_meta"] = rng.random() < 0.3
    if plan.kind == "credit_note" and rng.random() < 0.6:
        plan.totals.balance = plan.totals.total if show["refund"] else None


def _meta(plan: Plan) -> list[tuple[str, str]]:
    rng, lab = plan.rng, plan.label
    key = {"invoice": "number", "credit_note": "credit_number", "receipt": "receipt_number"}[plan.kind]
    date_label = lab["date"] if plan.kind != "receipt" else LABELS[plan.lang]["date"][1]
    meta = [(lab[key], plan.number), (date_label, plan.d(plan.issued))]
    if plan.due and plan.kind != "receipt":
        meta.append((lab["due"], plan.d(plan.due)))
    if plan.kind != "receipt" and rng.random() < 0.5:
        meta.append((lab["customer_no"], str(rng.randrange(10000, 999999))))
    if plan.kind != "receipt" and rng.random() < 0.35:
        meta.append((lab["order"], f"{rng.choice(('PO', '45', 'B', ''))}{rng.randrange(100000, 99999999)}"))
    if plan.kind != "receipt" and rng.random() < 0.25:
        meta.append((lab["delivery"], plan.d(plan.issued - timedelta(days=rng.randrange(0, 10)))))
    if plan.kind == "credit_note":
        meta.append((lab["credit_ref"], _number(rng, "invoice", plan.lang, plan.issued)))
    if plan.show["currency_line"]:
        meta.append((lab["currency"], plan.cur.code))
    if len(meta) > 2 and rng.random() < 0.3:
        meta[2:] = rng.sample(meta[2:], len(meta) - 2)
    return meta


def _f(value: Decimal | None):
    return None if value is None else float(value)


def truth_of(plan: Plan) -> dict:
    """The dataset truth of ``plan``: exactly TRUTH_KEYS, null where the print shows nothing."""
    tot, show, vendor = plan.totals, plan.show, plan.vendor
    receipt = plan.kind == "receipt"
    data = dict.fromkeys(TRUTH_KEYS)
    data["invoice_number"] = plan.number
    data["invoice_date"] = plan.issued.isoformat()
    data["due_date"] = plan.due.isoformat() if plan.due else None
    data["vendor_name"] = vendor.name
    data["vendor_address"] = ", ".join(line.rstrip(",") for line in vendor.lines)
    data["vendor_tax_id"] = vendor.tax_id if show["tax_id"] else None
    data["vendor_email"] = vendor.email if show["email"] else None
    data["customer_name"] = plan.customer.name if plan.customer else None
    data["currency"] = plan.cur.code
    data["payment_terms"] = plan.terms
    data["subtotal"] = _f(tot.subtotal) if not (receipt and tot.inclusive and not show.get("net_line")) else None
    data["discount"] = _f(tot.discount) if tot.discount else None
    data["tax_amount"] = (
        _f(tot.tax) if tot.taxes and (tot.tax or not receipt) and show.get("tax_printed", True) else None
    )
    data["service_charge"] = _f(tot.service) if tot.service else None
    data["shipping_cost"] = _f(tot.shipping) if tot.shipping else None
    data["total_amount"] = _f(tot.total)
    data["paid_amount"] = _f(tot.paid) if tot.paid else None
    data["balance_amount"] = _f(tot.balance) if tot.balance is not None else None
    data["line_items"] = _truth_lines(plan) if plan.items else None
    return data


def _truth_lines(plan: Plan) -> list[dict]:
    cols = plan.cols
    single_rate = len({item.rate for item in plan.items}) == 1 and plan.show["rate_in_label"]
    lines = []
    for number, item in enumerate(plan.items, 1):
        lines.append(
            {
                "description": item.description,
                "line_no": number if "pos" in cols else None,
                "sku": item.sku if "sku" in cols else None,
                "quantity": float(item.qty) if "qty" in cols else None,
                "unit": item.unit if "unit" in cols else None,
                "unit_price": float(item.price) if "price" in cols else None,
                "discount": float(item.disc) if item.disc and "line_disc" in cols else None,
                "tax": float(item.rate) if "rate" in cols or (single_rate and not plan.show["reverse"]) else None,
                "line_total": float(item.total),
            }
        )
    return lines


def generate(n: int, seed: int) -> list[SynthDoc]:
    """``n`` synthetic documents, deterministic for (n, seed); document i does not depend on n."""
    cycle = random.Random(f"synth-cycle:{seed}")
    langs, kinds = list(_LANG_CYCLE), list(_KIND_CYCLE)
    cycle.shuffle(langs)
    cycle.shuffle(kinds)
    docs = []
    for index in range(n):
        plan = _plan(index, seed, langs[index % len(langs)], kinds[index % len(kinds)])
        docs.append(SynthDoc(plan.stem, plan.lang, plan.kind, truth_of(plan), render(plan)))
    return docs


def generate_series(vendors: int, per_vendor: int, seed: int) -> list[list[SynthDoc]]:
    """Documents of repeat vendors: ``vendors`` lists of ``per_vendor`` documents, each list one
    vendor (one layout, labels, formats and parties; other numbers, dates, items and amounts on
    each document), invoices and receipts in turn; deterministic for the arguments. Stems are
    ``synth-<vendor * 1000 + n>-<lang>``."""
    cycle = random.Random(f"synth-series:{seed}")
    langs = list(_LANG_CYCLE)
    cycle.shuffle(langs)
    out = []
    for vendor in range(vendors):
        lang, kind = langs[vendor % len(langs)], ("invoice", "receipt")[vendor % 2]
        house = _plan(vendor * 1000, seed, lang, kind, series=vendor)
        plans = [house] + [_plan(vendor * 1000 + n, seed, lang, kind, house, vendor) for n in range(1, per_vendor)]
        out.append([SynthDoc(p.stem, p.lang, p.kind, truth_of(p), render(p)) for p in plans])
    return out


def scan(pdf: bytes, seed: int, dpi: int = 200) -> bytes:
    """Page 1 of ``pdf`` as a noisy scan: JPEG bytes, deterministic for ``seed``."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    try:
        return _scan_page(document[0], random.Random(f"scan:{seed}:0"), dpi)
    finally:
        document.close()


def scan_pages(pdf: bytes, seed: int, dpi: int = 200) -> list[bytes]:
    """Every page of ``pdf`` as a noisy scan (JPEG bytes each); page 1 equals ``scan(pdf, seed, dpi)``."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    try:
        return [
            _scan_page(document[index], random.Random(f"scan:{seed}:{index}"), dpi) for index in range(len(document))
        ]
    finally:
        document.close()


def _scan_page(page, rng: random.Random, dpi: int) -> bytes:
    """Render, then what a scanner or phone does to paper: tint or grey, skew, blur, uneven light,
    noise and specks, JPEG artefacts."""
    import numpy as np
    from PIL import Image, ImageFilter

    image = page.render(scale=dpi / 72).to_pil().convert("RGB")
    narrow = image.width < image.height / 2  # a till receipt
    gray = rng.random() < 0.55
    if gray:
        image = image.convert("L")
    angle = rng.uniform(-2.5, 2.5)
    fill = 255 if gray else (255, 255, 255)
    image = image.rotate(angle, resample=Image.Resampling.BILINEAR, expand=True, fillcolor=fill)
    if narrow and rng.random() < 0.7:
        image = _on_background(image, rng)
    blur = rng.uniform(0, 1.2)
    if blur > 0.15:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    noise = np.random.default_rng(rng.getrandbits(64))
    pixels = np.asarray(image, dtype=np.float32)
    pixels = _paper(pixels, noise, rng, gray)
    pixels += noise.normal(0, rng.uniform(2, 12), pixels.shape).astype(np.float32)
    _specks(pixels, noise, rng)
    out = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "L" if gray else "RGB")
    buffer = io.BytesIO()
    out.save(buffer, "JPEG", quality=rng.randint(35, 85))
    return buffer.getvalue()


def _paper(pixels, noise, rng: random.Random, gray: bool):
    """Paper tone, contrast loss and, sometimes, uneven brightness (a gradient across the page)."""
    import numpy as np

    low, high = rng.uniform(0, 40), rng.uniform(225, 255)
    pixels = low + pixels * (high - low) / 255
    if not gray and rng.random() < 0.5:
        pixels *= np.array([1.0, rng.uniform(0.96, 1.0), rng.uniform(0.88, 0.98)], dtype=np.float32)
    if rng.random() < 0.45:
        height, width = pixels.shape[:2]
        ys = np.linspace(0, 1, height, dtype=np.float32)[:, None]
        xs = np.linspace(0, 1, width, dtype=np.float32)[None, :]
        a, b = rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2)
        shade = 1 - np.clip(a * (xs - 0.5) + b * (ys - 0.5) + rng.uniform(0, 0.1), 0, 0.3)
        pixels = pixels * (shade if gray else shade[..., None])
    return pixels.astype(np.float32)


def _specks(pixels, noise, rng: random.Random) -> None:
    """Salt-and-pepper dust: a few hundred dark and light pixels."""
    height, width = pixels.shape[:2]
    count = int(height * width * rng.uniform(0, 0.0008))
    ys, xs = noise.integers(0, height, count), noise.integers(0, width, count)
    values = noise.choice([20.0, 235.0], count)
    pixels[ys, xs] = values[:, None] if pixels.ndim == 3 else values


def _on_background(image, rng: random.Random):
    """A receipt photographed on a table: the strip pasted onto a darker, larger background."""
    from PIL import Image

    tone = rng.randint(70, 190)
    color = tone if image.mode == "L" else (tone, int(tone * rng.uniform(0.85, 1)), int(tone * rng.uniform(0.7, 1)))
    pad_x, pad_y = int(image.width * rng.uniform(0.1, 0.5)), int(image.height * rng.uniform(0.03, 0.12))
    canvas = Image.new(image.mode, (image.width + 2 * pad_x, image.height + 2 * pad_y), color)
    canvas.paste(image, (pad_x, pad_y))
    return canvas


# Faker builds some of its lists from sets (it_IT's cities), whose order follows Python's hash
# seed: the same --seed gave other documents in another process. The command runs with a fixed
# hash seed, so a training run can be repeated exactly.
HASH_SEED = "0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.synth", description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40, help="how many documents (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="folder for <stem>.pdf, <stem>.json (and <stem>.jpg)")
    parser.add_argument("--scans", action="store_true", help="also write page 1 of each document as a noisy scan")
    parser.add_argument("--dpi", type=int, default=200, help="scan resolution (default 200)")
    parser.add_argument("--series", type=int, default=0, help="documents per repeat vendor (default: none)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.series:
        from training.dataset import SERIES_MARK

        docs = [d for series in generate_series(args.n // args.series, args.series, args.seed) for d in series]
        (args.out / SERIES_MARK).write_text(f"{args.series} documents per vendor; group = stem number // 1000\n")
    else:
        docs = generate(args.n, args.seed)
    for index, doc in enumerate(docs):
        (args.out / f"{doc.stem}.pdf").write_bytes(doc.pdf)
        (args.out / f"{doc.stem}.json").write_text(json.dumps(doc.truth, ensure_ascii=False, indent=1) + "\n")
        if args.scans:
            (args.out / f"{doc.stem}.jpg").write_bytes(scan(doc.pdf, seed=args.seed * 100003 + index, dpi=args.dpi))
    print(f"{len(docs)} documents in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != HASH_SEED:  # the command again, with the fixed seed
        os.environ["PYTHONHASHSEED"] = HASH_SEED
        os.execv(sys.executable, [sys.executable, "-m", "training.synth", *sys.argv[1:]])
    sys.exit(main())
