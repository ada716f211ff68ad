"""The audit records are read on the audit page; the admin site offers no way to change them."""

from __future__ import annotations


def audit_admin_read_only() -> None:
    """Take django-auditlog's own admin page off the site (it would offer deletion to superusers)."""
    from auditlog.models import LogEntry
    from django.contrib import admin

    if admin.site.is_registered(LogEntry):
        admin.site.unregister(LogEntry)
