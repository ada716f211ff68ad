"""Roles and row scoping: who may see which departments.

admin: everything.  planner: all usage, forecasts, designs, reports.  finance: usage and
chargeback of every department (a statement is priced usage: reconciling a bill needs the
core-hours behind it) and the audit trail; not the planning areas.  department viewer: usage
and chargeback of the departments they are linked to, nothing else.
Every page, API view, export and chart endpoint asks these functions; nothing else
decides access.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import BasePermission

ADMIN = "admin"
PLANNER = "planner"
FINANCE = "finance"
VIEWER = "department viewer"
ROLE_GROUPS = (ADMIN, PLANNER, FINANCE, VIEWER)  # precedence: a user in two groups has the first

UserLike = AbstractBaseUser | AnonymousUser

# A page asks role_of / visible_department_ids many times for the same request.user: the
# answers are memoised on that user object (a new one per request), and forgotten by every
# object of this process as soon as any group membership, viewer link, group, department or
# user is written here (a generation counter), so a memo never outlives a change it depends on.
_MEMO = "_planner_roles_memo"
_generation = [0]
_WATCHED = {"auth.Group", "auth.User", "forecasts.Department"}


def _forget(sender: Any, **kwargs: Any) -> None:
    if kwargs.get("signal") is m2m_changed or getattr(getattr(sender, "_meta", None), "label", "") in _WATCHED:
        _generation[0] += 1


m2m_changed.connect(_forget, dispatch_uid="planner.roles.forget.m2m")
post_save.connect(_forget, dispatch_uid="planner.roles.forget.save")
post_delete.connect(_forget, dispatch_uid="planner.roles.forget.delete")


def _memo(user: UserLike) -> dict[str, Any]:
    found = getattr(user, _MEMO, None)
    if found is None or found["generation"] != _generation[0] or found["pk"] != user.pk:
        found = {"generation": _generation[0], "pk": user.pk}
        setattr(user, _MEMO, found)
    return found


def role_of(user: UserLike) -> str | None:
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return ADMIN
    memo = _memo(user)
    if "role" not in memo:
        names = set(user.groups.values_list("name", flat=True))  # type: ignore[union-attr]
        memo["role"] = next((role for role in ROLE_GROUPS if role in names), None)
    return memo["role"]  # type: ignore[no-any-return]


def sees_everything(user: UserLike) -> bool:
    """Admins and planners: every area, every department."""
    return role_of(user) in (ADMIN, PLANNER)


def sees_every_department(user: UserLike) -> bool:
    """Admins, planners and finance: usage and chargeback rows of every department."""
    return role_of(user) in (ADMIN, PLANNER, FINANCE)


def reads_audit(user: UserLike) -> bool:
    return role_of(user) in (ADMIN, FINANCE)


def visible_department_ids(user: UserLike) -> set[int] | None:
    """None means every department; a set (possibly empty) limits to those departments."""
    if sees_every_department(user):
        return None
    if not user.is_authenticated:
        return set()
    memo = _memo(user)
    if "departments" not in memo:
        memo["departments"] = frozenset(user.viewable_departments.values_list("id", flat=True))  # type: ignore[union-attr]
    return set(memo["departments"])


def scope_by_department(queryset: Any, user: UserLike, field: str = "department") -> Any:
    """Limit a queryset to the user's departments (the one place row scoping happens)."""
    ids = visible_department_ids(user)
    if ids is None:
        return queryset
    return queryset.filter(**{f"{field}__in": ids})


def planner_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Pages for admins and planners only; department viewers get 403."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not sees_everything(request.user):
            raise PermissionDenied("This page is for planners; department viewers see Usage and Chargeback.")
        return view(request, *args, **kwargs)

    return wrapped


def admin_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Pages for admins only (access administration)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if role_of(request.user) != ADMIN:
            raise PermissionDenied("This page is for administrators.")
        return view(request, *args, **kwargs)

    return wrapped


def audit_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The audit trail: admins and finance only."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not reads_audit(request.user):
            raise PermissionDenied("The audit trail is for administrators and finance.")
        return view(request, *args, **kwargs)

    return wrapped


class IsPlanner(BasePermission):
    message = "Planners and admins only."

    def has_permission(self, request: Any, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated and sees_everything(request.user))
