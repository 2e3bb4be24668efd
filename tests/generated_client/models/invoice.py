from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.invoice_direction import InvoiceDirection
from ..models.invoice_processing_status import InvoiceProcessingStatus
from ..models.invoice_status import InvoiceStatus

if TYPE_CHECKING:
    from ..models.invoice_data import InvoiceData
    from ..models.invoice_evidence import InvoiceEvidence
    from ..models.vendor_ref import VendorRef


T = TypeVar("T", bound="Invoice")


@_attrs_define
class Invoice:
    """
    Attributes:
        created_at (datetime.datetime):
        data (InvoiceData | None):
        direction (InvoiceDirection):
        duplicate_of (None | UUID): The earlier invoice this one duplicates (beyond the spec)
        evidence (InvoiceEvidence): Per filled field of data (beyond the spec); a human correction of line item N
            (1-based) is under line_items[N].field
        id (UUID):
        is_duplicate (bool):
        ocr_confidence (float | None):
        processing_error (None | str):
        processing_status (InvoiceProcessingStatus):
        ready (bool):
        status (InvoiceStatus):
        updated_at (datetime.datetime):
        validation_errors (list[str]):
        vendor (None | VendorRef):
    """

    created_at: datetime.datetime
    data: InvoiceData | None
    direction: InvoiceDirection
    duplicate_of: None | UUID
    evidence: InvoiceEvidence
    id: UUID
    is_duplicate: bool
    ocr_confidence: float | None
    processing_error: None | str
    processing_status: InvoiceProcessingStatus
    ready: bool
    status: InvoiceStatus
    updated_at: datetime.datetime
    validation_errors: list[str]
    vendor: None | VendorRef

    def to_dict(self) -> dict[str, Any]:
        from ..models.invoice_data import InvoiceData  # noqa: PLC0415
        from ..models.vendor_ref import VendorRef  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        data: dict[str, Any] | None
        if isinstance(self.data, InvoiceData):
            data = self.data.to_dict()
        else:
            data = self.data

        direction = self.direction.value

        duplicate_of: None | str
        if isinstance(self.duplicate_of, UUID):
            duplicate_of = str(self.duplicate_of)
        else:
            duplicate_of = self.duplicate_of

        evidence = self.evidence.to_dict()

        id = str(self.id)

        is_duplicate = self.is_duplicate

        ocr_confidence: float | None
        ocr_confidence = self.ocr_confidence

        processing_error: None | str
        processing_error = self.processing_error

        processing_status = self.processing_status.value

        ready = self.ready

        status = self.status.value

        updated_at = self.updated_at.isoformat()

        validation_errors = self.validation_errors

        vendor: dict[str, Any] | None
        if isinstance(self.vendor, VendorRef):
            vendor = self.vendor.to_dict()
        else:
            vendor = self.vendor

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "createdAt": created_at,
                "data": data,
                "direction": direction,
                "duplicateOf": duplicate_of,
                "evidence": evidence,
                "id": id,
                "isDuplicate": is_duplicate,
                "ocrConfidence": ocr_confidence,
                "processingError": processing_error,
                "processingStatus": processing_status,
                "ready": ready,
                "status": status,
                "updatedAt": updated_at,
                "validationErrors": validation_errors,
                "vendor": vendor,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.invoice_data import InvoiceData  # noqa: PLC0415
        from ..models.invoice_evidence import InvoiceEvidence  # noqa: PLC0415
        from ..models.vendor_ref import VendorRef  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        def _parse_data(data: object) -> InvoiceData | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_1 = InvoiceData.from_dict(data)

                return data_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InvoiceData | None, data)

        data = _parse_data(d.pop("data"))

        direction = InvoiceDirection(d.pop("direction"))

        def _parse_duplicate_of(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                duplicate_of_type_0 = UUID(data)

                return duplicate_of_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        duplicate_of = _parse_duplicate_of(d.pop("duplicateOf"))

        evidence = InvoiceEvidence.from_dict(d.pop("evidence"))

        id = UUID(d.pop("id"))

        is_duplicate = d.pop("isDuplicate")

        def _parse_ocr_confidence(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        ocr_confidence = _parse_ocr_confidence(d.pop("ocrConfidence"))

        def _parse_processing_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        processing_error = _parse_processing_error(d.pop("processingError"))

        processing_status = InvoiceProcessingStatus(d.pop("processingStatus"))

        ready = d.pop("ready")

        status = InvoiceStatus(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        validation_errors = cast(list[str], d.pop("validationErrors"))

        def _parse_vendor(data: object) -> None | VendorRef:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vendor_type_1 = VendorRef.from_dict(data)

                return vendor_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | VendorRef, data)

        vendor = _parse_vendor(d.pop("vendor"))

        invoice = cls(
            created_at=created_at,
            data=data,
            direction=direction,
            duplicate_of=duplicate_of,
            evidence=evidence,
            id=id,
            is_duplicate=is_duplicate,
            ocr_confidence=ocr_confidence,
            processing_error=processing_error,
            processing_status=processing_status,
            ready=ready,
            status=status,
            updated_at=updated_at,
            validation_errors=validation_errors,
            vendor=vendor,
        )

        return invoice
