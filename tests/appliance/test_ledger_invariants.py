"""Ledger invariants under concurrency: a Hypothesis state machine fires batches of concurrent
debits (uploads over HTTP), refunds (uploads refused with 503 when the backlog is at
``queue.max_depth``), operator grants and take-backs, and purchases (``billing.fulfil``, some
sessions fulfilled twice at once, as confirm and the webhook do) against a real server in a
subprocess. Grants and purchases come from the test process through their own SQLite
connections, as the CLI and a second writer would.

After every batch: the balance equals the sum of the ledger, never goes below zero, and equals
the model (start + grants + purchases applied once - accepted uploads); every 503 left a debit
and its refund, every 402 nothing.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from appliance import billing, ledger
from appliance.db import Database
from appliance.errors import InsufficientCredits
from bench.server import ServerProcess, cli, multipart
from tests.conftest import FAKE_MODELS, merged, write_config
from tests.support.docs import INVOICE_LINES, jpeg, text_pdf

pytestmark = pytest.mark.slow

DOCUMENTS = [(text_pdf(INVOICE_LINES), "a.pdf", "application/pdf"), (jpeg(), "b.jpg", "image/jpeg")]
OPERATIONS = st.one_of(
    st.tuples(st.just("upload"), st.integers(0, 1)),
    st.tuples(st.just("upload"), st.just(1)),  # more scans than anything else: they fill the backlog
    st.tuples(st.just("grant"), st.integers(-3, 8).filter(bool)),
    st.tuples(st.just("purchase"), st.integers(0, 3)),  # index of a session; repeats race on one
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ledger")
    # a shallow backlog so that bursts of uploads meet 503 (refund) as well as 202 and 402
    config = write_config(folder, merged(FAKE_MODELS, {"queue": {"max_depth": 2}}))
    assert cli(config, "init").returncode == 0
    proc = ServerProcess(config, env={"FAKE_OCR_SECONDS": "0.3"}).start()  # scans keep the backlog up
    yield proc, config, folder / "data" / "appliance.db"
    proc.stop()


def run_async(coro_fn):
    """Run ``coro_fn(db)`` on a fresh event loop with its own SQLite connection (a second writer)."""

    async def main(path):
        db = await Database(path).open()
        try:
            return await coro_fn(db)
        finally:
            await db.close()

    return main


def test_balance_is_the_ledger_sum_and_never_negative(server):
    proc, config, db_path = server

    def db_call(coro_fn):
        return asyncio.run(run_async(coro_fn)(db_path))

    seen: set[tuple[str, object]] = set()  # which outcomes the run produced, over all examples
    package = db_call(lambda db: db.fetchone("SELECT id, credits FROM packages WHERE active = 1 ORDER BY credits"))

    class Ledger(RuleBasedStateMachine):
        @initialize(credits=st.integers(0, 8))
        def tenant(self, credits):
            made = cli(
                config, "tenant", "create", "--name", f"t-{uuid.uuid4().hex[:8]}", "--credits", str(credits), "--json"
            )
            assert made.returncode == 0, made.stderr
            created = json.loads(made.stdout.strip().splitlines()[-1])
            self.tenant_id, self.key = created["tenantId"], created["apiKey"]
            self.expected = credits
            self.sessions = [f"cs_test_{uuid.uuid4().hex}" for _ in range(4)]
            self.applied: set[str] = set()
            self.statuses: dict[int, int] = {}

        def _one(self, op):
            kind, arg = op
            if kind == "upload":
                body, ctype = multipart(*DOCUMENTS[arg])
                return kind, arg, proc.request("POST", "/api/v1/invoices/upload", self.key, body, ctype)[0]
            if kind == "grant":
                try:
                    db_call(lambda db: ledger.grant(db, self.tenant_id, arg, note="hypothesis"))
                    return kind, arg, True
                except InsufficientCredits:
                    return kind, arg, False
            session = {"id": self.sessions[arg], "metadata": {"tenantId": self.tenant_id, "packageId": package["id"]}}
            outcome = db_call(lambda db: billing.fulfil(db, session, via="hypothesis"))
            return kind, arg, outcome.applied

        @rule(batch=st.lists(OPERATIONS, min_size=1, max_size=16))
        def concurrently(self, batch):
            with ThreadPoolExecutor(max_workers=len(batch)) as threads:
                outcomes = list(threads.map(self._one, batch))
            for kind, arg, outcome in outcomes:
                seen.add((kind, outcome))
                if kind == "upload":
                    assert outcome in (202, 402, 503), outcome
                    self.statuses[outcome] = self.statuses.get(outcome, 0) + 1
                    self.expected -= outcome == 202
                elif kind == "grant" and outcome:
                    self.expected += arg
                elif kind == "purchase" and outcome:
                    assert self.sessions[arg] not in self.applied, "a purchase was applied twice"
                    self.applied.add(self.sessions[arg])
                    self.expected += package["credits"]

        @invariant()
        def balance_is_the_ledger_sum(self):
            if not hasattr(self, "tenant_id"):
                return
            tenant = self.tenant_id

            async def read(db):
                row = await db.fetchone("SELECT balance FROM tenants WHERE id = ?", (tenant,))
                reasons = await db.fetchall(
                    "SELECT reason, COUNT(*) AS n, SUM(delta) AS s FROM ledger WHERE tenant_id = ? GROUP BY reason",
                    (tenant,),
                )
                return (
                    row["balance"],
                    await ledger.ledger_sum(db, tenant),
                    {r["reason"]: (r["n"], r["s"]) for r in reasons},
                )

            balance, total, by_reason = db_call(read)
            assert balance == total >= 0
            assert balance == self.expected
            status, body = proc.request("GET", "/api/v1/credits/balance", self.key)
            assert status == 200 and body["balance"] == balance
            debits = by_reason.get("upload_debit", (0, 0))[0]
            refunds = by_reason.get("queue_refund", (0, 0))[0]
            assert debits == self.statuses.get(202, 0) + self.statuses.get(503, 0)
            assert refunds == self.statuses.get(503, 0)
            assert by_reason.get("purchase", (0, 0))[0] == len(self.applied)

    run_state_machine_as_test(
        Ledger,
        settings=settings(
            max_examples=6,
            stateful_step_count=4,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
    # the run met debits, refunds and refusals, grants and take-backs, and purchases applied once
    assert {
        ("upload", 202),
        ("upload", 402),
        ("upload", 503),
        ("grant", True),
        ("purchase", True),
        ("purchase", False),
    } <= seen
