from django.contrib import admin

from forecasts.models import Department, Institution, Project


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
