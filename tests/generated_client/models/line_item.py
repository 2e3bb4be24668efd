from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="LineItem")


@_attrs_define
class LineItem:
    """
    Attributes:
        description (str):
        discount (float | None | Unset):
        group (None | str | Unset): Beyond the spec: for a line of an e-invoice nested under other lines (Factur-X /
            ZUGFeRD EXTENDED sub-invoice lines), the names of those lines, outermost first, joined by ' > '; null for a top-
            level line. Group subtotals and information lines are not line items: the line totals add up to the subtotal.
        line_no (float | None | Unset):
        line_total (float | None | Unset):
        quantity (float | None | Unset):
        sku (None | str | Unset):
        tax (float | None | Unset):
        unit (None | str | Unset):
        unit_price (float | None | Unset):
    """

    description: str
    discount: float | None | Unset = UNSET
    group: None | str | Unset = UNSET
    line_no: float | None | Unset = UNSET
    line_total: float | None | Unset = UNSET
    quantity: float | None | Unset = UNSET
    sku: None | str | Unset = UNSET
    tax: float | None | Unset = UNSET
    unit: None | str | Unset = UNSET
    unit_price: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        discount: float | None | Unset
        if isinstance(self.discount, Unset):
            discount = UNSET
        else:
            discount = self.discount

        group: None | str | Unset
        if isinstance(self.group, Unset):
            group = UNSET
        else:
            group = self.group

        line_no: float | None | Unset
        if isinstance(self.line_no, Unset):
            line_no = UNSET
        else:
            line_no = self.line_no

        line_total: float | None | Unset
        if isinstance(self.line_total, Unset):
            line_total = UNSET
        else:
            line_total = self.line_total

        quantity: float | None | Unset
        if isinstance(self.quantity, Unset):
            quantity = UNSET
        else:
            quantity = self.quantity

        sku: None | str | Unset
        if isinstance(self.sku, Unset):
            sku = UNSET
        else:
            sku = self.sku

        tax: float | None | Unset
        if isinstance(self.tax, Unset):
            tax = UNSET
        else:
            tax = self.tax

        unit: None | str | Unset
        if isinstance(self.unit, Unset):
            unit = UNSET
        else:
            unit = self.unit

        unit_price: float | None | Unset
        if isinstance(self.unit_price, Unset):
            unit_price = UNSET
        else:
            unit_price = self.unit_price

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "description": description,
            }
        )
        if discount is not UNSET:
            field_dict["discount"] = discount
        if group is not UNSET:
            field_dict["group"] = group
        if line_no is not UNSET:
            field_dict["line_no"] = line_no
        if line_total is not UNSET:
            field_dict["line_total"] = line_total
        if quantity is not UNSET:
            field_dict["quantity"] = quantity
        if sku is not UNSET:
            field_dict["sku"] = sku
        if tax is not UNSET:
            field_dict["tax"] = tax
        if unit is not UNSET:
            field_dict["unit"] = unit
        if unit_price is not UNSET:
            field_dict["unit_price"] = unit_price

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        description = d.pop("description")

        def _parse_discount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        discount = _parse_discount(d.pop("discount", UNSET))

        def _parse_group(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        group = _parse_group(d.pop("group", UNSET))

        def _parse_line_no(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        line_no = _parse_line_no(d.pop("line_no", UNSET))

        def _parse_line_total(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        line_total = _parse_line_total(d.pop("line_total", UNSET))

        def _parse_quantity(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        quantity = _parse_quantity(d.pop("quantity", UNSET))

        def _parse_sku(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sku = _parse_sku(d.pop("sku", UNSET))

        def _parse_tax(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        tax = _parse_tax(d.pop("tax", UNSET))

        def _parse_unit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        unit = _parse_unit(d.pop("unit", UNSET))

        def _parse_unit_price(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        unit_price = _parse_unit_price(d.pop("unit_price", UNSET))

        line_item = cls(
            description=description,
            discount=discount,
            group=group,
            line_no=line_no,
            line_total=line_total,
            quantity=quantity,
            sku=sku,
            tax=tax,
            unit=unit,
            unit_price=unit_price,
        )

        return line_item
