"""Trying a vendor's invoice2data template on one invoice of the tenant before saving it (issue
28, the vendor page's template editor): the pipeline's own template step
(``pipeline.steps.template_trial``) on the text the pipeline read from the invoice, kept with it
(``appliance.invoices.kept_text``); no file is read again, no OCR, no model, nothing is written.

An invoice extracted before the appliance kept texts has only its ``data.raw_text``: the template
then runs on that, whose words are one space apart where the kept text has the page's columns
(``TemplateTrial.text_kept`` is False, and the page says so).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from appliance import invoices
from appliance.db import Database
from appliance.errors import BadRequest
from appliance.vendors import tenant_vendor, validate_template
from pipeline.document import DocumentText
from pipeline.values import normalise


@dataclass(frozen=True)
class TemplateTrial:
    """What a template reads from one invoice: ``applied`` (invoice2data found its required
    fields), then ``fields`` (the header fields of schema 2.9 it read, normalised as the pipeline
    normalises a template's values) and ``line_items``; else ``misses`` (why, in invoice2data's
    words). ``template_name``; ``missing_keywords``: its keywords not in the text (none: the
    template is tried on such an invoice even without ``vendorId``); ``text``: the text it ran
    on; ``text_kept``: False when that is ``raw_text`` (see the module docstring)."""

    invoice_id: str
    template_name: str
    text: str
    text_kept: bool
    applied: bool
    fields: dict[str, Any] = field(default_factory=dict)
    line_items: list[dict[str, Any]] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    missing_keywords: list[str] = field(default_factory=list)


async def try_template(db: Database, tenant_id: str, vendor_id: str, invoice_id: str, yaml_text: str) -> TemplateTrial:
    """Run ``yaml_text`` as the template of the tenant's vendor ``vendor_id`` on the tenant's
    invoice ``invoice_id``, forced as for an upload that names the vendor; nothing is saved.

    Raises BadRequest for a template that does not load (``validate_template``: where and why)
    or an invoice with no text yet (queued, or failed before reading); NotFound for an unknown
    id or another tenant's vendor or invoice."""
    from pipeline.steps import template_trial  # the pipeline's steps: off the API's import path
    from pipeline.templates.invoice2data import load_template

    vendor = await tenant_vendor(db, tenant_id, vendor_id)
    text = yaml_text.replace("\r\n", "\n")
    name = validate_template(text, vendor["name"])
    invoice = await invoices.get_invoice(db, invoice_id, tenant_id)
    kept = await invoices.kept_text(db, invoice["id"])
    layout = kept if kept is not None else (invoice["data"] or {}).get("raw_text")
    if not layout:
        state = invoice["processingStatus"]
        raise BadRequest(f"invoice {invoice['id']} has no text to try a template on ({state}): pick another")
    work = await asyncio.to_thread(template_trial, DocumentText.of_text(layout), vendor["id"], text)
    found = work.template
    keywords = load_template(text, vendor["name"]).get("keywords") or []
    return TemplateTrial(
        invoice["id"],
        name,
        layout,
        kept is not None,
        applied=found is not None,
        fields=normalise.fields(found.fields) if found else {},
        line_items=[item for item in map(normalise.line_item, found.line_items) if item] if found else [],
        misses=[] if found else list(work.template_misses),
        missing_keywords=[str(k) for k in keywords if str(k) not in layout],
    )
