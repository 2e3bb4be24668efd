"""Values and their checks, shared by every family of the pipeline: printed text to dates and
amounts (``parsers``), money as ``Decimal`` and its one tolerance rule (``money``), the spec's
normal forms of ``data`` (``normalise``), and the arithmetic and date checks (``validate``).

Must not import ``api``, ``appliance`` or ``webui``, nor any other family of ``pipeline``
(reading, einvoice, templates, rules, model, decision, runtime): they all import this.
"""
