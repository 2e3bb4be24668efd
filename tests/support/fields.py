"""Field sets the tests expect, spelled out here from the spec rather than imported from
``pipeline.schema``, so that a test comparing against them checks the schema too."""

from __future__ import annotations

# Spec 2.10: every key of a line item in ``data["line_items"]``.
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
