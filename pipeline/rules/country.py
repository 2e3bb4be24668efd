"""Country evidence of the rules extractor: the currency implied by IBANs, VAT ids and countries.

Scans and OCR often lose the currency sign (a "€" read as nothing, "∈" or "C"), while the
document still says where it comes from: an IBAN or VAT id with its ISO country prefix, a
country name in an address. This module owns turning that evidence into an ISO 4217 code,
used only when the text shows no currency of its own. IBANs are checked with python-stdnum
(``pipeline.rules.identifiers``). Must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re
from collections import Counter

from pipeline.rules.identifiers import iban_country

_EURO = "AT BE CY DE EE ES FI FR GR HR IE IT LT LU LV MT NL PT SI SK".split()
COUNTRY_CURRENCY = {
    **{code: "EUR" for code in _EURO},
    "GB": "GBP",
    "CH": "CHF",
    "LI": "CHF",
    "DK": "DKK",
    "SE": "SEK",
    "NO": "NOK",
    "PL": "PLN",
    "CZ": "CZK",
    "HU": "HUF",
    "RO": "RON",
    "BG": "BGN",
    "MY": "MYR",
    "SG": "SGD",
    "IN": "INR",
    "US": "USD",
    "TH": "THB",
}
_PREFIXES = "|".join(sorted(k for k in COUNTRY_CURRENCY if k not in ("IN", "US", "MY", "SG", "TH")))
# "IBAN: FR76 ...", "IBANNL50INGB..." (OCR glues the label), with the check digits after the country.
_IBAN_RE = re.compile(r"IBAN\W{0,3}((" + _PREFIXES + r")\s?\d{2}\s?[0-9A-Z]{4}(?:\s?[0-9A-Z]{1,4}){0,7})")
# "NL810433941B01", "BTWNL8104...", "FR 19787878784", "DE123456789", "ATU12345678".
_VAT_RE = re.compile(
    r"(?:(?<![A-Za-z])|(?<=BTW)|(?<=TVA)|(?<=VAT)|(?<=UST)|(?<=IdNr))(" + _PREFIXES + r")"
    r"\s?U?\d[\dA-Z ]{7,13}(?![A-Za-z0-9])"
)
_COUNTRY_NAMES = {
    "FR": r"france",
    "DE": r"deutschland|germany",
    "NL": r"nederland|netherlands|holland",
    "BE": r"belgi(?:um|que|ë)",
    "AT": r"[öo]sterreich|austria",
    "ES": r"espa[ñn]a|spain",
    "IT": r"italia|italy",
    "PT": r"portugal",
    "IE": r"ireland",
    "LU": r"luxemb(?:o|ou)rg",
    "CH": r"schweiz|suisse|switzerland",
    "GB": r"united\s+kingdom|great\s+britain",
    "MY": r"malaysia",
    "SG": r"singapore",
    "IN": r"india",
}
_COUNTRY_RE = {
    code: re.compile(rf"(?<![A-Za-z])(?:{pattern})(?![A-Za-z])", re.I) for code, pattern in _COUNTRY_NAMES.items()
}


def country_votes(text: str) -> Counter:
    """Votes per ISO country code: an IBAN counts three (two when its check digits fail, as OCR
    damage or a look-alike), a VAT id two, a country name one."""
    votes: Counter[str] = Counter()
    for match in _IBAN_RE.finditer(text or ""):
        votes[match.group(2)] += 3 if _holds_valid_iban(match.group(1)) else 2
    for match in _VAT_RE.finditer(text or ""):
        votes[match.group(1)] += 2
    for code, pattern in _COUNTRY_RE.items():
        votes[code] += len(pattern.findall(text or ""))
    return Counter({k: v for k, v in votes.items() if v > 0})


def _holds_valid_iban(printed: str) -> bool:
    # The pattern may run on into the next word ("... 189 BIC"): try each length IBANs have.
    compact = re.sub(r"\s", "", printed)
    return any(iban_country(compact[:length]) for length in range(min(len(compact), 34), 14, -1))


def currency_from_country(text: str) -> str | None:
    """The currency of the country the document's IBANs, VAT ids and addresses point to, or None.

    Several countries of one currency add up: a French seller and a Spanish buyer are EUR.
    """
    money: Counter[str] = Counter()
    for code, count in country_votes(text).items():
        money[COUNTRY_CURRENCY[code]] += count
    if not money:
        return None
    return money.most_common(1)[0][0]
