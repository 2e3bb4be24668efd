"""The HTTP surface only: routes, request/response schemas (they feed the OpenAPI document),
API key auth and the error body. Business rules live in ``appliance``; handlers call it.
Must not import ``server`` (the composition root above it) or ``appliance.cli``, nor any model
back-end.
"""
