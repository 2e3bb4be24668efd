from enum import StrEnum


class EvidenceSource(StrEnum):
    EINVOICE = "einvoice"
    HUMAN = "human"
    LLM = "llm"
    PROFILE = "profile"
    RULES = "rules"
    TEMPLATE = "template"

    def __str__(self) -> str:
        return str(self.value)
