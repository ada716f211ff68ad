"""Admin pages of the storage sub-domain: the scanned file systems, whose usable capacity a design started from a
forecast can count as owned storage (planner.designs.forecast_links.storage_start)."""

from django.contrib import admin

from forecasts.storage.models import FileSystem


@admin.register(FileSystem)
class FileSystemAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "tier", "capacity_tb", "description"]
    list_editable = ["capacity_tb"]
    search_fields = ["name", "description"]
