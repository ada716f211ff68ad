"""Access reads: each user's effective access and why."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from planner.access.models import ApiToken, SignOn
from planner.roles import ADMIN, VIEWER, role_of


@dataclass(frozen=True)
class EffectiveAccess:
    user: Any
    role: str | None
    departments: list[str]  # department names a viewer sees; empty for other roles
    sees: str  # what the role means, in a sentence
    source: str  # "local account" or the sign-on that set the role
    reasons: list[str]
    groups: list[str]  # groups the IdP/directory sent at the last sign-on
    signed_on_at: datetime | None
    active_tokens: int


MEANING = {
    ADMIN: "everything, including the admin site, access mappings and the audit trail",
    "planner": "every area and every department",
    "finance": "usage and chargeback of every department, and the audit trail",
    VIEWER: "usage and chargeback of their departments only",
    None: "nothing: no role (sign-on groups match no mapping, or no role group in the admin)",
}


def effective_access(user: Any) -> EffectiveAccess:
    role = role_of(user)
    departments = sorted(d.name for d in user.viewable_departments.all()) if role == VIEWER else []
    sign_on: SignOn | None = getattr(user, "sign_on", None)
    if sign_on is not None:
        source = f"{sign_on.get_source_display()} sign-on"
        reasons = list(sign_on.reasons)
        groups = list(sign_on.groups)
    else:
        source = "local account"
        reasons = (["superuser flag set in the admin"] if user.is_superuser else []) + [
            f"member of role group {g!r} (set in the admin)"
            for g in sorted(g.name for g in user.groups.all())]
        if role == VIEWER:
            reasons.append("department links set in the admin (Department viewers)")
        groups = []
    if not reasons:
        reasons = ["no role group and no sign-on mapping"]
    tokens = ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    return EffectiveAccess(user=user, role=role, departments=departments, sees=MEANING.get(role, MEANING[None]),
                           source=source, reasons=reasons, groups=groups,
                           signed_on_at=sign_on.at if sign_on else None,
                           active_tokens=tokens.filter(expires_at__gt=timezone.now()).count())


def effective_access_all() -> list[EffectiveAccess]:
    users = (get_user_model().objects.order_by("username").select_related("sign_on")
             .prefetch_related("groups", "viewable_departments"))
    return [effective_access(u) for u in users]
