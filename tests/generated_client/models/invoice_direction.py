from enum import StrEnum


class InvoiceDirection(StrEnum):
    PAYABLE = "payable"
    RECEIVABLE = "receivable"

    def __str__(self) -> str:
        return str(self.value)
