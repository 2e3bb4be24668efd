"""Deciding among the proposals: the per-field arbiter between template, rules and model and its
fitted table (``arbitrate``, ``arbiter_table.json``), the evidence of each field (``evidence``)
and its calibrated confidence (``confidence``, ``confidence_table.json``).

Must not import ``api``, ``appliance`` or ``webui``, nor ``pipeline.runtime``, the steps or the
proposers (einvoice, templates, model): it reads their results, it does not run them (of the
rules it reads only their label patterns).
"""
