from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Error")


@_attrs_define
class Error:
    """
    Attributes:
        message (list[str] | str): string, or array of string
        status_code (int):
        error (str | Unset): HTTP status name
    """

    message: list[str] | str
    status_code: int
    error: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        message: list[str] | str
        if isinstance(self.message, list):
            message = self.message

        else:
            message = self.message

        status_code = self.status_code

        error = self.error

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "message": message,
                "statusCode": status_code,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_message(data: object) -> list[str] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                message_type_1 = cast(list[str], data)

                return message_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str, data)

        message = _parse_message(d.pop("message"))

        status_code = d.pop("statusCode")

        error = d.pop("error", UNSET)

        error = cls(
            message=message,
            status_code=status_code,
            error=error,
        )

        return error
