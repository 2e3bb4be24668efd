"""Codes of EN 16931 and its extensions that more than one family reads: whether a document-level
charge is freight (BT-104 reason, BT-105 code) and whether an invoice line counts in the
totals (BT-X-8, the subtype of a Factur-X / ZUGFeRD EXTENDED sub-invoice line). The e-invoice
reader applies them to the XML, the built-in visualisation layout to its print of that XML.
"""

from __future__ import annotations

import re

# Reason texts (BT-104 / BT-97 style free text) of a document-level charge that mean freight:
# such charges are shipping_cost, every other charge (a surcharge, a service fee) is
# service_charge. The code FC (UNTDID 7161 "freight charge") counts only when there is no
# text, because senders often put a generic code there.
FREIGHT_REASON = re.compile(
    r"versand|fracht|porto|zustell|liefer(kosten|pauschale|gebühr)|transport|shipping|freight|"
    r"delivery|carriage|postage|frais\s+de\s+port|\bport\b|livraison|exp[ée]dition|"
    r"verzend|bezorg|env[íi]o|spedizione",
    re.IGNORECASE,
)
FREIGHT_CODE = "FC"

# The subtypes of an invoice line (BT-X-8, ram:LineStatusReasonCode; Factur-X 1.08 / ZUGFeRD 2.4
# EXTENDED, "sub invoice lines", spec chapter 7.6.2), and those whose net amount is not part of
# the totals: a GROUP is the subtotal of its children (BR-FXEXT-08), an INFORMATION line is for
# information only. BT-106 adds the others (BR-FXEXT-CO-10: DETAIL or no subtype).
LINE_SUBTYPES = ("DETAIL", "GROUP", "INFORMATION")
NOT_COUNTED_SUBTYPES = frozenset({"GROUP", "INFORMATION"})


def is_freight(reason: str | None, code: str | None) -> bool:
    """Whether a document-level charge with ``reason`` (BT-104) and ``code`` (BT-105) is freight:
    the reason text decides when there is one, else the code FC."""
    if reason:
        return bool(FREIGHT_REASON.search(reason))
    return (code or "").strip().upper() == FREIGHT_CODE


def counts_in_totals(subtype: str | None) -> bool:
    """Whether a line of subtype ``subtype`` (BT-X-8, any case; None: not given) adds to the sum of
    line net amounts (BT-106): every subtype but GROUP and INFORMATION (Factur-X 1.08 EXTENDED
    Schematron, BR-FXEXT-CO-10 and BR-FXEXT-08)."""
    return (subtype or "").strip().upper() not in NOT_COUNTED_SUBTYPES
