"""Events on the audit trail besides model changes: sign-ins, failed sign-ins, sign-ins refused while locked out,
optimiser runs, report and statement
downloads, chargeback statement computations (who ran and downloaded what).

Each is a django-auditlog ``LogEntry`` with the action ACCESS and ``additional_data = {"event": KIND, "detail":
{...}}``, on the object it concerns (the user, the design, the report, the statement), so the audit page, its
filters, its CSV export and the database rule that records cannot be changed or deleted all hold for them.
Inside a request the auditlog middleware adds the address (and the signed-in user when none is given).
"""

from __future__ import annotations

from typing import Any

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType

# kind shown on the audit page -> the action word its rows show
EVENTS = {
    "sign-in": "signed in",
    "failed sign-in": "sign-in failed",
    "refused sign-in": "sign-in refused",  # locked out (django-axes): the password was not checked
    "optimiser run": "started",
    "report download": "downloaded",
    "statement download": "downloaded",
    "statement computation": "computed",
}
USERNAME_CHARS = 150  # a pasted paragraph in the username box is cut to the username column's length


def record_event(kind: str, *, obj: Any = None, model: Any = None, object_repr: str = "", actor: Any = None,
                 request: Any = None, detail: dict[str, Any] | None = None) -> LogEntry:
    """Write one event; ``obj`` (or ``model`` with ``object_repr``, for an event on no one row) is what it
    concerns, ``actor`` who did it (None: a command or task, or nobody signed in), ``detail`` what the page shows
    as its fields."""
    if kind not in EVENTS:
        raise ValueError(f"unknown audit event {kind!r}")
    detail = {k: "" if v is None else str(v) for k, v in (detail or {}).items()}
    actor = actor if getattr(actor, "is_authenticated", False) else None
    address = None
    if request is not None:
        from planner.access.throttle import client_ip

        address = client_ip(request) or None
    return LogEntry.objects.create(
        content_type=ContentType.objects.get_for_model(obj if obj is not None else model),
        object_pk=str(obj.pk) if obj is not None else "", object_id=obj.pk if obj is not None else None,
        object_repr=(str(obj) if obj is not None and not object_repr else object_repr)[:500],
        action=LogEntry.Action.ACCESS, changes_text="; ".join(f"{k}: {v}" for k, v in detail.items()),
        actor=actor, actor_email=getattr(actor, "email", None) or None, remote_addr=address,
        additional_data={"event": kind, "detail": detail})


def event_kind(entry: LogEntry) -> str | None:
    data = entry.additional_data
    if entry.action == LogEntry.Action.ACCESS and isinstance(data, dict) and data.get("event") in EVENTS:
        return str(data["event"])
    return None


def event_detail(entry: LogEntry) -> dict[str, str]:
    data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
    detail = data.get("detail")
    return {str(k): str(v) for k, v in detail.items()} if isinstance(detail, dict) else {}
