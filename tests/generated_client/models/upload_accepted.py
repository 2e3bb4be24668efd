from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.invoice_summary import InvoiceSummary


T = TypeVar("T", bound="UploadAccepted")


@_attrs_define
class UploadAccepted:
    """
    Attributes:
        file_id (UUID):
        invoice (InvoiceSummary):
        status_url (str):  Example: /api/v1/invoices/<invoice_id>.
    """

    file_id: UUID
    invoice: InvoiceSummary
    status_url: str

    def to_dict(self) -> dict[str, Any]:
        file_id = str(self.file_id)

        invoice = self.invoice.to_dict()

        status_url = self.status_url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "fileId": file_id,
                "invoice": invoice,
                "statusUrl": status_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invoice_summary import InvoiceSummary  # noqa: PLC0415

        d = dict(src_dict)
        file_id = UUID(d.pop("fileId"))

        invoice = InvoiceSummary.from_dict(d.pop("invoice"))

        status_url = d.pop("statusUrl")

        upload_accepted = cls(
            file_id=file_id,
            invoice=invoice,
            status_url=status_url,
        )

        return upload_accepted
