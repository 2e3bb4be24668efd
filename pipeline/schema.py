"""The spec's vocabulary, declared once: the fields of extracted data (spec 2.9, 2.10), the key
fields that decide whether a ``completed`` invoice is right, the states of spec 3.1 and 3.2, and
the sources a value can come from.

Every layer imports these names from here (``pipeline`` is the lowest layer that ``appliance``
and ``api`` may import); nothing else spells a field set or a state out. The enums are
``StrEnum``: members are the strings themselves, so they compare with, store in SQLite and
serialise to JSON as the spec's values. Imports nothing of ours.
"""

from __future__ import annotations

from enum import StrEnum

# Spec 2.9: the money fields of ``data``, in the spec's order (the last of its header fields).
AMOUNT_FIELDS = (
    "subtotal",
    "discount",
    "tax_amount",
    "service_charge",
    "shipping_cost",
    "total_amount",
    "paid_amount",
    "balance_amount",
)
# Spec 2.9: the header fields of ``data``, in the spec's order.
HEADER_FIELDS = (
    "invoice_number",
    "invoice_date",
    "due_date",
    "vendor_name",
    "vendor_address",
    "vendor_tax_id",
    "vendor_email",
    "customer_name",
    "currency",
    "payment_terms",
    *AMOUNT_FIELDS,
)
DATE_FIELDS = ("invoice_date", "due_date")
ID_FIELDS = ("invoice_number", "vendor_tax_id")  # compared on letters and digits only
# Every key of ``data``: the header fields, then the line items (2.10) and the raw text.
DATA_FIELDS = (*HEADER_FIELDS, "line_items", "raw_text")
# The fields a reviewer needs right before booking: the reference scorer's KEY_FIELDS
# (../shared/bench/score.py), by which a ``completed`` invoice is judged right or wrong. In the
# order the LLM is asked for them when the rules leave them open (pipeline.runner).
KEY_FIELDS = ("invoice_number", "invoice_date", "vendor_name", "total_amount", "currency")

# Spec 2.10: a line item's fields; ``description`` is the only required one.
SPEC_LINE_FIELDS = ("description", "line_no", "sku", "quantity", "unit", "unit_price", "discount", "tax", "line_total")
# Every key of a line item in ``data``: the spec's, then beyond it ``group``, the names of the
# lines an e-invoice's line is nested under (EXTENDED sub-invoice lines,
# ``pipeline.einvoice.reader.counted_lines``), outermost first, joined by " > ".
LINE_FIELDS = (*SPEC_LINE_FIELDS, "group")
LINE_NUMBER_FIELDS = ("line_no", "quantity", "unit_price", "discount", "tax", "line_total")
LINE_AMOUNT_FIELDS = ("unit_price", "discount", "line_total")  # money; ``tax`` is a rate in percent


class ProcessingStatus(StrEnum):
    """Spec 3.1: the pipeline state of an invoice."""

    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    NEEDS_REVIEW = "needs_review"


# ``ready`` is true in these (spec 2.8); an invoice in the others is still with the queue.
READY_STATES = (ProcessingStatus.COMPLETED, ProcessingStatus.NEEDS_REVIEW, ProcessingStatus.FAILED)
BUSY_STATES = (ProcessingStatus.QUEUED, ProcessingStatus.PROCESSING)


class InvoiceStatus(StrEnum):
    """Spec 3.2, in its order: the state of the invoice record. ``reviewed``, ``approved`` and
    ``rejected`` are set by people (review), the others by the pipeline."""

    PENDING = "pending"
    PROCESSING = "processing"
    EXTRACTED = "extracted"
    REVIEWED = "reviewed"
    APPROVED = "approved"
    REJECTED = "rejected"
    DUPLICATE = "duplicate"


class Source(StrEnum):
    """Where a value of ``data`` came from (the ``source`` of its evidence). The value proposers
    ``TEMPLATE``, ``RULES`` and ``MODEL`` are the ones ``JobContext.sources`` names (``template``,
    ``rules``, ``model``); the extraction model's values say ``"llm"`` on the wire, as the
    evidence and the fitted confidence table always have."""

    EINVOICE = "einvoice"
    TEMPLATE = "template"
    PROFILE = "profile"  # the vendor profile learned from approvals
    RULES = "rules"
    MODEL = "llm"
    HUMAN = "human"
