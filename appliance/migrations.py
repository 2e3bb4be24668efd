"""Named schema steps (STYLE.md 8): applied in order by ``appliance init`` and before serving;
a step is never edited once shipped, only followed by a new one."""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("invoice-appliance")


@migrations(name="0001_initial")
def initial(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE tenants (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            balance INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
            created_at TEXT NOT NULL
        );
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            prefix TEXT NOT NULL,
            key_hash TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        );
        CREATE INDEX api_keys_tenant ON api_keys(tenant_id);
        CREATE TABLE ledger (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            delta INTEGER NOT NULL,
            reason TEXT NOT NULL,
            invoice_id TEXT,
            note TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX ledger_tenant ON ledger(tenant_id);
        CREATE TABLE vendors (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            name TEXT NOT NULL,
            tax_id TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX vendors_tenant ON vendors(tenant_id);
        CREATE TABLE invoices (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            vendor_id TEXT REFERENCES vendors(id),
            status TEXT NOT NULL,
            processing_status TEXT NOT NULL,
            direction TEXT NOT NULL DEFAULT 'payable',
            invoice_number TEXT,
            data_json TEXT,
            ocr_confidence REAL,
            validation_errors_json TEXT NOT NULL DEFAULT '[]',
            processing_error TEXT,
            is_duplicate INTEGER NOT NULL DEFAULT 0,
            extraction_tier INTEGER,
            extraction_provider TEXT,
            routing_reason TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX invoices_tenant ON invoices(tenant_id);
        CREATE TABLE files (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            invoice_id TEXT NOT NULL UNIQUE REFERENCES invoices(id),
            path TEXT NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            media_type TEXT NOT NULL,
            original_name TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE jobs (
            id TEXT PRIMARY KEY,
            invoice_id TEXT NOT NULL UNIQUE REFERENCES invoices(id),
            tenant_id TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('queued', 'leased', 'done')),
            attempts INTEGER NOT NULL DEFAULT 0,
            busy_retries INTEGER NOT NULL DEFAULT 0,
            available_at REAL NOT NULL,
            lease_until REAL,
            lease_owner TEXT,
            last_error TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX jobs_state ON jobs(state, available_at);
        """
    )


@migrations(name="0002_billing")
def billing(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE packages (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            credits INTEGER NOT NULL CHECK (credits > 0),
            price_cents INTEGER NOT NULL CHECK (price_cents > 0),
            currency TEXT NOT NULL,
            active INTEGER NOT NULL DEFAULT 1,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE purchases (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            package_id TEXT NOT NULL REFERENCES packages(id),
            session_id TEXT NOT NULL UNIQUE,
            credits INTEGER NOT NULL,
            price_cents INTEGER NOT NULL,
            currency TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'applied')),
            applied_by TEXT,
            created_at TEXT NOT NULL,
            applied_at TEXT
        );
        CREATE INDEX purchases_tenant ON purchases(tenant_id);
        CREATE TABLE stripe_events (
            id TEXT PRIMARY KEY,
            type TEXT NOT NULL,
            outcome TEXT NOT NULL,
            received_at TEXT NOT NULL
        );
        """
    )


@migrations(name="0003_vendors_templates_duplicates")
def vendors_templates_duplicates(db: Database) -> None:
    db.executescript(
        """
        ALTER TABLE vendors ADD COLUMN template TEXT;
        ALTER TABLE vendors ADD COLUMN template_name TEXT;
        ALTER TABLE tenants ADD COLUMN company_name TEXT;
        ALTER TABLE tenants ADD COLUMN tax_id TEXT;
        ALTER TABLE invoices ADD COLUMN duplicate_of TEXT;
        ALTER TABLE invoices ADD COLUMN evidence_json TEXT;
        ALTER TABLE invoices ADD COLUMN total_amount REAL;
        CREATE INDEX invoices_duplicates ON invoices(tenant_id, vendor_id, invoice_number);
        CREATE INDEX files_sha ON files(tenant_id, sha256);
        """
    )


@migrations(name="0004_review_and_reprocess")
def review_and_reprocess(db: Database) -> None:
    # Corrections sit beside the extraction (data_json), never over it: a reprocess rewrites
    # data_json and the corrections are applied on top at read time (appliance.review).
    db.executescript(
        """
        CREATE TABLE corrections (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            invoice_id TEXT NOT NULL REFERENCES invoices(id),
            line_index INTEGER,  -- 1-based position in data.line_items; NULL for a header field
            field TEXT NOT NULL,
            old_value_json TEXT,
            new_value_json TEXT,
            corrected_by TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX corrections_invoice ON corrections(invoice_id, id);
        ALTER TABLE invoices ADD COLUMN review_decision TEXT CHECK (review_decision IN ('approved', 'rejected'));
        ALTER TABLE invoices ADD COLUMN decided_by TEXT;
        ALTER TABLE invoices ADD COLUMN decided_at TEXT;
        ALTER TABLE jobs ADD COLUMN force_tier INTEGER CHECK (force_tier IN (0, 1, 2));
        """
    )


@migrations(name="0005_idempotency_keys")
def idempotency_keys(db: Database) -> None:
    # appliance.idempotency: the first 202 of an upload per (tenant, Idempotency-Key), for 24 h
    db.executescript(
        """
        CREATE TABLE idempotency_keys (
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            key TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            invoice_id TEXT NOT NULL REFERENCES invoices(id),
            response_json TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (tenant_id, key)
        );
        CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
        """
    )


@migrations(name="0006_users")
def users(db: Database) -> None:
    # appliance.users: people who review in the browser (webui/); API clients keep their keys
    db.executescript(
        """
        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            email TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('reviewer', 'admin')),
            failed_logins INTEGER NOT NULL DEFAULT 0,
            locked_until REAL,  -- unix seconds; after LOCKOUT_FAILURES failed logins in a row
            session_epoch INTEGER NOT NULL DEFAULT 0,  -- bumped on disable/reset: open sessions end
            disabled_at TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX users_tenant ON users(tenant_id);
        """
    )


@migrations(name="0007_vendor_profiles")
def vendor_profiles(db: Database) -> None:
    # appliance.profiles: what approvals taught about each vendor (pipeline.profiles); a profile
    # is its lessons added up, stored built for the dispatcher; one lesson per approved invoice
    db.executescript(
        """
        CREATE TABLE vendor_profiles (
            id TEXT PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            vendor_id TEXT REFERENCES vendors(id),
            frozen INTEGER NOT NULL DEFAULT 0,
            revision INTEGER NOT NULL DEFAULT 0,  -- bumped on each rebuild: the dispatcher's cache key
            profile_json TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX vendor_profiles_tenant ON vendor_profiles(tenant_id);
        CREATE UNIQUE INDEX vendor_profiles_vendor ON vendor_profiles(vendor_id);
        CREATE TABLE vendor_lessons (
            invoice_id TEXT PRIMARY KEY REFERENCES invoices(id),
            profile_id TEXT NOT NULL REFERENCES vendor_profiles(id),
            lesson_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX vendor_lessons_profile ON vendor_lessons(profile_id);
        CREATE TABLE vendor_profile_events (
            id INTEGER PRIMARY KEY,
            tenant_id TEXT NOT NULL,
            profile_id TEXT NOT NULL,
            action TEXT NOT NULL,  -- learned, forgot, froze, thawed, reset
            invoice_id TEXT,
            by TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX vendor_profile_events_profile ON vendor_profile_events(profile_id);
        """
    )


@migrations(name="0008_vendor_profile_edits")
def vendor_profile_edits(db: Database) -> None:
    # appliance.profiles.edit: an admin's hand edits (pipeline.profiles.profile.Edits), kept apart
    # from the lessons so that every rebuild applies them; an event says what an edit changed
    db.executescript(
        """
        ALTER TABLE vendor_profiles ADD COLUMN edits_json TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE vendor_profile_events ADD COLUMN detail TEXT;
        """
    )


@migrations(name="0009_user_sessions")
def user_sessions(db: Database) -> None:
    # appliance.users.open_session: each browser log-in is a row, so that log-out, a password
    # reset or disabling the user ends it on the server for every copy of its cookie (issue 28:
    # the cookie alone kept working after log-out). users.session_epoch is no longer read.
    db.executescript(
        """
        CREATE TABLE user_sessions (
            id TEXT PRIMARY KEY,  -- SHA-256 (hex) of the session's secret, which only its cookie holds
            user_id TEXT NOT NULL REFERENCES users(id),
            created_at TEXT NOT NULL,
            expires_at REAL NOT NULL  -- unix seconds; past it the row is ignored, then removed
        );
        CREATE INDEX user_sessions_user ON user_sessions(user_id);
        CREATE INDEX user_sessions_expires ON user_sessions(expires_at);
        """
    )


@migrations(name="0010_retention")
def retention(db: Database) -> None:
    # appliance.retention: the stored file of an old approved invoice is removed, its rows stay;
    # the file's row stays too (its sha256 still finds duplicates), marked with when and the bytes
    # freed. counters: totals that survive restarts and count the CLI's runs (/metrics reads them).
    db.executescript(
        """
        ALTER TABLE files ADD COLUMN purged_at TEXT;
        ALTER TABLE files ADD COLUMN purged_bytes INTEGER;
        CREATE TABLE counters (
            name TEXT PRIMARY KEY,
            value INTEGER NOT NULL DEFAULT 0
        );
        """
    )


@migrations(name="0011_key_audit")
def key_audit(db: Database) -> None:
    # appliance.tenants: who made each API key, when it was last used (to the minute), and an
    # audit row per create, rotate and revoke, written in the transaction of the change (issue 28:
    # the API key settings of the web app)
    db.executescript(
        """
        ALTER TABLE api_keys ADD COLUMN created_by TEXT;  -- NULL: made before this step
        ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;  -- at most LAST_USED_RESOLUTION_SECONDS old
        CREATE TABLE api_key_events (
            id INTEGER PRIMARY KEY,
            tenant_id TEXT NOT NULL REFERENCES tenants(id),
            action TEXT NOT NULL CHECK (action IN ('created', 'rotated', 'revoked')),
            key_id TEXT NOT NULL REFERENCES api_keys(id),  -- the key made (created, rotated) or revoked
            replaced_key_id TEXT REFERENCES api_keys(id),  -- rotated: the key it revoked
            by TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX api_key_events_tenant ON api_key_events(tenant_id, id);
        """
    )


@migrations(name="0012_tenant_billing_settings")
def tenant_billing_settings(db: Database) -> None:
    # appliance.billing: where Stripe Checkout sends a tenant's customer after paying or
    # cancelling (spec 4.3: the web app's billing settings, used by the API's checkout too);
    # NULL keeps the appliance's [stripe] default
    db.executescript(
        """
        CREATE TABLE tenant_billing_settings (
            tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
            success_url TEXT,
            cancel_url TEXT,
            updated_by TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        """
    )


@migrations(name="0013_invoice_texts")
def invoice_texts(db: Database) -> None:
    # appliance.invoices.record_result: an invoice's text as tier 1's templates read it (the
    # pipeline's ExtractionResult.layout_text), so that the vendor page can try a template on it
    # without reading the file again (issue 28). A table of its own: polls read invoices' rows.
    db.executescript(
        """
        CREATE TABLE invoice_texts (
            invoice_id TEXT PRIMARY KEY REFERENCES invoices(id),
            layout TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        """
    )


def migrate(path) -> list[str]:
    """Create or migrate the database at ``path``; returns the names of the steps applied now.

    Harmless to run twice. Also switches the file to WAL so readers never block the writer.
    """
    db = Database(path)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        before = {m.name for m in migrations.applied(db)}
        migrations.apply(db)
        return [m.name for m in migrations.applied(db) if m.name not in before]
    finally:
        db.close()
