"""State and wiring of the appliance: settings, SQLite, the credit ledger, the job queue, the
dispatcher that drives the pipeline pool, and the operator CLI.

Must not import ``api`` except in ``appliance.server``, the one module that assembles and serves
the web app. Business rules live here, not in HTTP handlers.
"""
