"""The review pages for people (issue 13), served under ``/review`` beside the API: log-in, the
Needs Attention queue and one invoice with its page, its fields, their evidence boxes, and Save,
Approve and Reject; the vendors and the profile each learnt from approvals (issue 26), which an
admin can freeze or forget; an admin's new vendors, identifiers and hand-written templates, tried
on an invoice before they are saved (``webui.vendor_pages``, issue 28); an admin's reprocess and
delete, and the next invoice that needs attention (``webui.lifecycle``, issue 28); for admins,
the export of approved invoices (issue 28: the accounting CSV of a period, EN 16931 e-invoices of
an invoice, ``webui.export``), the API key settings and billing (``webui.keys``,
``webui.billing``). Every answer carries the headers of ``webui.security``.

Server-rendered (aiohttp-jinja2) with a few lines of plain JavaScript and CSS in ``webui/static``
(the CSP allows no inline script), no build step. A sub-app
of its own: its session cookie and CSRF checks never touch ``/api/v1``, which stays API-key only
(spec section 5). Corrections and decisions go through ``appliance.review``, the functions the CLI
calls. May import ``appliance`` and ``pipeline``; must not import ``api``.
"""
