from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Balance")


@_attrs_define
class Balance:
    """
    Attributes:
        balance (float):
        credit_cost_per_invoice (float):
    """

    balance: float
    credit_cost_per_invoice: float

    def to_dict(self) -> dict[str, Any]:
        balance = self.balance

        credit_cost_per_invoice = self.credit_cost_per_invoice

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "balance": balance,
                "creditCostPerInvoice": credit_cost_per_invoice,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        balance = d.pop("balance")

        credit_cost_per_invoice = d.pop("creditCostPerInvoice")

        balance = cls(
            balance=balance,
            credit_cost_per_invoice=credit_cost_per_invoice,
        )

        return balance
