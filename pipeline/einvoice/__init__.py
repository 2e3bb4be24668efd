"""Tier 0: an e-invoice's embedded XML (ZUGFeRD 1/2, Factur-X, XRechnung CII or UBL) read
exactly (``reader``), and whether the visible print says what the XML says (``print_check``).

Must not import ``api``, ``appliance`` or ``webui``, nor ``pipeline.runtime``, the steps, or the
other tiers' proposers (templates, model); the print check reads the print with the layout
rules and locates values with ``pipeline.decision.evidence``.
"""
