"""The client address login throttling counts by (django-axes' AXES_CLIENT_IP_CALLABLE)."""

from __future__ import annotations

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
