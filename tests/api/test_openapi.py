"""The served OpenAPI 3 document covers every endpoint, schema and status code of the spec
sections in scope, and real responses validate against the schemas it is built from."""

from __future__ import annotations

from api.schemas import BalanceSchema, ErrorSchema, InvoiceSchema, PreparedUploadSchema, UploadAcceptedSchema
from tests.support.docs import INVOICE_LINES, text_pdf

EXPECTED = {
    ("get", "/api/v1/credits/balance"): ("getBalance", {"200", "401"}),
    ("get", "/api/v1/credits/packages"): ("listPackages", {"200", "401"}),
    ("post", "/api/v1/credits/checkout"): ("checkout", {"200", "400", "401", "404", "502", "503"}),
    ("post", "/api/v1/credits/checkout/confirm"): ("confirmCheckout", {"200", "400", "401", "404", "502", "503"}),
    ("post", "/api/v1/invoices/upload/init"): ("prepareUpload", {"202", "401", "429"}),
    ("post", "/api/v1/invoices/upload/{invoiceId}/file"): (
        "attachFile",
        {"202", "400", "401", "402", "404", "413", "422", "503"},
    ),
    ("post", "/api/v1/invoices/upload"): ("uploadSingle", {"202", "400", "401", "402", "404", "413", "422", "503"}),
    ("get", "/api/v1/invoices/{id}"): ("getInvoice", {"200", "304", "400", "401", "404"}),
}


async def test_document_lists_every_operation(harness):
    response = await harness.client.get("/api/docs/openapi.json")
    assert response.status == 200
    document = await response.json()
    assert document["openapi"] == "3.0.3"
    assert document["components"]["securitySchemes"]["api-key"] == {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": "Tenant API key as `Bearer <API_KEY>` (spec section 5)",
    }
    found = {}
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            found[(method, path)] = (operation["operationId"], set(operation["responses"]))
            assert operation["security"] == [{"api-key": []}]
    assert found == EXPECTED
    schemas = document["components"]["schemas"]
    for name in (
        "Package",
        "CheckoutRequest",
        "CheckoutSession",
        "ConfirmRequest",
        "ConfirmResult",
        "Balance",
        "PreparedUpload",
        "UploadAccepted",
        "InvoiceSummary",
        "Invoice",
        "InvoiceData",
        "LineItem",
        "Error",
    ):
        assert name in schemas, name
    upload = document["paths"]["/api/v1/invoices/upload"]["post"]
    body = upload["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert body["properties"]["file"] == {
        "type": "string",
        "format": "binary",
        "description": "PDF, JPG, JPEG or PNG (decided by content, not by name)",
    }
    assert "formData" not in str(document)  # invalid in OpenAPI 3
    assert "/webhooks/stripe" not in document["paths"]  # Stripe's contract, not the tenant API


async def test_swagger_ui_is_served_offline(harness):
    response = await harness.client.get("/api/docs")
    assert response.status == 200
    assert "swagger" in (await response.text()).lower()


async def test_real_responses_match_the_schemas(harness):
    _, headers = await harness.tenant()
    assert (
        BalanceSchema().validate(await (await harness.client.get("/api/v1/credits/balance", headers=headers)).json())
        == {}
    )
    prepared = await (await harness.client.post("/api/v1/invoices/upload/init", headers=headers)).json()
    assert PreparedUploadSchema().validate(prepared) == {}
    accepted = await (await harness.upload(headers, text_pdf(INVOICE_LINES))).json()
    assert UploadAcceptedSchema().validate(accepted) == {}
    pending = await (await harness.client.get(f"/api/v1/invoices/{prepared['invoiceId']}", headers=headers)).json()
    assert InvoiceSchema().validate(pending) == {}
    ready = await harness.wait_ready(headers, accepted["invoice"]["id"])
    assert InvoiceSchema().validate(ready) == {}
    assert set(ready) == set(InvoiceSchema().fields)  # every field present, null where empty
    error = await (await harness.client.get("/api/v1/invoices/x", headers=headers)).json()
    assert ErrorSchema().validate(error) == {}


async def test_unknown_route_and_method_get_the_error_body(harness):
    _, headers = await harness.tenant()
    response = await harness.client.get("/api/v1/nothing", headers=headers)
    assert response.status == 404
    assert (await response.json())["statusCode"] == 404
    response = await harness.client.delete("/api/v1/credits/balance", headers=headers)
    assert response.status == 405
    assert (await response.json()) == {
        "statusCode": 405,
        "message": "Method Not Allowed",
        "error": "Method Not Allowed",
    }


async def test_document_is_valid_openapi_3_with_typed_nullable_references(harness):
    from openapi_spec_validator import validate

    document = await (await harness.client.get("/api/docs/openapi.json")).json()
    validate(document)  # raised on a Swagger 2 "produces" key in every operation
    invoice = document["components"]["schemas"]["Invoice"]["properties"]
    for name, schema in (("data", "InvoiceData"), ("vendor", "VendorRef")):
        # generators read this as "InvoiceData or null"; anyOf with an untyped object lost the type
        assert invoice[name] == {"allOf": [{"$ref": f"#/components/schemas/{schema}"}], "nullable": True}


async def test_the_poll_documents_etag_wait_and_the_retry_key(harness):
    document = await (await harness.client.get("/api/docs/openapi.json")).json()
    poll = document["paths"]["/api/v1/invoices/{id}"]["get"]
    params = {p["name"]: p for p in poll["parameters"]}
    assert params["wait"]["in"] == "query" and params["wait"]["schema"]["maximum"] == 60
    assert params["If-None-Match"]["in"] == "header"
    assert "ETag" in poll["responses"]["200"]["headers"] and "ETag" in poll["responses"]["304"]["headers"]
    for path in ("/api/v1/invoices/upload", "/api/v1/invoices/upload/{invoiceId}/file"):
        names = {p["name"]: p["in"] for p in document["paths"][path]["post"]["parameters"]}
        assert names["Idempotency-Key"] == "header"
