"""The audit trail: who changed what, when, before and after (django-auditlog, read-only here)."""
