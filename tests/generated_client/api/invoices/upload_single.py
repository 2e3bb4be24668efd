from http import HTTPStatus
from typing import Any
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.upload_accepted import UploadAccepted
from ...models.upload_single_body import UploadSingleBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: UploadSingleBody,
    vendor_id: UUID | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    json_vendor_id: str | Unset = UNSET
    if not isinstance(vendor_id, Unset):
        json_vendor_id = str(vendor_id)
    params["vendorId"] = json_vendor_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/invoices/upload",
        "params": params,
    }

    _kwargs["files"] = body.to_multipart()

    headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | UploadAccepted | None:
    if response.status_code == 202:
        response_202 = UploadAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = Error.from_dict(response.json())

        return response_402

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Error.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | UploadAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: UploadSingleBody,
    vendor_id: UUID | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | UploadAccepted]:
    """Create an invoice and upload its file in one step

    Args:
        vendor_id (UUID | Unset):
        idempotency_key (str | Unset):
        body (UploadSingleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | UploadAccepted]
    """

    kwargs = _get_kwargs(
        body=body,
        vendor_id=vendor_id,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: UploadSingleBody,
    vendor_id: UUID | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Error | UploadAccepted | None:
    """Create an invoice and upload its file in one step

    Args:
        vendor_id (UUID | Unset):
        idempotency_key (str | Unset):
        body (UploadSingleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | UploadAccepted
    """

    return sync_detailed(
        client=client,
        body=body,
        vendor_id=vendor_id,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: UploadSingleBody,
    vendor_id: UUID | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Error | UploadAccepted]:
    """Create an invoice and upload its file in one step

    Args:
        vendor_id (UUID | Unset):
        idempotency_key (str | Unset):
        body (UploadSingleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | UploadAccepted]
    """

    kwargs = _get_kwargs(
        body=body,
        vendor_id=vendor_id,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: UploadSingleBody,
    vendor_id: UUID | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Error | UploadAccepted | None:
    """Create an invoice and upload its file in one step

    Args:
        vendor_id (UUID | Unset):
        idempotency_key (str | Unset):
        body (UploadSingleBody):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | UploadAccepted
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            vendor_id=vendor_id,
            idempotency_key=idempotency_key,
        )
    ).parsed
