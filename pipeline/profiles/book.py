"""The profiles of one tenant, indexed by identifier (``ProfileBook``), and the match of a page
against them (``Match``).

A page matches a profile when the identifiers they share weigh at least ``MATCH_WEIGHT``
(``identifiers.WEIGHTS``: one IBAN, VAT or registration number, an e-mail domain, or a web
domain and a phone together). An identifier that several profiles hold (the tenant's own VAT
number, printed on every supplier's invoice in the bill-to block) names nobody and is left out
of the index. Matching costs one dict lookup per identifier of the page, whatever the number of
profiles.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pipeline.profiles.identifiers import weight
from pipeline.profiles.profile import VendorProfile

MATCH_WEIGHT = 2


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

    def match(self, page_identifiers: frozenset[str], vendor_id: str | None = None) -> Match | None:
        """The best-matching profile of a page with ``page_identifiers``, or None."""
        weights: dict[str, int] = defaultdict(int)
        shared: dict[str, list[str]] = defaultdict(list)
        for ident in page_identifiers:
            owner = self.index.get(ident)
            if owner is not None:
                weights[owner] += weight(ident)
                shared[owner].append(ident)
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
