"""State and wiring of the appliance: everything that outlives one request or one document.

Owns ``settings`` (typed config), the data dir (``datadir``), SQLite (``db``, ``migrations``),
tenants and API keys (``tenants``), the credit ledger and Stripe (``ledger``, ``billing``),
vendors (``vendors``), an uploaded file from the request to the store (``uploads``), invoices
and their human review (``invoices``, ``review``, ``correction_values``), the job queue and the
dispatcher that drives the pipeline pool (``queue/``), batch extraction (``batch``), operations
(``checks``, ``readiness``, ``metrics``, ``notify``, ``logs``, ``backup``) and the operator CLI
(``cli/``). Business rules live here, not in HTTP handlers.

Knows no HTTP: must not import ``api``, ``webui`` or aiohttp (the composition root ``server``
assembles them with this package; only the CLI's ``serve`` command imports ``server``, to start
it). Model back-ends are reached through ``pipeline``, never loaded here.
"""
