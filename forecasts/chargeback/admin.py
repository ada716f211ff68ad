"""Admin for chargeback: rate plans with their rates inline; statements read-only.

Saving a rate plan re-computes, in the background, every month whose current statement
was priced with it (new versions; the previous ones are kept).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from forecasts.chargeback.models import (
    ComputeRate,
    DepartmentAdjustment,
    QosMultiplier,
    RatePlan,
    Statement,
    StorageRate,
)


class ComputeRateInline(admin.TabularInline):
    model = ComputeRate
    extra = 1


class QosMultiplierInline(admin.TabularInline):
    model = QosMultiplier
    extra = 1


class StorageRateInline(admin.TabularInline):
    model = StorageRate
    extra = 1


class DepartmentAdjustmentInline(admin.TabularInline):
    model = DepartmentAdjustment
    extra = 0


@admin.register(RatePlan)
class RatePlanAdmin(admin.ModelAdmin):
    list_display = ["name", "effective_from", "updated_at"]
    inlines = [ComputeRateInline, QosMultiplierInline, StorageRateInline, DepartmentAdjustmentInline]

    def save_related(self, request: Any, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        plan = form.instance
        months = sorted({f"{m:%Y-%m}" for m in Statement.objects.filter(plan=plan, is_current=True)
                        .values_list("month", flat=True)})
        if not months:
            return
        from forecasts.chargeback.tasks import chargeback_compute
        from planner.jobs.services import job_start

        job = job_start(kind="chargeback", label=f"Re-price {len(months)} month(s) after editing {plan.name}",
                        task=chargeback_compute, unit="months", user=request.user,
                        params={"months": months, "department": None, "reason": f"rate plan '{plan.name}' edited"})
        messages.info(request, format_html(
            'Re-computing {} month(s) of statements at the new rates (previous versions are kept): '
            '<a href="{}">follow progress</a>.', len(months), reverse("job", args=[job.pk])))


@admin.register(Statement)
class StatementAdmin(admin.ModelAdmin):
    list_display = ["department", "month", "version", "is_current", "core_hours", "total_usd", "computed_at"]
    list_filter = ["is_current", "month", "department"]
    readonly_fields = [f.name for f in Statement._meta.fields]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False
