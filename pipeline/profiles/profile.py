"""A vendor's profile: its lessons added up (``build``), and the values it proposes on a new
page of that vendor (``propose``).

A field's *habit* is the label keys its value was printed under, each with the number of
approved invoices that printed it there less the number that printed another value of its kind
there (``Lesson.misses``); a label key that did not print the value more often than not is no
habit (the cash given, an only item's price, equal to the total once). On a new page the profile
reads the field where its habit says (the value after the label key) and proposes the value its
label keys back most, by the margin over the next value (``propose``). The vendor name is the
one a person approved last (as corrected), the currency the one all approvals agree on. What
the profile proposes is one source among the others: the scorer weighs it (``by_profile``,
``profile_support``), it never overrides the page.

An admin may *edit* a profile (``Edits``): pin its name or currency, or strike an identifier or
a label key it learnt wrongly; an edit holds over every later rebuild, until the admin clears it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pipeline.profiles.identifiers import OCR_DIGIT_FOR
from pipeline.profiles.lessons import LEARNED_FIELDS, WORD_RE, Lesson, id_runs, id_shape, label_key, skeleton
from pipeline.values.parsers import find_amounts, find_dates


@dataclass(frozen=True)
class VendorProfile:
    """One vendor's profile in one tenant: ``profile_id``, the ``vendor_id`` it belongs to,
    ``name`` (the vendor name approved last), ``identifiers`` (typed identifier -> approvals
    that showed it), ``habits`` (field -> label key -> approvals that printed the field under
    it), ``shapes`` (field -> printed pattern -> approvals), ``values`` (field -> value ->
    approvals; what currency and name were approved), ``filled`` (field -> approvals whose
    approved header had a value for it), ``invoices`` (the approved invoices it was learnt from,
    oldest first), ``frozen`` (an admin stopped its learning) and ``edits`` (the
    admin's ``Edits``, as ``Edits.to_json``, already applied to the fields above)."""

    profile_id: str
    vendor_id: str | None = None
    name: str | None = None
    identifiers: dict[str, int] = field(default_factory=dict)
    habits: dict[str, dict[str, int]] = field(default_factory=dict)
    shapes: dict[str, dict[str, int]] = field(default_factory=dict)
    values: dict[str, dict[str, int]] = field(default_factory=dict)
    invoices: tuple[str, ...] = ()
    frozen: bool = False
    edits: dict[str, Any] = field(default_factory=dict)
    filled: dict[str, int] = field(default_factory=dict)

    @property
    def printed_names(self) -> tuple[str | None, ...]:
        """The names a page of this vendor may print: its name, and where an admin pinned one
        (``Edits.name``), also every name its approvals taught."""
        if self.edits.get("name"):
            return tuple(dict.fromkeys((self.name, *self.values.get("vendor_name", {}))))
        return (self.name,)

    @property
    def approvals(self) -> int:
        """How many approved invoices taught it."""
        return len(self.invoices)

    def to_json(self) -> dict[str, Any]:
        """A JSON object of the profile (what ``appliance vendor show`` prints)."""
        return {
            "profileId": self.profile_id,
            "vendorId": self.vendor_id,
            "name": self.name,
            "approvals": self.approvals,
            "frozen": self.frozen,
            "identifiers": self.identifiers,
            "habits": self.habits,
            "shapes": self.shapes,
            "values": self.values,
            "filled": self.filled,
            "invoices": list(self.invoices),
            "edits": self.edits,
        }


@dataclass(frozen=True)
class Edits:
    """What an admin changed by hand in a profile, applied on every rebuild (``build``):
    ``name`` and ``currency`` pin the approved vendor name and ISO 4217 code (None: as learnt),
    ``identifiers`` are struck typed identifiers (``"iban:DE89..."``: never a reason to match,
    even if a later approval shows it again), ``labels`` struck label keys per field (the
    profile no longer reads the field there)."""

    name: str | None = None
    currency: str | None = None
    identifiers: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A JSON object of the edits; empty when there are none."""
        out: dict[str, Any] = {}
        if self.name:
            out["name"] = self.name
        if self.currency:
            out["currency"] = self.currency
        if self.identifiers:
            out["identifiers"] = sorted(self.identifiers)
        if self.labels:
            out["labels"] = [f"{name}:{label}" for name, label in sorted(self.labels)]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Edits:
        """The edits of a ``to_json`` object (None or empty: none)."""
        data = data or {}
        return cls(
            data.get("name") or None,
            data.get("currency") or None,
            tuple(data.get("identifiers") or ()),
            tuple(tuple(item.split(":", 1)) for item in data.get("labels") or ()),
        )


@dataclass(frozen=True)
class Proposal:
    """A value a profile proposes for one field: ``value`` (JSON value, as ``Lesson.values``),
    ``support`` (approvals that back it: the habit count of the label it was read under less
    that of a label that read another value on the page; or the approvals of this name or
    currency) and ``label`` (the label key it was read under, "" for name and currency)."""

    value: Any
    support: int
    label: str = ""


def build(
    profile_id: str,
    lessons: list[Lesson],
    *,
    vendor_id: str | None = None,
    frozen: bool = False,
    edits: Edits | None = None,
) -> VendorProfile:
    """The profile that ``lessons`` (oldest first) add up to, with an admin's ``edits`` applied
    (a pinned name or currency counts as backed by every approval, at least one)."""
    identifiers: Counter[str] = Counter()
    habits: dict[str, Counter[str]] = {}
    shapes: dict[str, Counter[str]] = {}
    values: dict[str, Counter[str]] = {}
    filled: Counter[str] = Counter()
    misses: dict[str, Counter[str]] = {}
    name = None
    for lesson in lessons:
        identifiers.update(lesson.identifiers)
        filled.update(key for key, value in lesson.values.items() if value not in (None, ""))
        for key, labels in lesson.labels.items():
            habits.setdefault(key, Counter()).update(labels)
        for key, labels in lesson.misses.items():
            misses.setdefault(key, Counter()).update(labels)
        for key, shape in lesson.shapes.items():
            if shape:
                shapes.setdefault(key, Counter())[shape] += 1
        for key in ("vendor_name", "currency"):
            if lesson.values.get(key):
                values.setdefault(key, Counter())[str(lesson.values[key])] += 1
        name = lesson.values.get("vendor_name") or name
    edits = edits or Edits()
    vouched = max(1, len(lessons))
    if edits.name:  # the learnt names stay: a page may still print one (``printed_names``)
        name = edits.name
        values.setdefault("vendor_name", Counter())[edits.name] = vouched
    if edits.currency:
        values["currency"] = Counter({edits.currency: vouched})
    for ident in edits.identifiers:
        identifiers.pop(ident, None)
    for key, label in edits.labels:
        habits.get(key, Counter()).pop(label, None)
    for key, labels in habits.items():
        labels.subtract(misses.get(key, Counter()))
    habits = {key: +labels for key, labels in habits.items() if +labels}  # unary +: the positive counts
    return VendorProfile(
        profile_id,
        vendor_id,
        name,
        dict(identifiers),
        {k: dict(v) for k, v in habits.items()},
        {k: dict(v) for k, v in shapes.items()},
        {k: dict(v) for k, v in values.items()},
        tuple(lesson.invoice_id for lesson in lessons),
        frozen,
        edits.to_json(),
        dict(filled),
    )


def propose(profile: VendorProfile, text: str) -> dict[str, Proposal]:
    """Field -> what ``profile`` proposes for the page ``text`` (only fields it can read)."""
    lines = text.splitlines()
    out: dict[str, Proposal] = {}
    if profile.name:
        out["vendor_name"] = Proposal(profile.name, profile.values.get("vendor_name", {}).get(profile.name, 0))
    currencies = profile.values.get("currency", {})
    if len(currencies) == 1:
        ((code, count),) = currencies.items()
        out["currency"] = Proposal(code, count)
    for name in LEARNED_FIELDS:
        habit = profile.habits.get(name)
        if not habit or name in out:
            continue
        found = _read(name, lines, habit, profile.shapes.get(name, {}))
        backing: dict[str, tuple[int, str, Any]] = {}  # value -> its best label's (count, key, value)
        for value, key in found:
            best = backing.get(str(value), (0, "", None))
            backing[str(value)] = max(best, (habit[key], key, value), key=lambda item: item[:2])
        ranked = sorted(backing.values(), key=lambda item: (-item[0], item[1]))
        margin = ranked[0][0] - ranked[1][0] if len(ranked) > 1 else ranked[0][0] if ranked else 0
        if margin > 0:
            out[name] = Proposal(ranked[0][2], margin, ranked[0][1])
    return out


def _read(name: str, lines: list[str], habit: dict[str, int], shapes: dict[str, int]) -> list[tuple[Any, str]]:
    """(value, label key) of every value of field ``name`` printed under a label key of the habit."""
    wanted = set(habit)
    # a label OCR misread ("IUIAL" for "TOTAL") is the habit whose skeleton it has, the most
    # approved one where two share it
    alike = {skeleton(key): key for key in sorted(wanted, key=lambda k: (habit[k], k))}
    above = {key for key in wanted if key.startswith("^")}
    last_words = {skeleton(word) for key in wanted for word in WORD_RE.findall(key)[-1:]}
    found: list[tuple[Any, str]] = []
    for i, line in enumerate(lines):
        if not above and not any(word in skeleton(line.casefold()) for word in last_words):
            continue  # no word of any label key on the line: skip the parsing
        if name == "total_amount":
            spots = [(str(abs(m.value)), m.start) for m in find_amounts(line)]
        elif name == "invoice_date":
            dayfirst = shapes.get("dmy", 0) >= shapes.get("mdy", 0)
            spots = [(m.iso, m.start) for m in find_dates(line, dayfirst, loose=True)]
        else:
            spots = []
            for run, start in id_runs(line, {1, *(shape.count(" ") + 1 for shape in shapes)}):
                token = in_shape(run.lstrip("#"), shapes)
                if token is not None:
                    spots.append((token, start))
        for value, start in spots:
            key = label_key(lines, i, start)
            key = key if key in wanted else alike.get(skeleton(key))
            if key is not None:
                found.append((value, key))
    return found


# A digit OCR read for a letter: the reverse of the letters it reads for digits.
_TO_LETTER = {"0": "O", "1": "I", "2": "Z", "5": "S", "8": "B"}


def in_shape(token: str, shapes: dict[str, int]) -> str | None:
    """``token`` as the vendor prints its ids: itself when its shape (``id_shape``) is one the
    vendor's approvals showed (or none is known); else, where swapping OCR's usual confusions
    (O/0, I/1, S/5, B/8...) gives a shape they showed, the token so read back ("0R18-26792" ->
    "OR18-26792" for a vendor whose numbers are ``AA99-99999``); else None."""
    if not shapes or id_shape(token) in shapes:
        return token
    upper = token.upper()
    for shape in sorted(shapes, key=lambda k: (-shapes[k], k)):
        if len(shape) != len(upper):
            continue
        out = []
        for ch, want in zip(upper, shape, strict=True):  # lengths checked above
            if want == "9" and not ch.isdigit():
                ch = OCR_DIGIT_FOR.get(ch, "")
            elif want == "A" and not ch.isalpha():
                ch = _TO_LETTER.get(ch, "")
            elif want not in "9A" and ch != want:
                ch = ""
            if not ch:
                break
            out.append(ch)
        else:
            return "".join(out)
    return None
