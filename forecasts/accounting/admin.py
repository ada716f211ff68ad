from django.contrib import admin

from forecasts.accounting.models import (
    Cluster,
    ClusterCapacity,
    Department,
    Identity,
    IdentityMapping,
    IngestFile,
    IngestRun,
    Institution,
    Project,
)
from forecasts.accounting.org import usage_reattribute


@admin.register(Institution)
class InstitutionAdmin(admin.ModelAdmin):
    list_display = ["name", "short_name", "timezone"]


@admin.register(Department)
class DepartmentAdmin(admin.ModelAdmin):
    list_display = ["name", "code"]
    search_fields = ["name", "code"]
    filter_horizontal = ["viewers"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "pi", "department"]
    list_filter = ["department"]
    search_fields = ["name", "pi"]


# --- Accounting ingestion (issue 3) ---------------------------------------------------------


class ClusterCapacityInline(admin.TabularInline):
    model = ClusterCapacity
    extra = 1


@admin.register(Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = ["name", "description", "timezone"]
    search_fields = ["name", "description"]
    inlines = [ClusterCapacityInline]


@admin.register(Identity)
class IdentityAdmin(admin.ModelAdmin):
    list_display = ["user", "group", "account"]
    search_fields = ["user", "group", "account"]


@admin.register(IdentityMapping)
class IdentityMappingAdmin(admin.ModelAdmin):
    """Every save or delete re-attributes the monthly usage at once (rollups only, no logs re-read)."""

    list_display = ["kind", "name", "department", "project", "valid_from", "valid_to", "note"]
    list_filter = ["kind", "department", "project"]
    search_fields = ["name", "note", "department__name", "project__name"]
    autocomplete_fields = ["department", "project"]
    actions = ["reattribute_usage"]

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        super().save_model(request, obj, form, change)
        moved = usage_reattribute()
        self.message_user(request, f"{moved:,} monthly usage rows re-attributed.")

    def delete_model(self, request, obj):  # type: ignore[no-untyped-def]
        super().delete_model(request, obj)
        usage_reattribute()

    def delete_queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        super().delete_queryset(request, queryset)
        usage_reattribute()

    @admin.action(description="Re-attribute all usage from the current mappings")
    def reattribute_usage(self, request, queryset):  # type: ignore[no-untyped-def]
        moved = usage_reattribute()
        self.message_user(request, f"{moved:,} monthly usage rows re-attributed.")


class IngestFileInline(admin.TabularInline):
    model = IngestFile
    fields = ["position", "name", "size_bytes", "sha256", "path"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(IngestRun)
class IngestRunAdmin(admin.ModelAdmin):
    """Read-only: runs are written by the ingest service, never by hand."""

    list_display = ["id", "created_at", "created_by", "cluster", "format", "status", "records_read",
                    "jobs_ingested", "duplicates", "skipped", "rejected", "core_hours", "seconds"]
    list_filter = ["status", "format", "cluster", "source"]
    inlines = [IngestFileInline]

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

