from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CheckoutSession")


@_attrs_define
class CheckoutSession:
    """
    Attributes:
        session_id (str):
        url (str):
    """

    session_id: str
    url: str

    def to_dict(self) -> dict[str, Any]:
        session_id = self.session_id

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "sessionId": session_id,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        session_id = d.pop("sessionId")

        url = d.pop("url")

        checkout_session = cls(
            session_id=session_id,
            url=url,
        )

        return checkout_session
