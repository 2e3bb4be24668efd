"""Routes of ``/api/v1`` (and ``/healthz``, ``/readyz``, ``/webhooks/stripe``), one module per
resource. A handler parses the request, calls ``appliance`` and returns its body; it holds no
business rule. Must not import ``server`` or ``appliance.cli``, nor any model back-end.
"""
