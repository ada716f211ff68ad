"""Demo step: the Minerva-style rate plan (fixtures/demo_rates.yaml) and a year of statements."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.db import transaction

from forecasts.accounting.models import Department
from forecasts.accounting.selectors import logs_partial_months
from forecasts.chargeback.models import (
    ComputeRate,
    DepartmentAdjustment,
    QosMultiplier,
    RatePlan,
    Statement,
    StorageRate,
)
from forecasts.chargeback.services import ChargebackError, months_with_usage, statements_compute
from planner.web.textfiles import nul_problem, yaml_error, yaml_load

DEMO_RATES = Path(settings.BASE_DIR) / "fixtures" / "demo_rates.yaml"


RATE_KEYS = {
    "plan": {"name", "effective_from", "note", "storage_between_scans", "compute", "qos_multipliers", "storage",
             "adjustments"},
    "compute": {"cluster", "queue", "core_hour_usd", "gpu_hour_usd", "mem_gb_hour_usd"},
    "storage": {"filesystem", "tier", "tb_month_usd"},
    "adjustments": {"department", "subsidy_percent", "cap_usd", "note"},
}
PRICES = ("core_hour_usd", "gpu_hour_usd", "mem_gb_hour_usd", "tb_month_usd", "cap_usd", "subsidy_percent")


def rate_file_check(data: Any) -> None:
    """Refuse unknown keys (by name) and negative prices or multipliers before anything is written."""
    if not isinstance(data, dict):
        raise ValueError("expected a mapping with name, effective_from, compute, storage, ...")
    unknown = sorted(set(map(str, data)) - RATE_KEYS["plan"])
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))}; a rate file takes "
                         f"{', '.join(sorted(RATE_KEYS['plan']))}")
    for section in ("compute", "storage", "adjustments"):
        for i, row in enumerate(data.get(section) or [], start=1):
            if not isinstance(row, dict):
                raise ValueError(f"{section} row {i}: expected a mapping")
            unknown = sorted(set(map(str, row)) - RATE_KEYS[section])
            if unknown:
                raise ValueError(f"{section} row {i}: unknown key(s) {', '.join(map(repr, unknown))}")
            for key in PRICES:
                if row.get(key) is not None and Decimal(str(row[key])) < 0:
                    raise ValueError(f"{section} row {i}: {key} {row[key]} is negative")
    for qos, mult in (data.get("qos_multipliers") or {}).items():
        if Decimal(str(mult)) < 0:
            raise ValueError(f"qos_multipliers: {qos} {mult} is negative")
    mode = data.get("storage_between_scans", RatePlan.StorageBetweenScans.CARRY)
    if mode not in RatePlan.StorageBetweenScans.values:
        modes = ", ".join(RatePlan.StorageBetweenScans.values)
        raise ValueError(f"storage_between_scans: {mode!r} is not one of {modes}")


@transaction.atomic
def rate_plan_load_yaml(text: str, *, filename: str = "rates.yaml") -> RatePlan:
    """Create or update a rate plan (and its rows) from YAML; see fixtures/demo_rates.yaml."""
    try:
        data = yaml_load(text) or {}
    except yaml.YAMLError as exc:
        raise ChargebackError(yaml_error(filename, exc)) from None
    nul = nul_problem(data)  # YAML's "\0" escape: no database text can hold it
    if nul:
        raise ChargebackError(f"{filename}: {nul}")
    try:
        rate_file_check(data)
        effective_from = date.fromisoformat(str(data["effective_from"]))
        plan, _ = RatePlan.objects.update_or_create(
            effective_from=effective_from, defaults={
                "name": data["name"], "note": data.get("note", ""),
                "storage_between_scans": data.get("storage_between_scans", RatePlan.StorageBetweenScans.CARRY)})
        plan.compute_rates.all().delete()
        plan.qos_multipliers.all().delete()
        plan.storage_rates.all().delete()
        plan.adjustments.all().delete()
        for r in data.get("compute", []):
            ComputeRate.objects.create(
                plan=plan, cluster=r.get("cluster", "*"), queue=r.get("queue", "*"),
                core_hour_usd=Decimal(str(r["core_hour_usd"])),
                gpu_hour_usd=Decimal(str(r["gpu_hour_usd"])) if r.get("gpu_hour_usd") is not None else None,
                mem_gb_hour_usd=Decimal(str(r["mem_gb_hour_usd"])) if r.get("mem_gb_hour_usd") is not None else None)
        for qos, mult in (data.get("qos_multipliers") or {}).items():
            QosMultiplier.objects.create(plan=plan, qos=qos, multiplier=Decimal(str(mult)))
        for r in data.get("storage", []):
            StorageRate.objects.create(plan=plan, filesystem=r.get("filesystem", "*"), tier=r.get("tier", "*"),
                                       tb_month_usd=Decimal(str(r["tb_month_usd"])))
        for r in data.get("adjustments", []):
            dept = Department.objects.filter(code=r["department"]).first()
            if dept is None:
                continue  # a department the site does not have: nothing to adjust
            DepartmentAdjustment.objects.create(
                plan=plan, department=dept, subsidy_percent=Decimal(str(r.get("subsidy_percent", 0))),
                cap_usd=Decimal(str(r["cap_usd"])) if r.get("cap_usd") is not None else None,
                note=r.get("note", ""))
    except KeyError as exc:
        raise ChargebackError(f"{filename}: missing key {exc.args[0]!r}") from exc
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ChargebackError(f"{filename}: {exc}") from exc
    return plan


DEMO_MONTHS = 12


def demo_months() -> list[date]:
    """The last DEMO_MONTHS whole months with usage, then the month the logs end inside, if any."""
    partial = logs_partial_months()
    months = months_with_usage()
    whole = [m for m in months if m not in partial]
    return whole[-DEMO_MONTHS:] + [m for m in months if m in partial and (not whole or m > whole[-1])]


def demo_load(log: Callable[[str], None]) -> None:
    """Demo step: the Minerva-style rate plan, then statements for the last 12 whole months with usage
    and the month the logs end inside (usage so far), so the chargeback page's year is a whole year."""
    if not RatePlan.objects.filter(name__startswith="Demo").exists():
        plan = rate_plan_load_yaml(DEMO_RATES.read_text(), filename="demo_rates.yaml")
        log(f"  rate plan: {plan}")
    months = demo_months()
    if not months:
        log("  no usage loaded: no statements to compute")
        return
    done = set(Statement.objects.filter(month__in=months).values_list("month", flat=True).distinct())
    todo = [m for m in months if m not in done]
    if not todo:
        log(f"  statements for {len(months)} months already computed")
        return
    for month in todo:
        result = statements_compute(month=month, reason="demo")
        log(f"  {month:%Y-%m}: {len(result.statements)} statements, ${result.summary()['total_usd']}")
