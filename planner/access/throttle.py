"""Login throttling (django-axes): the client address it counts by and what a successful sign-in clears."""

from __future__ import annotations

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.http import HttpRequest


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
