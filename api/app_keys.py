"""Typed keys of the things the web app holds (aiohttp ``AppKey``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from appliance.billing import Billing
from appliance.db import Database
from appliance.metrics import Metrics
from appliance.readiness import Readiness
from appliance.settings import Settings
from appliance.tenants import Tenant

DB = web.AppKey("db", Database)
SETTINGS = web.AppKey("settings", Settings)
BILLING = web.AppKey("billing", Billing)
QUEUE_READY = web.AppKey("queue_ready", Callable[[], bool])
ON_ENQUEUED = web.AppKey("on_enqueued", Callable[[], Any])
READINESS = web.AppKey("readiness", Readiness)
METRICS = web.AppKey("metrics", Metrics)
TENANT = web.RequestKey("tenant", Tenant)
