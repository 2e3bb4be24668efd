"""The HTTP surface only: routes, request/response schemas (they feed the OpenAPI document),
API key auth and the error body. Business rules live in ``appliance``; handlers call it.
Must not import ``appliance.server`` or ``appliance.cli``, nor any model back-end.
"""
