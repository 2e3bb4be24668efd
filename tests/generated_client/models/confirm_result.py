from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ConfirmResult")


@_attrs_define
class ConfirmResult:
    """
    Attributes:
        applied (bool):
        balance (float):
        credit_cost_per_invoice (float):
        credits_ (float):
    """

    applied: bool
    balance: float
    credit_cost_per_invoice: float
    credits_: float

    def to_dict(self) -> dict[str, Any]:
        applied = self.applied

        balance = self.balance

        credit_cost_per_invoice = self.credit_cost_per_invoice

        credits_ = self.credits_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "applied": applied,
                "balance": balance,
                "creditCostPerInvoice": credit_cost_per_invoice,
                "credits": credits_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        applied = d.pop("applied")

        balance = d.pop("balance")

        credit_cost_per_invoice = d.pop("creditCostPerInvoice")

        credits_ = d.pop("credits")

        confirm_result = cls(
            applied=applied,
            balance=balance,
            credit_cost_per_invoice=credit_cost_per_invoice,
            credits_=credits_,
        )

        return confirm_result
