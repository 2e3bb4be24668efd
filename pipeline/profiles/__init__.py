"""Vendor profiles learned from approvals (DESIGN.md tier 1; issue "Every approval teaches the
appliance the vendor"): what identifies a vendor on a page (``identifiers``), what one approved
invoice teaches about where and how that vendor prints its key fields (``lessons``), the profile
those lessons add up to and the values it proposes on a new page (``profile``), and the index a
new page is matched against (``book``).

Pure functions over plain text and plain data, so that the appliance learns at approval time
from the ``raw_text`` it stored and the pipeline proposes from the text it read, with the same
code. Imports only ``pipeline`` modules and python-stdnum; must not import ``api``,
``appliance`` or ``training``.
"""
