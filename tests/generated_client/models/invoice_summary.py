from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.invoice_summary_processing_status import InvoiceSummaryProcessingStatus
from ..models.invoice_summary_status import InvoiceSummaryStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="InvoiceSummary")


@_attrs_define
class InvoiceSummary:
    """
    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        processing_status (InvoiceSummaryProcessingStatus):
        status (InvoiceSummaryStatus):
        updated_at (datetime.datetime):
        invoice_number (None | str | Unset):
        tenant_id (UUID | Unset):
        vendor_id (None | Unset | UUID):
    """

    created_at: datetime.datetime
    id: UUID
    processing_status: InvoiceSummaryProcessingStatus
    status: InvoiceSummaryStatus
    updated_at: datetime.datetime
    invoice_number: None | str | Unset = UNSET
    tenant_id: UUID | Unset = UNSET
    vendor_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        processing_status = self.processing_status.value

        status = self.status.value

        updated_at = self.updated_at.isoformat()

        invoice_number: None | str | Unset
        if isinstance(self.invoice_number, Unset):
            invoice_number = UNSET
        else:
            invoice_number = self.invoice_number

        tenant_id: str | Unset = UNSET
        if not isinstance(self.tenant_id, Unset):
            tenant_id = str(self.tenant_id)

        vendor_id: None | str | Unset
        if isinstance(self.vendor_id, Unset):
            vendor_id = UNSET
        elif isinstance(self.vendor_id, UUID):
            vendor_id = str(self.vendor_id)
        else:
            vendor_id = self.vendor_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "createdAt": created_at,
                "id": id,
                "processingStatus": processing_status,
                "status": status,
                "updatedAt": updated_at,
            }
        )
        if invoice_number is not UNSET:
            field_dict["invoiceNumber"] = invoice_number
        if tenant_id is not UNSET:
            field_dict["tenantId"] = tenant_id
        if vendor_id is not UNSET:
            field_dict["vendorId"] = vendor_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        id = UUID(d.pop("id"))

        processing_status = InvoiceSummaryProcessingStatus(d.pop("processingStatus"))

        status = InvoiceSummaryStatus(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        def _parse_invoice_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        invoice_number = _parse_invoice_number(d.pop("invoiceNumber", UNSET))

        _tenant_id = d.pop("tenantId", UNSET)
        tenant_id: UUID | Unset
        if isinstance(_tenant_id, Unset):
            tenant_id = UNSET
        else:
            tenant_id = UUID(_tenant_id)

        def _parse_vendor_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                vendor_id_type_0 = UUID(data)

                return vendor_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        vendor_id = _parse_vendor_id(d.pop("vendorId", UNSET))

        invoice_summary = cls(
            created_at=created_at,
            id=id,
            processing_status=processing_status,
            status=status,
            updated_at=updated_at,
            invoice_number=invoice_number,
            tenant_id=tenant_id,
            vendor_id=vendor_id,
        )

        return invoice_summary
