from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.invoice import Invoice
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: UUID,
    *,
    wait: float | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    params: dict[str, Any] = {}

    params["wait"] = wait

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/invoices/{id}".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Error | Invoice | None:
    if response.status_code == 200:
        response_200 = Invoice.from_dict(response.json())

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | Error | Invoice]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    wait: float | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | Error | Invoice]:
    """Poll an invoice until ready

     Every answer carries an ETag. A client that sends it back in If-None-Match gets 304 with no body
    while the invoice is unchanged. With ?wait=SECONDS (at most 60) the answer waits until the invoice
    is ready, or, with If-None-Match, until it differs from that ETag, or until the time is up: one
    request instead of a poll a second (the client's own timeout must be longer).

    Args:
        id (UUID):
        wait (float | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error | Invoice]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
        if_none_match=if_none_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: UUID,
    *,
    client: AuthenticatedClient,
    wait: float | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | Error | Invoice | None:
    """Poll an invoice until ready

     Every answer carries an ETag. A client that sends it back in If-None-Match gets 304 with no body
    while the invoice is unchanged. With ?wait=SECONDS (at most 60) the answer waits until the invoice
    is ready, or, with If-None-Match, until it differs from that ETag, or until the time is up: one
    request instead of a poll a second (the client's own timeout must be longer).

    Args:
        id (UUID):
        wait (float | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error | Invoice
    """

    return sync_detailed(
        id=id,
        client=client,
        wait=wait,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    id: UUID,
    *,
    client: AuthenticatedClient,
    wait: float | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | Error | Invoice]:
    """Poll an invoice until ready

     Every answer carries an ETag. A client that sends it back in If-None-Match gets 304 with no body
    while the invoice is unchanged. With ?wait=SECONDS (at most 60) the answer waits until the invoice
    is ready, or, with If-None-Match, until it differs from that ETag, or until the time is up: one
    request instead of a poll a second (the client's own timeout must be longer).

    Args:
        id (UUID):
        wait (float | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error | Invoice]
    """

    kwargs = _get_kwargs(
        id=id,
        wait=wait,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: UUID,
    *,
    client: AuthenticatedClient,
    wait: float | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | Error | Invoice | None:
    """Poll an invoice until ready

     Every answer carries an ETag. A client that sends it back in If-None-Match gets 304 with no body
    while the invoice is unchanged. With ?wait=SECONDS (at most 60) the answer waits until the invoice
    is ready, or, with If-None-Match, until it differs from that ETag, or until the time is up: one
    request instead of a poll a second (the client's own timeout must be longer).

    Args:
        id (UUID):
        wait (float | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error | Invoice
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            wait=wait,
            if_none_match=if_none_match,
        )
    ).parsed
