"""Deciding among the proposals: every key field's candidates on the page (``candidates``) and
the learned scorer that ranks them and says how sure it is (``scorer``, ``scorer/``), the
per-field arbiter between template, rules and model for the other fields and its fitted table
(``arbitrate``, ``arbiter_table.json``), the evidence of each field (``evidence``) and its
calibrated confidence (``confidence``, ``confidence_table.json``).

Must not import ``api``, ``appliance`` or ``webui``, nor ``pipeline.runtime``, the steps or the
proposers (einvoice, templates, model): it reads their results, it does not run them. Of the
rules it reads their label patterns, layout lines and candidate finders (to list what the page
offers), never their choices.
"""
