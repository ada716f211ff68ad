from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.db.backends.signals import connection_created


def jit_off(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Turn PostgreSQL's JIT off for the session (settings.DB_JIT says why; settings admit only PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute("SET jit = off")


class PlannerConfig(AppConfig):
    name = "planner"
    verbose_name = "Supply: hardware, designs and reports"

    def ready(self) -> None:
        # Each sub-domain registers its own admin pages (Django's autodiscovery looks only
        # for planner.admin, which this layout does not have).
        from planner.access import admin as _access  # noqa: F401
        from planner.access import checks as _checks  # noqa: F401  (the deploy check on SECRET_KEY)
        from planner.access import tokens as _tokens  # noqa: F401  (registers the OpenAPI token scheme)
        from planner.audit.admin import audit_admin_read_only
        from planner.audit.registry import register_all
        from planner.audit.signals import connect as audit_events_connect
        from planner.designs import admin as _designs  # noqa: F401
        from planner.hardware import admin as _hardware  # noqa: F401
        register_all()
        audit_events_connect()
        audit_admin_read_only()
        if not settings.DB_JIT:
            connection_created.connect(jit_off, dispatch_uid="planner.jit_off")
