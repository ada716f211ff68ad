"""Audit reads: filtered log entries and their rows for the page and the CSV export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q, QuerySet
from django.utils import timezone

from planner.audit.registry import audited_models

ACTIONS = {LogEntry.Action.CREATE: "created", LogEntry.Action.UPDATE: "changed", LogEntry.Action.DELETE: "deleted",
           LogEntry.Action.ACCESS: "accessed"}


@dataclass(frozen=True)
class AuditFilters:
    kind: str = ""
    actor: str = ""
    text: str = ""
    since: date | None = None
    until: date | None = None  # inclusive
    action: str = ""


def _content_types(kind: str) -> list[int]:
    kinds = audited_models()
    models = kinds.get(kind) if kind else [m for ms in kinds.values() for m in ms]
    return [ct.pk for ct in ContentType.objects.get_for_models(*(models or [])).values()]


def audit_entries(filters: AuditFilters) -> QuerySet[LogEntry]:
    qs = LogEntry.objects.filter(content_type_id__in=_content_types(filters.kind))
    if filters.actor:
        qs = qs.filter(Q(actor__username__iexact=filters.actor) | Q(actor_email__iexact=filters.actor))
    if filters.text:
        qs = qs.filter(Q(object_repr__icontains=filters.text) | Q(changes_text__icontains=filters.text))
    if filters.since:
        qs = qs.filter(timestamp__gte=timezone.make_aware(datetime.combine(filters.since, time.min)))
    if filters.until:
        qs = qs.filter(timestamp__lt=timezone.make_aware(datetime.combine(filters.until + timedelta(days=1), time.min)))
    by_name = {v: k for k, v in ACTIONS.items()}
    if filters.action in by_name:
        qs = qs.filter(action=by_name[filters.action])
    return qs.select_related("actor", "content_type").order_by("-timestamp", "-pk")


@dataclass(frozen=True)
class Change:
    field: str
    before: str
    after: str


def changes_of(entry: LogEntry) -> list[Change]:
    """Field, before and after; many-to-many changes read 'added'/'removed'."""
    raw: Any = entry.changes or {}
    if isinstance(raw, str):
        raw = json.loads(raw or "{}")
    out = []
    for name, value in sorted(raw.items()):
        if isinstance(value, dict) and "objects" in value:  # many-to-many
            verb = value.get("operation", "changed")
            objects = ", ".join(str(o) for o in value.get("objects", []))
            out.append(Change(name, objects if verb == "delete" else "", objects if verb == "add" else
                              ("(cleared)" if verb == "clear" else "")))
        elif isinstance(value, list | tuple) and len(value) == 2:
            out.append(Change(name, "" if value[0] in (None, "None") else str(value[0]),
                              "" if value[1] in (None, "None") else str(value[1])))
    return out


def kind_label(entry: LogEntry) -> str:
    model = entry.content_type.model_class()
    for kind, models in audited_models().items():
        if model in models:
            return kind
    return entry.content_type.model


def actor_label(entry: LogEntry) -> str:
    if entry.actor is not None:
        return entry.actor.get_username()
    return entry.actor_email or "system (command or task)"


CSV_HEADER = ["timestamp_utc", "actor", "address", "kind", "model", "object_id", "object", "action", "field",
              "before", "after"]


def audit_csv_rows(qs: QuerySet[LogEntry]) -> Iterator[list[str]]:
    """One row per changed field (an entry with no field changes still gets a row)."""
    for e in qs.iterator(chunk_size=2000):
        base = [e.timestamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), actor_label(e),
                e.remote_addr or "", kind_label(e), e.content_type.model, e.object_pk, e.object_repr,
                ACTIONS.get(e.action, str(e.action))]
        changes = changes_of(e) or [Change("", "", "")]
        for c in changes:
            yield base + [c.field, c.before, c.after]
