"""Access writes: apply a sign-on's groups, import group mappings, create and revoke API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from auditlog.context import auditlog_value, set_actor
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from forecasts.accounting.models import Department
from planner.access import rules
from planner.access.models import ApiToken, GroupMapping, SignOn
from planner.roles import ADMIN, ROLE_GROUPS, VIEWER

TOKEN_PREFIX = "cpt_"  # "capacity planner token": lets secret scanners recognise a leaked one
MAX_TOKEN_DAYS = 366


def current_rules() -> list[rules.Rule]:
    return [m.as_rule() for m in GroupMapping.objects.prefetch_related("departments")]


def access_apply(*, user: Any, source: str, groups: list[str]) -> rules.Access:
    """Give ``user`` exactly what ``groups`` grant now; called at every sign-on.

    The role groups, the superuser/staff flags and the department-viewer links are all
    rewritten, so a group the user left takes its role away at this login.  The audit trail
    records the changes as made by the user's own sign-on (from the request's address).
    """
    try:
        current = auditlog_value.get()
    except LookupError:
        current = {}
    with set_actor(user, remote_addr=current.get("remote_addr"), remote_port=current.get("remote_port")):
        return _access_apply(user=user, source=source, groups=groups)


@transaction.atomic
def _access_apply(*, user: Any, source: str, groups: list[str]) -> rules.Access:
    access = rules.resolve(groups, current_rules(), source)
    role_groups = {g.name: g for g in Group.objects.filter(name__in=ROLE_GROUPS)}
    for name in ROLE_GROUPS:
        role_groups.setdefault(name, Group.objects.get_or_create(name=name)[0])
    keep = [g for g in user.groups.all() if g.name not in ROLE_GROUPS]
    wanted = keep + ([role_groups[access.role]] if access.role else [])
    if {g.pk for g in user.groups.all()} != {g.pk for g in wanted}:
        user.groups.set(wanted)
    is_admin = access.role == ADMIN
    if (user.is_superuser, user.is_staff) != (is_admin, is_admin):
        user.is_superuser = user.is_staff = is_admin
        user.save(update_fields=["is_superuser", "is_staff"])
    departments = list(Department.objects.filter(code__in=access.departments)) if access.role == VIEWER else []
    current = set(user.viewable_departments.values_list("pk", flat=True))
    if current != {d.pk for d in departments}:
        user.viewable_departments.set(departments)
    missing = sorted(set(access.departments) - {d.code for d in departments})
    reasons = list(access.reasons) + ([f"unknown department codes ignored: {', '.join(missing)}"] if missing else [])
    SignOn.objects.update_or_create(user=user, defaults={
        "source": source, "groups": list(groups), "role": access.role or "",
        "departments": [d.code for d in departments], "reasons": reasons, "at": timezone.now()})
    return access


@dataclass(frozen=True)
class MappingImport:
    created: int
    updated: int
    removed: int


@transaction.atomic
def mappings_import(*, text: str, filename: str, replace: bool = False) -> MappingImport:
    """Create or update group mappings from a YAML/CSV file (``replace``: drop the ones not in it)."""
    parsed = rules.parse(text, filename)
    codes = {c for r in parsed for c in r.departments}
    known = {d.code: d for d in Department.objects.filter(code__in=codes)}
    unknown = sorted(codes - set(known))
    if unknown:
        raise rules.RuleError(f"{filename}: unknown department codes: {', '.join(unknown)}")
    created = updated = 0
    kept: list[int] = []
    for rule in parsed:
        row, was_created = GroupMapping.objects.get_or_create(group=rule.group, source=rule.source,
                                                              defaults={"role": rule.role})
        changed = row.role != rule.role
        if changed:
            row.role = rule.role
            row.save()
        wanted = {known[c].pk for c in rule.departments}
        if set(row.departments.values_list("pk", flat=True)) != wanted:
            row.departments.set(wanted)
            changed = True
        created += was_created
        updated += changed and not was_created
        kept.append(row.pk)
    removed = 0
    if replace:
        for row in GroupMapping.objects.exclude(pk__in=kept):
            row.delete()  # one by one, so each removal is audited
            removed += 1
    return MappingImport(created=created, updated=updated, removed=removed)


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def token_create(*, user: Any, name: str, scope: str, days: int) -> tuple[ApiToken, str]:
    """A new token for ``user``; returns the row and the secret, which is shown once and not kept."""
    if scope not in ApiToken.Scope.values:
        raise ValueError(f"scope must be one of {', '.join(ApiToken.Scope.values)}")
    if not 1 <= days <= MAX_TOKEN_DAYS:
        raise ValueError(f"expiry must be between 1 and {MAX_TOKEN_DAYS} days")
    prefix = secrets.token_hex(4)
    key = f"{TOKEN_PREFIX}{prefix}_{secrets.token_urlsafe(32)}"
    token = ApiToken.objects.create(user=user, name=name.strip()[:100] or "API token", prefix=prefix,
                                    key_sha256=_hash(key), scope=scope,
                                    expires_at=timezone.now() + timedelta(days=days))
    return token, key


def token_revoke(*, token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])


def token_lookup(key: str) -> ApiToken | None:
    """The token a presented key belongs to (any state: the caller says why it is refused)."""
    if not key.startswith(TOKEN_PREFIX):
        return None
    return ApiToken.objects.select_related("user").filter(key_sha256=_hash(key)).first()


def token_touch(token: ApiToken) -> None:
    """Record use at most once a minute (a script polling the API should not write every request)."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > timedelta(minutes=1):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
