"""Field sets the tests expect, spelled out here from the spec rather than imported from
``pipeline.schema``, so that a test comparing against them checks the schema too."""

from __future__ import annotations

# Spec 2.10: every key of a line item (what the layout rules read).
LINE_ITEM_KEYS = {
    "description",
    "line_no",
    "sku",
    "quantity",
    "unit",
    "unit_price",
    "discount",
    "tax",
    "line_total",
}
# Every key of a line item in ``data["line_items"]``: spec 2.10's, and beyond it ``group`` (the
# lines an e-invoice's sub-invoice line is nested under; README, tier 0).
DATA_LINE_ITEM_KEYS = LINE_ITEM_KEYS | {"group"}
