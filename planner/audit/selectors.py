"""Audit reads: filtered log entries and their rows for the page and the CSV export."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db.models import Q, QuerySet
from django.utils import timezone

from planner.audit.events import EVENTS, event_detail, event_kind
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


EVENT_Q = Q(action=LogEntry.Action.ACCESS, additional_data__has_key="event")


def audit_entries(filters: AuditFilters) -> QuerySet[LogEntry]:
    """The audited models' changes and the events (planner.audit.events), newest first; a kind is one or the
    other (a sign-in is not a change of user access, an optimiser run not a change of its design)."""
    if filters.kind in EVENTS:
        qs = LogEntry.objects.filter(EVENT_Q, additional_data__event=filters.kind)
    elif filters.kind:
        qs = LogEntry.objects.filter(content_type_id__in=_content_types(filters.kind)).exclude(EVENT_Q)
    else:
        qs = LogEntry.objects.filter(Q(content_type_id__in=_content_types("")) | EVENT_Q)
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
        qs = qs.filter(action=by_name[filters.action]).exclude(EVENT_Q)
    elif filters.action in EVENTS.values():
        qs = qs.filter(EVENT_Q, additional_data__event__in=[k for k, v in EVENTS.items() if v == filters.action])
    return qs.select_related("actor", "content_type").order_by("-timestamp", "-pk")


@dataclass(frozen=True)
class Change:
    field: str
    before: str
    after: str


def _shown(value: Any) -> str:
    return "" if value in (None, "None") else str(value)


class FieldLabels:
    """Human values of one entry's fields: a foreign key's id becomes the row's name (looked up once per
    export), a choice its label; reverse relations, which django-auditlog records as
    'planner.Benchmark.None' on the parent, are not fields of the row and are left out."""

    def __init__(self) -> None:
        self._names: dict[tuple[Any, str], str] = {}

    def field(self, model: Any, name: str) -> Any:
        try:
            return model._meta.get_field(name) if model is not None else None
        except FieldDoesNotExist:
            return None

    def value(self, field: Any, raw: Any) -> str:
        text = _shown(raw)
        if not text or field is None:
            return text
        if field.is_relation and field.concrete and (field.many_to_one or field.one_to_one):
            key = (field.related_model, text)
            if key not in self._names:
                try:
                    self._names[key] = str(field.related_model._default_manager.get(pk=text))
                except (field.related_model.DoesNotExist, ValueError, ValidationError):
                    self._names[key] = f"{text} (no longer exists)"
            return self._names[key]
        choices = dict(field.flatchoices) if getattr(field, "choices", None) else {}
        return str(choices.get(text, choices.get(raw, text)))


def changes_of(entry: LogEntry, labels: FieldLabels | None = None) -> list[Change]:
    """Field, before and after; many-to-many changes read 'added'/'removed'; foreign keys and choices
    read as the page shows them, not as ids and codes."""
    if event_kind(entry) is not None:  # an event's detail: what was run, downloaded or tried
        return [Change(name, "", value) for name, value in event_detail(entry).items()]
    labels = labels or FieldLabels()
    raw: Any = entry.changes or {}
    if isinstance(raw, str):
        raw = json.loads(raw or "{}")
    model = entry.content_type.model_class()
    out = []
    for name, value in sorted(raw.items()):
        field = labels.field(model, name)
        if isinstance(value, dict) and "objects" in value:  # many-to-many
            verb = value.get("operation", "changed")
            objects = ", ".join(str(o) for o in value.get("objects", []))
            out.append(Change(name, objects if verb == "delete" else "", objects if verb == "add" else
                              ("(cleared)" if verb == "clear" else "")))
        elif field is not None and field.auto_created and not field.concrete:
            continue  # a reverse relation: its rows have their own records
        elif isinstance(value, list | tuple) and len(value) == 2:
            out.append(Change(name, labels.value(field, value[0]), labels.value(field, value[1])))
    return out


def kind_label(entry: LogEntry) -> str:
    if (event := event_kind(entry)) is not None:
        return event
    model = entry.content_type.model_class()
    for kind, models in audited_models().items():
        if model in models:
            return kind
    return entry.content_type.model


def action_label(entry: LogEntry) -> str:
    if (event := event_kind(entry)) is not None:
        return EVENTS[event]
    return ACTIONS.get(entry.action, str(entry.action))


def actor_label(entry: LogEntry) -> str:
    if entry.actor is not None:
        return entry.actor.get_username()
    if event_kind(entry) == "failed sign-in":
        return "not signed in"
    return entry.actor_email or "system (command or task)"


CSV_HEADER = ["timestamp_utc", "actor", "address", "kind", "model", "object_id", "object", "action", "field",
              "before", "after"]


def audit_csv_rows(qs: QuerySet[LogEntry]) -> Iterator[list[str]]:
    """One row per changed field (an entry with no field changes still gets a row)."""
    labels = FieldLabels()
    for e in qs.iterator(chunk_size=2000):
        base = [e.timestamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), actor_label(e),
                e.remote_addr or "", kind_label(e), e.content_type.model, e.object_pk, e.object_repr,
                action_label(e)]
        changes = changes_of(e, labels) or [Change("", "", "")]
        for c in changes:
            yield base + [c.field, c.before, c.after]
