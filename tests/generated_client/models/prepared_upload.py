from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.prepared_upload_processing_status import PreparedUploadProcessingStatus

T = TypeVar("T", bound="PreparedUpload")


@_attrs_define
class PreparedUpload:
    """
    Attributes:
        invoice_id (UUID):
        processing_status (PreparedUploadProcessingStatus):
    """

    invoice_id: UUID
    processing_status: PreparedUploadProcessingStatus

    def to_dict(self) -> dict[str, Any]:
        invoice_id = str(self.invoice_id)

        processing_status = self.processing_status.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "invoiceId": invoice_id,
                "processingStatus": processing_status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        invoice_id = UUID(d.pop("invoiceId"))

        processing_status = PreparedUploadProcessingStatus(d.pop("processingStatus"))

        prepared_upload = cls(
            invoice_id=invoice_id,
            processing_status=processing_status,
        )

        return prepared_upload
