"""What one approved invoice teaches about its vendor (``Lesson``): the identifiers printed on
it, the key-field values a person confirmed, and for each value found on the page the label
it was printed under and the form it was printed in.

A *label key* is how a value is found again on the vendor's next invoice: the last words
before it on its line ("total rounded", "invoice no"), or, for a value alone on its line, the
words of the line above prefixed with ``^``. Words are letters only, case-folded, so that
OCR's noise in digits and punctuation does not split a habit. A lesson also keeps the label
keys under which the page printed *another* value of the field's kind (``misses``): a label
that printed the total once by chance (the cash given was exact, the receipt had one item)
prints other amounts on the vendor's other invoices, and the profile drops it
(``pipeline.profiles.profile.build``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from pipeline.profiles.identifiers import AS_DIGIT, identifiers
from pipeline.rules.labels import CASH_RE, CHANGE_RE, ID_TOKEN_RE
from pipeline.values.money import agree, to_amount
from pipeline.values.parsers import find_amounts, find_dates

LEARNED_FIELDS = ("invoice_number", "invoice_date", "total_amount", "currency", "vendor_name")
# A total printed again as what was tendered (cash, card) or as the paid amount is the total only
# by chance (exact change): such a label would read the cash line of the vendor's next receipt.
TENDER_RE = re.compile(
    rf"{CASH_RE.pattern}|{CHANGE_RE.pattern}"
    r"|(?<![a-z])(?:paid|visa|mastercard|amex|card|karte|kredit|debit)(?![a-z])|^\^?pay$",
    re.I,
)
LABEL_WORDS = 3  # words of a label key
WORD_RE = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class Lesson:
    """What approving invoice ``invoice_id`` taught: ``identifiers`` on its page
    (``identifiers.identifiers``), ``values`` the confirmed key fields (JSON values: ISO date,
    amount as a string of its decimal, str), ``labels`` per field the label keys of the lines
    the value is printed on, ``shapes`` per field how it was printed (an id's letter/digit
    pattern, ``A`` a letter and ``9`` a digit; a date's order, ``dmy`` or ``mdy``), ``misses``
    per field the label keys under which another value of its kind was printed (another amount,
    date or id) and never the confirmed one."""

    invoice_id: str
    identifiers: frozenset[str] = frozenset()
    values: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    shapes: dict[str, str] = field(default_factory=dict)
    misses: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON object of the lesson (``from_json`` reads it back)."""
        return {
            "invoice_id": self.invoice_id,
            "identifiers": sorted(self.identifiers),
            "values": self.values,
            "labels": {k: list(v) for k, v in self.labels.items()},
            "shapes": self.shapes,
            "misses": {k: list(v) for k, v in self.misses.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Lesson:
        return cls(
            data["invoice_id"],
            frozenset(data.get("identifiers") or ()),
            dict(data.get("values") or {}),
            {k: tuple(v) for k, v in (data.get("labels") or {}).items()},
            dict(data.get("shapes") or {}),
            {k: tuple(v) for k, v in (data.get("misses") or {}).items()},  # absent in lessons before it
        )


def learn(invoice_id: str, text: str, data: dict[str, Any]) -> Lesson:
    """The lesson of one approved invoice: ``text`` is its whole text as read (``raw_text``),
    ``data`` its header fields as approved (schema 2.9, corrections applied)."""
    lines = text.splitlines()
    values: dict[str, Any] = {}
    labels: dict[str, tuple[str, ...]] = {}
    shapes: dict[str, str] = {}
    misses: dict[str, tuple[str, ...]] = {}
    for name in LEARNED_FIELDS:
        value = data.get(name)
        if value is None or value == "":
            continue
        values[name] = str(value) if name == "total_amount" else value
        spots: list[tuple[str, str, bool]] = []
        if name == "total_amount":
            spots = _amount_spots(lines, to_amount(value))
        elif name == "invoice_date":
            spots = _date_spots(lines, str(value))
        elif name == "invoice_number":
            spots = _id_spots(lines, str(value))
        found = [(key, shape) for key, shape, hit in spots if hit]
        if found:
            labels[name] = tuple(sorted({key for key, _ in found}))
            shapes[name] = found[0][1]
        other = {key for key, _, hit in spots if not hit} - {key for key, _, hit in spots if hit}
        if other:
            misses[name] = tuple(sorted(other))
    return Lesson(invoice_id, identifiers(text), values, labels, shapes, misses)


# An amount written out in Chinese capital numerals (a fapiao's "价税合计(大写) 贰拾叁万...圆壹角陆分
# (小写) ¥239,848.16"): a word of the value, not of its label, which it would make new on every invoice.
AMOUNT_IN_WORDS_RE = re.compile(r"^[零壹贰叁肆伍陆柒捌玖拾佰仟万亿圆元角分整]+$")


def label_key(lines: list[str], index: int, start: int) -> str:
    """The label key of a value starting at character ``start`` of line ``index``."""
    words = _label_words(lines[index][:start])
    if words:
        return " ".join(words[-LABEL_WORDS:])
    for above in range(index - 1, max(index - 3, -1), -1):
        words = _label_words(lines[above])
        if words:
            return "^" + " ".join(words[-LABEL_WORDS:])
    return "^"


def _label_words(text: str) -> list[str]:
    return [word for word in WORD_RE.findall(text.casefold()) if not AMOUNT_IN_WORDS_RE.match(word)]


# Letters a thermal receipt's OCR reads for one another ("IUIAL (GSI INUL)" for "TOTAL (GST
# INCL)", "SUBIUIAL" for "SUBTOTAL"): a label key's ``skeleton`` writes each class as one letter.
_SKELETON = str.maketrans("ltjucqd", "iiioooo")


def skeleton(key: str) -> str:
    """``key`` (a label key, or a line, case-folded) with the letters OCR confuses on receipts
    written as one of their class (i l t j -> ``i``; o u c q d -> ``o``), one letter for one:
    "iuial gsi inul" and "total gst incl" are both "ioiai gsi inoi"."""
    return key.translate(_SKELETON)


def id_shape(token: str) -> str:
    """An id's printed pattern: ``A`` per letter, ``9`` per digit, other characters kept
    (``"INV-2023/0042"`` -> ``"AAA-9999/9999"``)."""
    return "".join("A" if ch.isalpha() else "9" if ch.isdigit() else ch for ch in token)


# A spot: (label key, shape, whether the confirmed value is printed there), for every value of
# the field's kind on the page.


def _amount_spots(lines: list[str], amount) -> list[tuple[str, str, bool]]:
    if amount is None:
        return []
    spots = [
        (label_key(lines, i, m.start), "", agree(abs(m.value), abs(amount)))
        for i, line in enumerate(lines)
        for m in find_amounts(line)
    ]
    return [(key, shape, hit) for key, shape, hit in spots if not (hit and TENDER_RE.search(key))]


def _date_spots(lines: list[str], iso: str) -> list[tuple[str, str, bool]]:
    out = []
    for i, line in enumerate(lines):
        hit = False
        for order, dayfirst in (("dmy", True), ("mdy", False)):
            hits = [m for m in find_dates(line, dayfirst, loose=True) if m.iso == iso]
            if hits:
                out.append((label_key(lines, i, hits[0].start), order if hits[0].ambiguous else "", True))
                hit = True
                break
        if not hit:  # a line with the date in either order is no miss: an ambiguous date reads both ways
            out += [(label_key(lines, i, m.start), "", False) for m in find_dates(line, True, loose=True)]
    return out


def _id_spots(lines: list[str], value: str) -> list[tuple[str, str, bool]]:
    """An id OCR misread ("0R13-16614" for the approved "OR13-16614") is the approved one printed
    there, in the approved one's shape: a miss would take the label from the profile, and the
    profile is what reads the number back into that shape (``profile.in_shape``)."""
    want = _alnum(value)
    if not want:
        return []
    parts = len(value.split())
    spots = []
    for i, line in enumerate(lines):
        for token, start in id_runs(line, {1, parts}):
            token = token.lstrip("#")
            if _alnum(token) == want:
                spots.append((label_key(lines, i, start), id_shape(token), True))
            elif _as_digits(token) == _as_digits(value):
                spots.append((label_key(lines, i, start), id_shape(" ".join(value.lstrip("#").split())), True))
            else:
                spots.append((label_key(lines, i, start), "", False))
    return spots


def id_runs(line: str, parts: set[int]) -> list[tuple[str, int]]:
    """(id, start) of the id-like tokens of ``line`` (``ID_TOKEN_RE``) and, for each count in
    ``parts`` above 1, of each run of that many tokens set apart by spaces only, joined by one
    space: a vendor may print its numbers in parts ("Invoice No. : CR 1806/0729"), and its
    approved number is the whole of it."""
    tokens = [(m.group(0), m.start(), m.end()) for m in ID_TOKEN_RE.finditer(line)]
    out = [(token, start) for token, start, _ in tokens] if 1 in parts else []
    for count in sorted(p for p in parts if p > 1):
        for first in range(len(tokens) - count + 1):
            run = tokens[first : first + count]
            gaps = (line[a[2] : b[1]] for a, b in pairwise(run))
            if all(gap and not gap.strip(" \t") for gap in gaps):
                out.append((" ".join(token for token, _, _ in run), run[0][1]))
    return out


def _as_digits(value: str) -> str:
    return _alnum(value).upper().translate(AS_DIGIT)


def _alnum(value: str) -> str:
    return re.sub(r"[\W_]+", "", value).casefold()
