"""The extraction queue (DESIGN.md flow steps 4-5): the durable job table with its leases
(``jobs``), the dispatcher that leases jobs and drives the pipeline pool (``dispatcher``), and
what operators do with it (``admin``: list, retry, reprocess).

Jobs live in SQLite; the pool is whatever ``pipeline.runtime.pool.start_pool`` returned. Must not import
``api``; the CLI and the server call in, never the other way round.
"""
