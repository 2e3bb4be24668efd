"""OCR repairs of the rules extractor: typical misreadings of numbers undone before parsing.

OCR engines (rapidocr above all) read ``0`` as ``O``, ``1`` as ``l`` or ``I`` inside numbers
("475OO", "1OO.00"), ``O`` as ``0`` inside capitalised words ("BR00KS LTD") and a dollar sign
as ``S`` ("S8.20"). This module owns fixing such words of OCR'd pages, conservatively: letters
inside a token made of digits only, zeros between capitals in a token of letters only or before
the capital prefix of an identifier, and ``S``
as ``$`` only when the document prints dollar amounts elsewhere. Text-layer pages are never changed.
Standard library only; pipeline must not import ``api`` or ``appliance``.
"""

from __future__ import annotations

import re

# A token of digits with O/o/I/l misreadings, optionally after a currency mark, standing alone.
_NUMERIC_TOKEN_RE = re.compile(
    r"(?<![A-Za-z0-9])(?P<cur>RM|Rs\.?|\$)?(?P<num>[0-9OoIl][0-9OoIl.,]*[0-9OoIl])"
    r"(?![A-Za-z0-9])"
)
_DIGIT_FOR = str.maketrans({"O": "0", "o": "0", "I": "1", "l": "1"})
# The other way round: a capital O read as a zero inside a capitalised word ("BR00KS LTD").
_LETTER_WORD_RE = re.compile(r"(?<![\w-])(?:[A-Z]+0+)+[A-Z]+(?![\w-])")
# And at the start of an identifier whose prefix is capitals ("0R13-16614" for the official
# receipt "OR13-16614"); identifiers only (four digits or more), so "0W40" oil stays as printed.
_LEADING_ZERO_ID_RE = re.compile(r"(?<![\w-])0(?=[A-Z]{1,3}[-/]?\d(?:[-/]?\d){3,}(?![\w-]))")
# "S8.20": a dollar sign read as S, glued to an amount with cents.
_S_DOLLAR_RE = re.compile(r"(?<![A-Za-z0-9$])S(?=\d{1,6}[.,]\d{2}(?![\d%]))")
_DOLLAR_AMOUNT_RE = re.compile(r"\$\s?\d")


def prints_dollars(text: str) -> bool:
    """Whether ``text`` shows a dollar sign in front of a number (context for ``S`` as ``$``)."""
    return bool(_DOLLAR_AMOUNT_RE.search(text or ""))


def _fix_number(match: re.Match) -> str:
    """A numeric token with its misread letters as digits, when it is mostly digits."""
    num = match.group("num")
    digits = sum(ch.isdigit() for ch in num)
    letters = sum(ch.isalpha() for ch in num)
    if letters == 0 or digits < 2 or letters > digits:
        return match.group(0)
    return (match.group("cur") or "") + num.translate(_DIGIT_FOR)


def _fix_letters(match: re.Match) -> str:
    """A capitalised word with zeros for its O's, when it has three letters or more."""
    word = match.group(0)
    return word.replace("0", "O") if sum(ch.isalpha() for ch in word) >= 3 else word


# Word boundaries that OCR dropped: "deLattreAlexis", "NettTotal", "InvoiceINV/2023/03/0008",
# "n°562044387du02Juillet2015", "Tota1RM21.85", "PorteroS.Com.". Not inside "GmbH", "iPad" or "McDonald", not
# before "1st".
_GLUED_RE = re.compile(
    r"(?<=[a-z]{2})(?=[A-Z][a-z])|(?<=[a-z]{3})(?=[A-Z]{2,}[\d/-])"
    r"|(?<=[a-z]{2})(?=\d{2})|(?<=\d)(?!(?:st|nd|rd|th|er|e|h)(?![a-z]))(?=[a-z]{2})"
    r"|(?<=[A-Za-z0-9])(?=RM-?\d{1,6}[.,]\d{2}(?!\d))"  # "Grand Tota1RM21.85": the amount glued to its label
    r"|(?<=[a-zß-ÿ]{3})(?=[A-Z]\.\s?[A-Z][a-z]{0,3}\.)"  # "PorteroS.Com.", "BolañosS.A.": a dotted legal form
)
# e-mail and web addresses stay whole; ".Com." of "S.Com." is a legal form, no domain
_WEB_RE = re.compile(r"@|www\.|https?:|\.(?-i:com|net|org|COM|NET|ORG)\b", re.I)
_SYMBOL_FOR = str.maketrans({"∈": "€"})  # the euro sign read as "element of"


def fix_ocr_word(text: str, dollars: bool = False) -> str:
    """One OCR'd word (or phrase) with misread digits repaired.

    ``"475OO"`` -> ``"47500"``, ``"RM1O.5O"`` -> ``"RM10.50"``; words with other letters
    ("ES1OOO1L", "LOT") stay as they are; ``"BR00KS"`` -> ``"BROOKS"`` (zeros between capitals),
    ``"0R13-16614"`` -> ``"OR13-16614"`` (a zero before an identifier's capital prefix).
    With ``dollars`` (the document prints ``$`` amounts), ``"Total:S8.20"`` -> ``"Total:$8.20"``;
    ``"300∈"`` -> ``"300€"``.
    """
    text = _NUMERIC_TOKEN_RE.sub(_fix_number, text).translate(_SYMBOL_FOR)
    text = _LETTER_WORD_RE.sub(_fix_letters, text)
    text = _LEADING_ZERO_ID_RE.sub("O", text)
    text = " ".join(token if _WEB_RE.search(token) else _GLUED_RE.sub(" ", token) for token in text.split(" "))
    if dollars:
        text = _S_DOLLAR_RE.sub("$", text)
    return text
