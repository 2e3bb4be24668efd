from enum import StrEnum


class InvoiceStatus(StrEnum):
    APPROVED = "approved"
    DUPLICATE = "duplicate"
    EXTRACTED = "extracted"
    PENDING = "pending"
    PROCESSING = "processing"
    REJECTED = "rejected"
    REVIEWED = "reviewed"

    def __str__(self) -> str:
        return str(self.value)
