from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.line_item import LineItem


T = TypeVar("T", bound="InvoiceData")


@_attrs_define
class InvoiceData:
    """
    Attributes:
        balance_amount (float | None | Unset):
        currency (None | str | Unset):
        customer_name (None | str | Unset):
        discount (float | None | Unset):
        due_date (None | str | Unset):
        invoice_date (None | str | Unset):
        invoice_number (None | str | Unset):
        line_items (list[LineItem] | None | Unset):
        paid_amount (float | None | Unset):
        payment_terms (None | str | Unset):
        raw_text (None | str | Unset):
        service_charge (float | None | Unset):
        shipping_cost (float | None | Unset):
        subtotal (float | None | Unset):
        tax_amount (float | None | Unset):
        total_amount (float | None | Unset):
        vendor_address (None | str | Unset):
        vendor_email (None | str | Unset):
        vendor_name (None | str | Unset):
        vendor_tax_id (None | str | Unset):
    """

    balance_amount: float | None | Unset = UNSET
    currency: None | str | Unset = UNSET
    customer_name: None | str | Unset = UNSET
    discount: float | None | Unset = UNSET
    due_date: None | str | Unset = UNSET
    invoice_date: None | str | Unset = UNSET
    invoice_number: None | str | Unset = UNSET
    line_items: list[LineItem] | None | Unset = UNSET
    paid_amount: float | None | Unset = UNSET
    payment_terms: None | str | Unset = UNSET
    raw_text: None | str | Unset = UNSET
    service_charge: float | None | Unset = UNSET
    shipping_cost: float | None | Unset = UNSET
    subtotal: float | None | Unset = UNSET
    tax_amount: float | None | Unset = UNSET
    total_amount: float | None | Unset = UNSET
    vendor_address: None | str | Unset = UNSET
    vendor_email: None | str | Unset = UNSET
    vendor_name: None | str | Unset = UNSET
    vendor_tax_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        balance_amount: float | None | Unset
        if isinstance(self.balance_amount, Unset):
            balance_amount = UNSET
        else:
            balance_amount = self.balance_amount

        currency: None | str | Unset
        if isinstance(self.currency, Unset):
            currency = UNSET
        else:
            currency = self.currency

        customer_name: None | str | Unset
        if isinstance(self.customer_name, Unset):
            customer_name = UNSET
        else:
            customer_name = self.customer_name

        discount: float | None | Unset
        if isinstance(self.discount, Unset):
            discount = UNSET
        else:
            discount = self.discount

        due_date: None | str | Unset
        if isinstance(self.due_date, Unset):
            due_date = UNSET
        else:
            due_date = self.due_date

        invoice_date: None | str | Unset
        if isinstance(self.invoice_date, Unset):
            invoice_date = UNSET
        else:
            invoice_date = self.invoice_date

        invoice_number: None | str | Unset
        if isinstance(self.invoice_number, Unset):
            invoice_number = UNSET
        else:
            invoice_number = self.invoice_number

        line_items: list[dict[str, Any]] | None | Unset
        if isinstance(self.line_items, Unset):
            line_items = UNSET
        elif isinstance(self.line_items, list):
            line_items = []
            for line_items_type_0_item_data in self.line_items:
                line_items_type_0_item = line_items_type_0_item_data.to_dict()
                line_items.append(line_items_type_0_item)

        else:
            line_items = self.line_items

        paid_amount: float | None | Unset
        if isinstance(self.paid_amount, Unset):
            paid_amount = UNSET
        else:
            paid_amount = self.paid_amount

        payment_terms: None | str | Unset
        if isinstance(self.payment_terms, Unset):
            payment_terms = UNSET
        else:
            payment_terms = self.payment_terms

        raw_text: None | str | Unset
        if isinstance(self.raw_text, Unset):
            raw_text = UNSET
        else:
            raw_text = self.raw_text

        service_charge: float | None | Unset
        if isinstance(self.service_charge, Unset):
            service_charge = UNSET
        else:
            service_charge = self.service_charge

        shipping_cost: float | None | Unset
        if isinstance(self.shipping_cost, Unset):
            shipping_cost = UNSET
        else:
            shipping_cost = self.shipping_cost

        subtotal: float | None | Unset
        if isinstance(self.subtotal, Unset):
            subtotal = UNSET
        else:
            subtotal = self.subtotal

        tax_amount: float | None | Unset
        if isinstance(self.tax_amount, Unset):
            tax_amount = UNSET
        else:
            tax_amount = self.tax_amount

        total_amount: float | None | Unset
        if isinstance(self.total_amount, Unset):
            total_amount = UNSET
        else:
            total_amount = self.total_amount

        vendor_address: None | str | Unset
        if isinstance(self.vendor_address, Unset):
            vendor_address = UNSET
        else:
            vendor_address = self.vendor_address

        vendor_email: None | str | Unset
        if isinstance(self.vendor_email, Unset):
            vendor_email = UNSET
        else:
            vendor_email = self.vendor_email

        vendor_name: None | str | Unset
        if isinstance(self.vendor_name, Unset):
            vendor_name = UNSET
        else:
            vendor_name = self.vendor_name

        vendor_tax_id: None | str | Unset
        if isinstance(self.vendor_tax_id, Unset):
            vendor_tax_id = UNSET
        else:
            vendor_tax_id = self.vendor_tax_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if balance_amount is not UNSET:
            field_dict["balance_amount"] = balance_amount
        if currency is not UNSET:
            field_dict["currency"] = currency
        if customer_name is not UNSET:
            field_dict["customer_name"] = customer_name
        if discount is not UNSET:
            field_dict["discount"] = discount
        if due_date is not UNSET:
            field_dict["due_date"] = due_date
        if invoice_date is not UNSET:
            field_dict["invoice_date"] = invoice_date
        if invoice_number is not UNSET:
            field_dict["invoice_number"] = invoice_number
        if line_items is not UNSET:
            field_dict["line_items"] = line_items
        if paid_amount is not UNSET:
            field_dict["paid_amount"] = paid_amount
        if payment_terms is not UNSET:
            field_dict["payment_terms"] = payment_terms
        if raw_text is not UNSET:
            field_dict["raw_text"] = raw_text
        if service_charge is not UNSET:
            field_dict["service_charge"] = service_charge
        if shipping_cost is not UNSET:
            field_dict["shipping_cost"] = shipping_cost
        if subtotal is not UNSET:
            field_dict["subtotal"] = subtotal
        if tax_amount is not UNSET:
            field_dict["tax_amount"] = tax_amount
        if total_amount is not UNSET:
            field_dict["total_amount"] = total_amount
        if vendor_address is not UNSET:
            field_dict["vendor_address"] = vendor_address
        if vendor_email is not UNSET:
            field_dict["vendor_email"] = vendor_email
        if vendor_name is not UNSET:
            field_dict["vendor_name"] = vendor_name
        if vendor_tax_id is not UNSET:
            field_dict["vendor_tax_id"] = vendor_tax_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.line_item import LineItem  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_balance_amount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        balance_amount = _parse_balance_amount(d.pop("balance_amount", UNSET))

        def _parse_currency(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        currency = _parse_currency(d.pop("currency", UNSET))

        def _parse_customer_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        customer_name = _parse_customer_name(d.pop("customer_name", UNSET))

        def _parse_discount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        discount = _parse_discount(d.pop("discount", UNSET))

        def _parse_due_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        due_date = _parse_due_date(d.pop("due_date", UNSET))

        def _parse_invoice_date(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        invoice_date = _parse_invoice_date(d.pop("invoice_date", UNSET))

        def _parse_invoice_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        invoice_number = _parse_invoice_number(d.pop("invoice_number", UNSET))

        def _parse_line_items(data: object) -> list[LineItem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                line_items_type_0 = []
                _line_items_type_0 = data
                for line_items_type_0_item_data in _line_items_type_0:
                    line_items_type_0_item = LineItem.from_dict(line_items_type_0_item_data)

                    line_items_type_0.append(line_items_type_0_item)

                return line_items_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[LineItem] | None | Unset, data)

        line_items = _parse_line_items(d.pop("line_items", UNSET))

        def _parse_paid_amount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        paid_amount = _parse_paid_amount(d.pop("paid_amount", UNSET))

        def _parse_payment_terms(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        payment_terms = _parse_payment_terms(d.pop("payment_terms", UNSET))

        def _parse_raw_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        raw_text = _parse_raw_text(d.pop("raw_text", UNSET))

        def _parse_service_charge(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        service_charge = _parse_service_charge(d.pop("service_charge", UNSET))

        def _parse_shipping_cost(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        shipping_cost = _parse_shipping_cost(d.pop("shipping_cost", UNSET))

        def _parse_subtotal(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        subtotal = _parse_subtotal(d.pop("subtotal", UNSET))

        def _parse_tax_amount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        tax_amount = _parse_tax_amount(d.pop("tax_amount", UNSET))

        def _parse_total_amount(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        total_amount = _parse_total_amount(d.pop("total_amount", UNSET))

        def _parse_vendor_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vendor_address = _parse_vendor_address(d.pop("vendor_address", UNSET))

        def _parse_vendor_email(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vendor_email = _parse_vendor_email(d.pop("vendor_email", UNSET))

        def _parse_vendor_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vendor_name = _parse_vendor_name(d.pop("vendor_name", UNSET))

        def _parse_vendor_tax_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        vendor_tax_id = _parse_vendor_tax_id(d.pop("vendor_tax_id", UNSET))

        invoice_data = cls(
            balance_amount=balance_amount,
            currency=currency,
            customer_name=customer_name,
            discount=discount,
            due_date=due_date,
            invoice_date=invoice_date,
            invoice_number=invoice_number,
            line_items=line_items,
            paid_amount=paid_amount,
            payment_terms=payment_terms,
            raw_text=raw_text,
            service_charge=service_charge,
            shipping_cost=shipping_cost,
            subtotal=subtotal,
            tax_amount=tax_amount,
            total_amount=total_amount,
            vendor_address=vendor_address,
            vendor_email=vendor_email,
            vendor_name=vendor_name,
            vendor_tax_id=vendor_tax_id,
        )

        return invoice_data
