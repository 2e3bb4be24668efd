"""A client library for accessing Invoice Extraction Programmatic API"""

from .client import AuthenticatedClient, Client

__all__ = (
    "AuthenticatedClient",
    "Client",
)
