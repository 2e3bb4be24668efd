from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="VendorRef")


@_attrs_define
class VendorRef:
    """
    Attributes:
        id (UUID):
        vendor_name (str):
    """

    id: UUID
    vendor_name: str

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        vendor_name = self.vendor_name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "vendorName": vendor_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        vendor_name = d.pop("vendorName")

        vendor_ref = cls(
            id=id,
            vendor_name=vendor_name,
        )

        return vendor_ref
