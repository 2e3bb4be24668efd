"""Tier 1: vendor templates in invoice2data's YAML format (``invoice2data``): loading one,
rendering a document's text the way invoice2data sees it, and applying a template to it.

Must not import ``api``, ``appliance`` or ``webui``, nor ``pipeline.runtime``, the steps, or the
other families but ``values`` (einvoice, rules, model, decision).
"""
