"""Admin pages of designs, evaluations and optimiser runs."""

from django.contrib import admin

from planner.designs.models import Design, DesignEvaluation, OptimizerRun


@admin.register(Design)
class DesignAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "parent", "created_by", "created_at"]
    search_fields = ["name"]
    readonly_fields = ["scenario"]


@admin.register(DesignEvaluation)
class DesignEvaluationAdmin(admin.ModelAdmin):
    list_display = ["design", "feasible", "npv_usd", "inputs_sha256", "created_at"]
    readonly_fields = ["result", "catalog_snapshot", "sensitivity"]


@admin.register(OptimizerRun)
class OptimizerRunAdmin(admin.ModelAdmin):
    list_display = ["design", "status", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["result"]
