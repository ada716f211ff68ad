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
from django.http import HttpRequest, HttpResponse
from rest_framework.permissions import BasePermission

ADMIN = "admin"
PLANNER = "planner"
FINANCE = "finance"
VIEWER = "department viewer"
ROLE_GROUPS = (ADMIN, PLANNER, FINANCE, VIEWER)  # precedence: a user in two groups has the first

UserLike = AbstractBaseUser | AnonymousUser


def role_of(user: UserLike) -> str | None:
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return ADMIN
    names = set(user.groups.values_list("name", flat=True))  # type: ignore[union-attr]
    for role in ROLE_GROUPS:
        if role in names:
            return role
    return None


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
    return set(user.viewable_departments.values_list("id", flat=True))  # type: ignore[union-attr]


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
