"""The headers every response of ``/review`` carries (issue 28), set as it is prepared, so that
pages, redirects, error pages and files all have them:

- ``Content-Security-Policy``: scripts only from our own static files (no inline script, no
  ``eval``; the invoice page's script is ``static/invoice.js``), images, styles, forms and
  fetches only from this origin, no plug-ins, no ``<base>``, and ``frame-ancestors 'none'`` (no
  page of ours inside another site's frame: clickjacking). Styles may be inline (the templates'
  ``<style>`` and ``style=``): CSS cannot run code, and the templates escape what they print.
- ``X-Frame-Options: DENY`` for browsers that predate ``frame-ancestors``;
  ``X-Content-Type-Options: nosniff``; ``Referrer-Policy: no-referrer`` (an invoice's address
  never reaches another site, Stripe's checkout included).
- ``Cache-Control: no-store`` on everything but the static files: the pages and page images
  carry invoice data, keys and balances, which no browser or proxy cache should keep. Static files
  get ``no-cache`` (kept, but checked against their ETag, so an upgrade is seen at once).
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from webui.access import PREFIX

STATIC = Path(__file__).parent / "static"
STATIC_PATH = "/static"
CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def headers(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare`` of the review app: HEADERS, and Cache-Control (module docstring)."""
    response.headers.update(HEADERS)
    static = request.path.startswith(PREFIX + STATIC_PATH + "/")
    response.headers["Cache-Control"] = "no-cache" if static else "no-store"


def routes() -> list[web.AbstractRouteDef]:
    """``/static/{filename}``: the files of ``webui/static`` (scripts the CSP allows), no index."""
    return [web.static(STATIC_PATH, STATIC)]
