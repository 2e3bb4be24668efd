"""Vendors of a tenant (tier 1): who they are, their optional invoice2data template, and how an
extracted invoice is matched to one (tax id first, then a fuzzy name), or creates one.

Names compare after normalisation (case, accents, punctuation, legal forms such as GmbH, Inc.,
Ltd, SDN BHD, B.V., S.A.); a fuzzy match needs a difflib ratio of at least 0.9.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
import uuid
from typing import Any

from appliance.db import Database, fetchone, utcnow
from appliance.errors import BadRequest, NotFound
from appliance.tenants import parse_uuid

NAME_MATCH_RATIO = 0.9
LEGAL_FORMS = re.compile(  # matched after dots are removed: "G.m.b.H." is "gmbh", "S.A." is "sa"
    r"\b(gmbh|ag|kg|ohg|ug|ek|inc|llc|ltd|limited|plc|corp|corporation|co|company|sdn|bhd|bv|nv|"
    r"sa|sas|sarl|srl|spa|ab|as|oy|pty|kk)\b"
)


def normalise_name(name: str) -> str:
    """A vendor name for comparison: no accents, case, punctuation or legal form."""
    text = unicodedata.normalize("NFKD", name).casefold()
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = text.replace(".", "")
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(LEGAL_FORMS.sub(" ", text).split())


def normalise_tax_id(tax_id: str | None) -> str:
    return re.sub(r"[^0-9A-Z]", "", (tax_id or "").upper())


def validate_template(yaml_text: str, name: str) -> str:
    """The template's name after checking it loads as an invoice2data template (BadRequest if not)."""
    from pipeline.templates.invoice2data import TemplateError, load_template

    try:
        template = load_template(yaml_text, name)
    except TemplateError as exc:
        raise BadRequest(str(exc)) from exc
    return str(template.get("template_name") or name)


async def create_vendor(
    db: Database, tenant_id: str, name: str, tax_id: str | None = None, template: str | None = None
) -> str:
    """Create a vendor of the tenant, with an optional invoice2data template (YAML text); returns its id.

    Raises NotFound for an unknown tenant, BadRequest for an empty name or a broken template.
    """
    name = name.strip()
    if not name:
        raise BadRequest("vendor name must not be empty")
    template_name = validate_template(template, name) if template else None
    vendor_id = str(uuid.uuid4())
    async with db.transaction() as conn:
        canonical = parse_uuid(tenant_id)
        if canonical is None or await fetchone(conn, "SELECT 1 FROM tenants WHERE id = ?", (canonical,)) is None:
            raise NotFound(f"tenant {tenant_id} not found")
        await conn.execute(
            "INSERT INTO vendors (id, tenant_id, name, tax_id, template, template_name, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (vendor_id, canonical, name, tax_id, template, template_name, utcnow()),
        )
    return vendor_id


async def list_vendors(db: Database, tenant_id: str) -> list[dict[str, Any]]:
    """The tenant's vendors, by name: id, name, tax id, template name, invoices seen."""
    rows = await db.fetchall(
        "SELECT v.id, v.name, v.tax_id, v.template_name, v.created_at, "
        "(SELECT COUNT(*) FROM invoices i WHERE i.vendor_id = v.id) AS invoices "
        "FROM vendors v WHERE v.tenant_id = ? ORDER BY v.name",
        (parse_uuid(tenant_id) or tenant_id,),
    )
    return [dict(row) for row in rows]


async def show_vendor(db: Database, vendor_id: str) -> dict[str, Any]:
    """One vendor with its template text. NotFound for an unknown id."""
    row = await db.fetchone("SELECT * FROM vendors WHERE id = ?", (parse_uuid(vendor_id) or "",))
    if row is None:
        raise NotFound(f"vendor {vendor_id} not found")
    return dict(row)


async def tenant_vendor(db: Database, tenant_id: str, vendor_id: str) -> dict[str, Any]:
    """The tenant's vendor ``vendor_id`` with its template text (``show_vendor``); NotFound for
    an unknown id and for another tenant's vendor alike (as the API answers)."""
    vendor = await show_vendor(db, vendor_id)
    if vendor["tenant_id"] != (parse_uuid(tenant_id) or tenant_id):
        raise NotFound(f"vendor {vendor_id} not found")
    return vendor


