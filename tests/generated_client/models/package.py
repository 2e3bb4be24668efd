from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="Package")


@_attrs_define
class Package:
    """
    Attributes:
        credits_ (float):
        currency (str): Lower-case ISO 4217 code
        id (UUID):
        name (str):
        price_cents (float):
    """

    credits_: float
    currency: str
    id: UUID
    name: str
    price_cents: float

    def to_dict(self) -> dict[str, Any]:
        credits_ = self.credits_

        currency = self.currency

        id = str(self.id)

        name = self.name

        price_cents = self.price_cents

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "credits": credits_,
                "currency": currency,
                "id": id,
                "name": name,
                "priceCents": price_cents,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        credits_ = d.pop("credits")

        currency = d.pop("currency")

        id = UUID(d.pop("id"))

        name = d.pop("name")

        price_cents = d.pop("priceCents")

        package = cls(
            credits_=credits_,
            currency=currency,
            id=id,
            name=name,
            price_cents=price_cents,
        )

        return package
