"""Login throttling (django-axes): the client address it counts by and what a successful sign-in clears."""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind the TLS proxy (BEHIND_TLS_PROXY) the address the proxy appended last.

    Only the last X-Forwarded-For entry is the proxy's own; earlier ones are whatever the
    client sent, so trusting them would let an attacker pick a fresh address per attempt.
    """
    if settings.BEHIND_TLS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.split(",")[-1].strip()
        if last:
            return last
    return str(request.META.get("REMOTE_ADDR") or "")


def client_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: axes' own choice (credentials, else the POSTed form), cut to its column.

    A pasted paragraph in the username box made axes' record of the failure overflow its 255-character
    column: a database error (400) instead of "did not match", and the attempt went uncounted.
    """
    field = settings.AXES_USERNAME_FORM_FIELD
    username = credentials.get(field) if credentials else getattr(request, "data", request.POST).get(field)
    if username is None:
        return None
    return str(username)[: AccessAttempt._meta.get_field("username").max_length]


REFUSED = "planner_sign_in_refused"  # request attribute: the throttle refused it, no password was checked


class ThrottleBackend(AxesStandaloneBackend):
    """django-axes' first backend, which refuses a locked-out account or address before any password is checked,
    marking the request it refused (``REFUSED``) so that the audit trail records a refused sign-in, not a wrong
    password: with axes' defaults such an attempt is still counted (and extends the lock), and nothing on the
    request told the two apart."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, password: str | None = None,
                     **kwargs: Any) -> None:
        try:
            super().authenticate(request, username, password, **kwargs)
        except AxesBackendPermissionDenied:
            setattr(request, REFUSED, True)
            raise


class ThrottleHandler(AxesDatabaseHandler):
    """django-axes' database handler, but a successful sign-in clears only the signed-in user's failures.

    Axes' own reset deletes every attempt matching any lockout parameter, the address included, so
    anyone with an account could wipe the failures they had typed against somebody else's name from
    the same address by signing in to their own between guesses, and guess without limit.
    """

    def reset_user_attempts(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        username = get_client_username(request, credentials)
        count, _ = AccessAttempt.objects.filter(username=username).delete()
        return int(count)


def lockout_response(request: HttpRequest, original_response: Any = None,
                     credentials: dict[str, Any] | None = None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the "too many failed sign-ins" page, saying what is locked.

    The account and the address are counted separately: a user behind a shared address (a campus
    network) can find the address locked by someone else's guesses while their account is not, and
    each needs its own command to lift it.
    """
    username = get_client_username(request, credentials) or ""
    address = client_ip(request)
    limit = settings.AXES_FAILURE_LIMIT
    recent = AccessAttempt.objects.filter(attempt_time__gte=timezone.now() - settings.AXES_COOLOFF_TIME)

    def failures(**match: str) -> int:
        return int(recent.filter(**match).aggregate(n=Sum("failures_since_start"))["n"] or 0)

    account_locked = bool(username) and failures(username=username) >= limit
    address_locked = failures(ip_address=address) >= limit or not account_locked
    return render(request, settings.AXES_LOCKOUT_TEMPLATE, {
        "failure_limit": limit, "minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
        "username": username, "address": address,
        "account_locked": account_locked, "address_locked": address_locked,
    }, status=429)
