from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="CheckoutRequest")


@_attrs_define
class CheckoutRequest:
    """
    Attributes:
        package_id (UUID):
    """

    package_id: UUID

    def to_dict(self) -> dict[str, Any]:
        package_id = str(self.package_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "packageId": package_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        package_id = UUID(d.pop("packageId"))

        checkout_request = cls(
            package_id=package_id,
        )

        return checkout_request
