"""The document model of the synthetic documents (``training.synth``): ``Plan`` (everything one
document shows) and its parts ``Party``, ``Item`` and ``Totals``, plus ``line_tax`` (the tax of
one item). ``training.synth`` builds plans and reads their truth, ``training.synth_render`` prints
them; both import these types from here.

Owners, so that the imports run one way (synth_locale <- synth_types <- synth_render <- synth):
the locale value types a plan holds (``Country``, ``NumFmt``, ``Cur``), money rounding and date
formatting belong to ``training.synth_locale``, which imports none of the other synth modules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from training.synth_locale import ZERO, Country, Cur, NumFmt, fmt_date, money


@dataclass
class Party:
    """A vendor or customer as printed: ``name``, postal address ``lines`` and the optional
    contact, brand and bank details (a vendor's; a customer has name and address only)."""

    name: str
    lines: list[str]  # postal address, printed one per line
    tax_id: str | None = None
    email: str | None = None
    phone: str | None = None
    web: str | None = None
    brand: str | None = None
    tagline: str | None = None
    reg_no: str | None = None  # company registration number (printed, no schema field)
    bank: str | None = None


@dataclass
class Item:
    """One line item: ``price`` is the printed unit price (gross of the line discount),
    ``disc_pct``/``disc`` the line discount (percent, money), ``rate`` the tax rate (percent) and
    ``total`` the net line amount, quantity x price - disc."""

    description: str
    qty: Decimal
    unit: str | None
    price: Decimal
    disc_pct: Decimal
    disc: Decimal
    rate: Decimal
    total: Decimal
    sku: str | None


@dataclass
class Totals:
    """A document's amounts: ``subtotal`` (sum of the line totals), document discount and
    charges, ``taxes`` per rate, ``total``, and payments (``paid``, ``balance``; ``cash`` and
    ``change`` on receipts)."""

    subtotal: Decimal = ZERO
    disc_pct: Decimal = ZERO
    discount: Decimal = ZERO
    shipping: Decimal = ZERO
    service_pct: Decimal = ZERO
    service: Decimal = ZERO
    taxes: list[tuple[Decimal, Decimal, Decimal]] = field(default_factory=list)  # (rate, base, tax)
    tax: Decimal = ZERO
    total: Decimal = ZERO  # what the document is for (after cash rounding on receipts)
    rounding: Decimal = ZERO
    paid: Decimal = ZERO
    balance: Decimal | None = None
    cash: Decimal | None = None
    change: Decimal | None = None
    inclusive: bool = False  # receipt prices include tax


@dataclass
class Plan:
    """Everything one document shows; ``truth`` and every layout read it."""

    stem: str
    lang: str
    kind: str
    style: str  # "my" for Malaysian receipts, else lang
    layout: str
    rng: random.Random
    country: Country
    fmt: NumFmt
    cur: Cur
    label: dict[str, str]
    units: dict[str, str]
    number: str
    issued: date
    date_style: str
    due: date | None = None
    terms: str | None = None
    vendor: Party | None = None
    customer: Party | None = None
    items: list[Item] = field(default_factory=list)
    totals: Totals = field(default_factory=Totals)
    cols: tuple[str, ...] = ()
    show: dict[str, bool] = field(default_factory=dict)
    meta: list[tuple[str, str]] = field(default_factory=list)
    negative: bool = False  # credit note printed with negative amounts
    fonts: dict[str, str] = field(default_factory=dict)

    def d(self, day: date) -> str:
        """``day`` printed in this document's date style and language."""
        return fmt_date(day, self.date_style, self.lang)

    def amt(self, value: Decimal, cur: bool = False) -> str:
        """A printed amount (negated for a credit note printed negative), with the currency if ``cur``."""
        text = self.fmt.num(-value if self.negative else value)
        return self.cur.show(text) if cur else text


def line_tax(item: Item, places: int) -> Decimal:
    """The tax of one item, its net ``total`` at its ``rate``, rounded to ``places`` (a fapiao
    prints it per line and adds those up)."""
    return money(item.total * item.rate / 100, places)
