"""Admin pages for group mappings (editable), sign-on records and API tokens (read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from planner.access.models import ApiToken, GroupMapping, SignOn


@admin.register(GroupMapping)
class GroupMappingAdmin(admin.ModelAdmin):
    list_display = ("group", "source", "role", "department_codes", "updated_at")
    list_filter = ("role", "source")
    search_fields = ("group", "note")
    filter_horizontal = ("departments",)

    @admin.display(description="departments")
    def department_codes(self, obj: GroupMapping) -> str:
        return ", ".join(d.code for d in obj.departments.all())


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(SignOn)
class SignOnAdmin(_ReadOnly):
    list_display = ("user", "source", "role", "at")
    list_filter = ("source", "role")
    search_fields = ("user__username",)


@admin.register(ApiToken)
class ApiTokenAdmin(_ReadOnly):
    """Admins see and may delete tokens; they are created (and shown once) on the owner's profile page."""

    list_display = ("prefix", "user", "name", "scope", "created_at", "expires_at", "last_used_at", "revoked_at")
    list_filter = ("scope",)
    search_fields = ("user__username", "name", "prefix")
    exclude = ("key_sha256",)
