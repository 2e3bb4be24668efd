"""Approved invoices out of the appliance (issue 28, "Export"; DESIGN.md "Export").

Owns the accounting CSV of a period (``accounting_csv``), the EN 16931 business terms of an
approved invoice and what it lacks for them (``en16931``), the e-invoices made from those terms
with the factur-x library and checked against the official XSD before they are offered: CII,
UBL 2.1 and the Factur-X PDF/A-3 (``einvoice``), and the PDF/A-3 page images of the Factur-X's
visible part (``visible_pdf``, with the ICC profile beside it, README.md). The review pages and
the CLI call these functions; nothing here is exported unless a person approved it.

Like the rest of ``appliance`` it must not import ``api``, ``webui`` or aiohttp; factur-x, pypdf
and pypdfium2 are imported inside the functions that need them.
"""
