"""django-auditlog's middleware with the address the throttling counts by (planner.access.throttle.client_ip).

Its own reads the first X-Forwarded-For entry whenever the header is there: what the client sent, so anyone could
write another address into the records of their changes, downloads and failed sign-ins. Only the entry our TLS proxy
appended last (BEHIND_TLS_PROXY) is trusted, else REMOTE_ADDR.
"""

from __future__ import annotations

from typing import Any

from auditlog.middleware import AuditlogMiddleware
from django.conf import settings


class AuditMiddleware(AuditlogMiddleware):
    @staticmethod
    def _get_remote_addr(request: Any) -> str | None:
        if settings.AUDITLOG_DISABLE_REMOTE_ADDR:
            return None
        from planner.access.throttle import client_ip

        return client_ip(request) or None
