"""Contains all the data models used in inputs/outputs"""

from .attach_file_body import AttachFileBody
from .balance import Balance
from .checkout_request import CheckoutRequest
from .checkout_session import CheckoutSession
from .confirm_request import ConfirmRequest
from .confirm_result import ConfirmResult
from .error import Error
from .evidence import Evidence
from .evidence_source import EvidenceSource
from .invoice import Invoice
from .invoice_data import InvoiceData
from .invoice_direction import InvoiceDirection
from .invoice_evidence import InvoiceEvidence
from .invoice_processing_status import InvoiceProcessingStatus
from .invoice_status import InvoiceStatus
from .invoice_summary import InvoiceSummary
from .invoice_summary_processing_status import InvoiceSummaryProcessingStatus
from .invoice_summary_status import InvoiceSummaryStatus
from .line_item import LineItem
from .package import Package
from .prepared_upload import PreparedUpload
from .prepared_upload_processing_status import PreparedUploadProcessingStatus
from .upload_accepted import UploadAccepted
from .upload_single_body import UploadSingleBody
from .vendor_ref import VendorRef

__all__ = (
    "AttachFileBody",
    "Balance",
    "CheckoutRequest",
    "CheckoutSession",
    "ConfirmRequest",
    "ConfirmResult",
    "Error",
    "Evidence",
    "EvidenceSource",
    "Invoice",
    "InvoiceData",
    "InvoiceDirection",
    "InvoiceEvidence",
    "InvoiceProcessingStatus",
    "InvoiceStatus",
    "InvoiceSummary",
    "InvoiceSummaryProcessingStatus",
    "InvoiceSummaryStatus",
    "LineItem",
    "Package",
    "PreparedUpload",
    "PreparedUploadProcessingStatus",
    "UploadAccepted",
    "UploadSingleBody",
    "VendorRef",
)
