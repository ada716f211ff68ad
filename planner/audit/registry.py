"""Which models the audit trail records, and which of their fields (wired at start-up).

django-auditlog writes a LogEntry from the model's save/delete/m2m signals, inside the
transaction of the change itself, with the actor and address taken from the request by
its middleware.  Changes made with ``QuerySet.update()`` or raw SQL bypass signals: the
services of the audited models save row by row (see docs/security.md).
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model

# kind shown on the audit page -> (app label, model name, register() options)
AUDITED: dict[str, list[tuple[str, str, dict[str, Any]]]] = {
    "rate plan": [
        ("forecasts", "RatePlan", {}),
        ("forecasts", "ComputeRate", {}),
        ("forecasts", "StorageRate", {}),
        ("forecasts", "QosMultiplier", {}),
        ("forecasts", "DepartmentAdjustment", {}),
    ],
    "identity mapping": [("forecasts", "IdentityMapping", {})],
    "group mapping": [("planner", "GroupMapping", {"m2m_fields": {"departments"}})],
    "catalog row": [
        ("planner", "NodeType", {}),
        ("planner", "StorageSystem", {}),
        ("planner", "Benchmark", {}),
    ],
    # what a site owns: a design started from a forecast counts it (cluster nodes, file systems' usable TB)
    "owned capacity": [("forecasts", "ClusterCapacity", {}), ("forecasts", "FileSystem", {})],
    "design": [("planner", "Design", {"exclude_fields": ["scenario", "updated_at"]})],
    "sequencer plan": [("forecasts", "SequencerPlan", {})],
    "report narrative": [("planner", "GrantReport", {
        "include_fields": ["title", "narrative_overrides", "design", "version", "parent"]})],
    "user access": [
        ("auth", "User", {"include_fields": ["username", "email", "is_active", "is_staff", "is_superuser"],
                          "m2m_fields": {"groups"}}),
        ("forecasts", "Department", {"include_fields": ["name", "code"], "m2m_fields": {"viewers"}}),
        ("planner", "ApiToken", {"exclude_fields": ["key_sha256", "last_used_at"]}),
    ],
}


def audited_models() -> dict[str, list[Any]]:
    return {kind: [apps.get_model(app, name) for app, name, _ in entries] for kind, entries in AUDITED.items()}


def kind_of(model: Any) -> str | None:
    for kind, models in audited_models().items():
        if model in models:
            return kind
    return None


def register_all() -> None:
    from auditlog.registry import auditlog

    for entries in AUDITED.values():
        for app, name, options in entries:
            model = get_user_model() if (app, name) == ("auth", "User") else apps.get_model(app, name)
            if not auditlog.contains(model):
                auditlog.register(model, **options)
