from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from .. import types
from ..types import UNSET, File, Unset

T = TypeVar("T", bound="AttachFileBody")


@_attrs_define
class AttachFileBody:
    """
    Attributes:
        file (File): PDF, JPG, JPEG or PNG (decided by content, not by name)
        vendor_id (UUID | Unset): Optional vendor UUID that prefers template extraction
    """

    file: File
    vendor_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        file = self.file.to_tuple()

        vendor_id: str | Unset = UNSET
        if not isinstance(self.vendor_id, Unset):
            vendor_id = str(self.vendor_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "file": file,
            }
        )
        if vendor_id is not UNSET:
            field_dict["vendorId"] = vendor_id

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("file", self.file.to_tuple()))

        if not isinstance(self.vendor_id, Unset):
            files.append(("vendorId", (None, str(self.vendor_id), "text/plain")))

        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, (None, str(prop).encode(), "text/plain")))

        return files

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        file = File(payload=BytesIO(d.pop("file")))

        _vendor_id = d.pop("vendorId", UNSET)
        vendor_id: UUID | Unset
        if isinstance(_vendor_id, Unset):
            vendor_id = UNSET
        else:
            vendor_id = UUID(_vendor_id)

        attach_file_body = cls(
            file=file,
            vendor_id=vendor_id,
        )

        attach_file_body.additional_properties = d
        return attach_file_body

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
