"""What identifies a vendor on a page: its IBAN, VAT number, company registration number, e-mail
domain, web domain and phone numbers, as typed strings (``"iban:DE89370400440532013000"``).

Each kind has a weight (``WEIGHTS``): a checked IBAN or VAT number names one company; a
registration number or an e-mail domain nearly so; a web domain or a phone number is shared by
branches and resellers, so it counts only together with another. ``book.ProfileBook`` sums
the weights of the identifiers a page shares with a profile.
"""

from __future__ import annotations

import re

from pipeline.rules.identifiers import iban_country, is_valid_tax_id
from pipeline.rules.labels import EMAIL_RE, VAT_RE

WEIGHTS = {"iban": 3, "vat": 3, "reg": 2, "acct": 2, "email": 2, "web": 1, "phone": 1}
# Mail providers anyone can use: their domain says nothing about who sent the invoice.
FREE_MAIL = frozenset(
    "gmail.com googlemail.com yahoo.com yahoo.com.my hotmail.com outlook.com live.com icloud.com "
    "gmx.de gmx.net web.de t-online.de aol.com orange.fr free.fr wanadoo.fr laposte.net "
    "mail.com protonmail.com qq.com 163.com 126.com streamyx.com".split()
)
_IBAN_SHAPE = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b")
# A registration number after its label (Co. Reg., ROC, SSM, GST ID, Steuernummer, SIRET, KvK,
# NIF/CIF, China's taxpayer number and unified social credit code...).
_REG_LABEL = re.compile(
    r"(?<![a-z])(?:co(?:mpany)?\W*(?:r[ef]g\w*|n[o0])|reg(?:istration)?\W*n[o0]|roc|ssm|br\W*n[o0]|gst(?:\W*(?:[il1]d|r[e3][g9]\w*))?"
    r"|sst(?:\W*(?:id|reg\w*))?|tax\W*id|tin|steuer\W*(?:nr|nummer)|st\.?\W*nr|siret|siren|kvk|abn|ein|hrb"
    r"|nif(?:\W*iva)?|cif|纳税人识别号|统一社会信用代码|税号)"
    r"(?:\W*(?:n[o0]|nr|number|#))?\W{0,4}([A-Z0-9](?:[A-Z0-9./-]|\s(?=\d)){3,20}[A-Z0-9])",
    re.I,
)
# A Malaysian company number printed alone, in brackets after the name: "(1234567-X)", as OCR
# reads it too ("(65351--M)", "(1074617K)").
_MY_COMPANY = re.compile(r"\(\s*(\d{5,12}\s?-{0,2}\s?[A-Z])\s*\)")
# A bank account number after its label, a bank's name allowed between them ("开户行及账号:
# 中国工商银行上海分行 7792 2622 5527 2634"); IBANs are found on their own.
_ACCOUNT = re.compile(
    r"(?<![a-z])(?:account\W*(?:no|number|#)|a/c\W*(?:no)?|acct|kontonummer|konto\W*nr|konto|rekeningnummer|rekening"
    r"|n[uú]mero\W+de\W+cuenta|num[ée]ro\W+de\W+compte|账号|帳號|账户)[^\d\n]{0,40}?(\d[\d -]{6,30}\d)",
    re.I,
)
_AMOUNT = re.compile(r"\d[.,]\d{2}(?!\d)")  # "GST 12.00 0.72" is a tax line, not a GST number
_URL = re.compile(r"(?:https?://)?(?:www\.)([a-z0-9-]+(?:\.[a-z0-9-]+)+)", re.I)
_PHONE = re.compile(
    r"(?<![a-z])(?:te[l1]|phone|telefon|fon|fax|hp|t|f)\b\.?(?:\s*n[o0]\.?)?\W{0,3}(\+?[\d ()/.-]{8,20}\d)", re.I
)


def identifiers(text: str) -> frozenset[str]:
    """The typed identifiers printed in ``text`` (the whole text of a document): ``kind:value``
    with kind one of ``WEIGHTS``, values compacted (upper case, no spaces or punctuation; domains
    lower case; phones as their last 9 digits; bank accounts as their digits, at least eight).
    IBANs and VAT numbers only with valid check digits (ISO 13616, ``stdnum``); registration
    numbers only after their label, with at least four digits."""
    found: set[str] = set()
    for match in _IBAN_SHAPE.finditer(text):
        compact = match.group(0).replace(" ", "")
        if iban_country(compact):
            found.add(f"iban:{compact}")
    for match in VAT_RE.finditer(text):
        compact = _compact(match.group(0))
        if is_valid_tax_id(compact):
            found.add(f"vat:{compact}")
    for match in _REG_LABEL.finditer(text):
        compact = _compact(match.group(1))
        if _AMOUNT.search(match.group(1)):
            continue
        if sum(ch.isdigit() for ch in compact) >= 4 and f"vat:{compact}" not in found:
            found.add(f"reg:{_digits_read(compact)}")
    for match in _ACCOUNT.finditer(text):  # digits, spaces and dashes only: never an amount
        digits = re.sub(r"\D", "", match.group(1))
        if len(digits) >= 8:
            found.add(f"acct:{digits}")
    for match in _MY_COMPANY.finditer(text):
        found.add(f"reg:{_digits_read(_compact(match.group(1)))}")
    for match in EMAIL_RE.finditer(text):
        domain = match.group(0).rsplit("@", 1)[1].lower().rstrip(".")
        if domain not in FREE_MAIL and "." in domain:
            found.add(f"email:{domain}")
    for match in _URL.finditer(text):
        found.add(f"web:{match.group(1).lower().rstrip('.')}")
    for match in _PHONE.finditer(text):
        digits = re.sub(r"\D", "", match.group(1))
        if len(digits) >= 8:
            found.add(f"phone:{digits[-9:]}")
    return frozenset(found)


def weight(identifier: str) -> int:
    """The weight of one typed identifier (``WEIGHTS``; 0 for an unknown kind)."""
    return WEIGHTS.get(identifier.split(":", 1)[0], 0)


# Letters OCR reads for digits: in a number that is mostly digits they were digits.
OCR_DIGIT_FOR = {"O": "0", "Q": "0", "D": "0", "I": "1", "L": "1", "S": "5", "B": "8", "Z": "2"}
AS_DIGIT = str.maketrans(OCR_DIGIT_FOR)


def _digits_read(compact: str) -> str:
    """A registration number as printed, OCR's letter-for-digit readings undone ("86Q671D" ->
    "860671D"): in a number of mostly digits every letter but a last check letter is a digit."""
    body, tail = compact[:-1], compact[-1:]
    if sum(ch.isdigit() for ch in compact) < 0.6 * len(compact):
        return compact
    return body.translate(AS_DIGIT) + tail


def _compact(value: str) -> str:
    return re.sub(r"[^0-9A-Z]", "", value.upper())
