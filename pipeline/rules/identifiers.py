"""Tax ids and bank account numbers whose check digits can be tested, by python-stdnum.

The rules find VAT-id and IBAN shapes with regular expressions; this module says whether a
found string is a real number of its kind (country prefix, length and check digits as each
national scheme defines them), so the rules can prefer it over a look-alike or an OCR-damaged
copy. Must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

from stdnum import iban as _iban
from stdnum import vatin
from stdnum.ch import uid as _ch_uid
from stdnum.exceptions import ValidationError
from stdnum.in_ import gstin as _gstin


def is_valid_tax_id(value: str) -> bool:
    """Whether ``value`` is a tax id with valid check digits.

    Accepts a VAT number with its ISO country prefix (``"DE 136 695 976"``, ``"NL853746333B01"``,
    ``"CHE-116.281.710 MWST"``; every scheme of ``stdnum.vatin``, EU VIES and others), a Swiss
    UID without the VAT suffix (``"CHE-116.281.710"``) and an Indian GSTIN
    (``"27AAPFU0939F1ZV"``). Spaces, dots and dashes are ignored as the schemes allow.
    """
    text = (value or "").strip()
    return any(scheme.is_valid(text) for scheme in (vatin, _ch_uid, _gstin))


def iban_country(value: str) -> str | None:
    """The ISO 3166 country of ``value`` when it is an IBAN with valid check digits, else None.

    ISO 13616: country code, two check digits (mod 97-10 over the whole number) and the
    national account number of the country's length; spaces are ignored.
    """
    try:
        return _iban.validate(value or "")[:2]
    except ValidationError:
        return None