async def update_vendor(db: Database, tenant_id: str, vendor_id: str, name: str, tax_id: str | None) -> None:
    """Set the identifiers of the tenant's vendor: its name and tax id (empty: none), which
    ``match_or_create`` matches extracted invoices by. BadRequest for an empty name, NotFound as
    ``tenant_vendor``."""
    name, tax_id = name.strip(), (tax_id or "").strip() or None
    if not name:
        raise BadRequest("vendor name must not be empty")
    vendor = await tenant_vendor(db, tenant_id, vendor_id)
    async with db.transaction() as conn:
        await conn.execute("UPDATE vendors SET name = ?, tax_id = ? WHERE id = ?", (name, tax_id, vendor["id"]))


async def set_template(db: Database, tenant_id: str, vendor_id: str, template: str | None) -> str | None:
    """Replace the invoice2data template of the tenant's vendor with ``template`` (YAML text;
    empty: the vendor has none) after ``validate_template``; returns the template's name. A
    template that does not load is refused (BadRequest, saying where) and nothing changes;
    NotFound as ``tenant_vendor``. Later extractions of the tenant try it (tier 1)."""
    text = (template or "").replace("\r\n", "\n")  # a browser's textarea sends CRLF
    vendor = await tenant_vendor(db, tenant_id, vendor_id)
    text = text if text.strip() else ""
    template_name = validate_template(text, vendor["name"]) if text else None
    async with db.transaction() as conn:
        await conn.execute(
            "UPDATE vendors SET template = ?, template_name = ? WHERE id = ?",
            (text or None, template_name, vendor["id"]),
        )
    return template_name


async def vendor_invoices(db: Database, tenant_id: str, vendor_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """Invoices of the tenant to try the vendor's template on: the vendor's own first, then the
    tenant's others, newest first, at most ``limit``: id, invoice number, vendor name, status,
    created."""
    rows = await db.fetchall(
        "SELECT i.id, i.invoice_number, i.processing_status, i.created_at, i.vendor_id = ? AS own, "
        "COALESCE(v.name, json_extract(i.data_json, '$.vendor_name')) AS vendor "
        "FROM invoices i LEFT JOIN vendors v ON v.id = i.vendor_id WHERE i.tenant_id = ? "
        "AND (i.data_json IS NOT NULL OR i.id IN (SELECT invoice_id FROM invoice_texts)) "
        "ORDER BY own DESC, i.created_at DESC LIMIT ?",
        (vendor_id, parse_uuid(tenant_id) or tenant_id, limit),
    )
    return [dict(row) for row in rows]


async def templates_of(db: Database, tenant_id: str) -> tuple[tuple[str, str], ...]:
    """``(vendor_id, template yaml)`` of every vendor of the tenant that has a template."""
    rows = await db.fetchall(
        "SELECT id, template FROM vendors WHERE tenant_id = ? AND template IS NOT NULL ORDER BY created_at",
        (tenant_id,),
    )
    return tuple((row["id"], row["template"]) for row in rows)


async def match_or_create(conn, tenant_id: str, data: dict[str, Any]) -> str | None:
    """The vendor of an extracted invoice inside the caller's transaction: same tax id, else a
    name within NAME_MATCH_RATIO, else a new vendor named as extracted. None without a name or id."""
    name, tax_id = data.get("vendor_name"), normalise_tax_id(data.get("vendor_tax_id"))
    async with conn.execute("SELECT id, name, tax_id FROM vendors WHERE tenant_id = ?", (tenant_id,)) as cursor:
        vendors = list(await cursor.fetchall())
    if tax_id:
        for vendor in vendors:
            if normalise_tax_id(vendor["tax_id"]) == tax_id:
                return vendor["id"]
    if not name:
        return None
    wanted = normalise_name(name)
    scored = [(difflib.SequenceMatcher(None, wanted, normalise_name(v["name"])).ratio(), v["id"]) for v in vendors]
    best = max(scored, default=(0.0, None))
    if wanted and best[0] >= NAME_MATCH_RATIO:
        return best[1]
    vendor_id = str(uuid.uuid4())
    await conn.execute(
        "INSERT INTO vendors (id, tenant_id, name, tax_id, created_at) VALUES (?, ?, ?, ?, ?)",
        (vendor_id, tenant_id, name, data.get("vendor_tax_id"), utcnow()),
    )
    return vendor_id
