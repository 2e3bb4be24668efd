"""The profiles of one tenant, indexed by identifier (``ProfileBook``), and the match of a page
against them (``Match``).

A page matches a profile when the identifiers they share weigh at least ``MATCH_WEIGHT``
(``identifiers.WEIGHTS``: one IBAN, VAT or registration number, an e-mail domain, or a web
domain and a phone together). An identifier that several profiles hold (the tenant's own VAT
number, printed on every supplier's invoice in the bill-to block) names nobody and is left out
of the index. Matching costs one dict lookup per identifier of the page, whatever the number of
profiles. Given the page's text, a profile matches only if its vendor's name is printed on the
page (``name_printed``): the identifiers of the bill-to block (the tenant's own VAT number, on
every supplier's invoice) would otherwise name the first vendor that learnt them, until a second
one does.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass

from pipeline.profiles.identifiers import weight
from pipeline.profiles.profile import VendorProfile

MATCH_WEIGHT = 2
NAME_PRINTED = 0.85  # share of the name's letters and digits found in order on one line (OCR drops some)


@dataclass(frozen=True)
class BookHandle:
    """A ``ProfileBook`` left in the Ray object store, in place of the book in a job's context:
    its ``key`` and, in a one-element list so that Ray does not resolve it on the call, its
    object reference. The worker resolves it once per key (``pipeline.runtime.worker``)."""

    key: str
    ref: list

    def __len__(self) -> int:
        return 1  # truthy: the profile step runs, on the book the worker resolves


@dataclass(frozen=True)
class Match:
    """A page's match: the ``profile``, the identifiers they share (``shared``) and their
    summed weight; ``contradicts`` lists the page's identifiers of a kind the profile knows other
    values of (a new IBAN for a known vendor: the classic payment fraud), ``ambiguous`` the
    other profiles the page also matched."""

    profile: VendorProfile
    shared: tuple[str, ...]
    weight: int
    contradicts: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()


class ProfileBook:
    """A tenant's vendor profiles with an identifier index. ``key`` names this version of the
    book (tenant and revision, ``appliance.profiles.book_of``; "" when unnamed): a Ray pool
    ships a named book to its workers once, not with every job (``BookHandle``)."""

    def __init__(self, profiles: tuple[VendorProfile, ...] = (), key: str = "") -> None:
        self.key = key
        self.profiles = {p.profile_id: p for p in profiles}
        holders: dict[str, set[str]] = defaultdict(set)
        for profile in profiles:
            for identifier in profile.identifiers:
                holders[identifier].add(profile.profile_id)
        self.index = {ident: next(iter(ids)) for ident, ids in holders.items() if len(ids) == 1}
        self.by_vendor = {p.vendor_id: p.profile_id for p in profiles if p.vendor_id}

    def __len__(self) -> int:
        return len(self.profiles)

    def match(
        self, page_identifiers: frozenset[str], vendor_id: str | None = None, text: str | None = None
    ) -> Match | None:
        """The best-matching profile of a page with ``page_identifiers``, or None. With ``text``
        (the page's, or the approved vendor name when an approval is filed), a profile matched by
        identifiers alone must have a name of it printed there (``name_printed``,
        ``VendorProfile.printed_names``); the upload's
        ``vendorId`` needs no such check."""
        weights: dict[str, int] = defaultdict(int)
        shared: dict[str, list[str]] = defaultdict(list)
        for ident in page_identifiers:
            owner = self.index.get(ident)
            if owner is not None:
                weights[owner] += weight(ident)
                shared[owner].append(ident)
        if text is not None:
            for pid in [p for p, w in weights.items() if w >= MATCH_WEIGHT]:
                if not any(name_printed(name, text) for name in self.profiles[pid].printed_names):
                    del weights[pid]
        if vendor_id in self.by_vendor:  # the upload's vendorId: one lookup, not a scan of the book
            weights[self.by_vendor[vendor_id]] += MATCH_WEIGHT
        matched = sorted((pid for pid, w in weights.items() if w >= MATCH_WEIGHT), key=lambda p: (-weights[p], p))
        if not matched:
            return None
        best = self.profiles[matched[0]]
        kinds = {ident.split(":", 1)[0] for ident in best.identifiers if ident.startswith(("iban:", "vat:"))}
        contradicts = tuple(
            sorted(
                i
                for i in page_identifiers
                if i.split(":", 1)[0] in kinds
                and i not in best.identifiers
                and self.index.get(i) is None
                and i.startswith("iban:")
            )
        )
        return Match(
            best, tuple(sorted(shared[best.profile_id])), weights[best.profile_id], contradicts, tuple(matched[1:])
        )


def name_printed(name: str | None, text: str) -> bool:
    """Whether vendor ``name`` is printed in ``text``: compared on letters and digits only
    (NFKC, case-folded: spacing, punctuation and a text layer's split Thai marks do not count),
    as a substring of the whole text, or with at least ``NAME_PRINTED`` of its characters found
    in order within one line, in a span not much longer than the name (OCR's misreadings). A
    profile without a name cannot be checked and passes."""
    want = _letters(name or "")
    if not want:
        return True
    lines = [_letters(line) for line in text.splitlines()]
    if want in "".join(lines):
        return True
    for i, line in enumerate(lines):
        here = line + (lines[i + 1] if i + 1 < len(lines) else "")  # a name wrapped over two lines
        if len(here) < NAME_PRINTED * len(want):
            continue
        blocks = [b for b in difflib.SequenceMatcher(None, want, here, autojunk=False).get_matching_blocks() if b.size]
        if not blocks or sum(b.size for b in blocks) < NAME_PRINTED * len(want):
            continue
        span = blocks[-1].b + blocks[-1].size - blocks[0].b
        if span <= 1.3 * len(want):
            return True
    return False


def _letters(value: str) -> str:
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", value)).casefold()
