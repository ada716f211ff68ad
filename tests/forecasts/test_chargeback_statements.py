"""Statements: priced per job, reconciled with the rollups, versioned on change, driven by a command."""

from __future__ import annotations

import io
import json
import math
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from forecasts.chargeback.services import (
    NO_STORAGE_NOTE,
    ChargebackError,
    statement_is_stale,
    statements_compute,
)
from forecasts.models import (
    DepartmentAdjustment,
    Statement,
    StatementLine,
    UsageMonthly,
)
from tests.forecasts.chargeback_data import (
    ROOT,
    ingest_lines,
    logs_cover_march,
    map_accounts,
    minerva_plan,
    small_site,
)

D = Decimal
pytestmark = pytest.mark.django_db


def assert_reconciles(month: date) -> None:
    """The invariant: every current statement's core-hours are its department's rollup core-hours,
    exactly, and its money is the sum of its lines; all departments with usage have one."""
    departments_with_usage = set(UsageMonthly.objects.filter(month=month).values_list("department_id", flat=True))
    current = Statement.objects.filter(month=month, is_current=True)
    assert set(current.values_list("department_id", flat=True)) >= departments_with_usage
    for s in current:
        rollup = UsageMonthly.objects.filter(month=month, department_id=s.department_id)
        assert s.core_hours == math.fsum(rollup.values_list("core_hours", flat=True))
        assert s.jobs == sum(rollup.values_list("jobs", flat=True))
        lines = list(s.lines.all())
        assert s.total_usd == sum((ln.amount_usd for ln in lines), D(0))
        assert s.compute_usd == sum((ln.amount_usd for ln in lines if ln.kind == "compute"), D(0))
        assert s.storage_usd == sum((ln.amount_usd for ln in lines if ln.kind == "storage"), D(0))
        assert s.total_usd == s.compute_usd + s.storage_usd + s.subsidy_usd + s.cap_usd
        assert all(ln.amount_usd == ln.amount_usd.quantize(D("0.01")) for ln in lines)


def test_small_site_statements_match_the_hand_computed_charges(departments: Any, tmp_path: Path) -> None:
    site = small_site(tmp_path)
    minerva_plan()
    result = statements_compute(month=site["month"])
    by_code = {s.department.code: s for s in result.statements}
    ggs, scb = by_code["ggs"], by_code["scb"]
    assert ggs.core_hours == 8 + 8 + 80 + 24
    assert ggs.compute_usd == D("0.16") + D("0.24") + D("0") + D("3.00")
    assert scb.compute_usd == D("0.32") + D("25.60")
    assert ggs.total_usd == D("3.40") and scb.total_usd == D("25.92")
    assert NO_STORAGE_NOTE in ggs.notes
    high = ggs.lines.get(qos="high")
    assert (high.multiplier, high.amount_usd, high.project_name) == (D("1.5"), D("0.24"), "autism-wgs")
    assert ggs.lines.get(qos="scavenger").amount_usd == 0
    assert [j.job_id for j in ggs.top_jobs.all()][:1] == ["104"]  # the GPU job, billed on GPU-hours
    assert_reconciles(site["month"])


def test_subsidy_and_cap_are_lines_and_the_total_is_their_sum(departments: Any, tmp_path: Path) -> None:
    site = small_site(tmp_path)
    plan = minerva_plan()
    DepartmentAdjustment.objects.create(plan=plan, department=departments["chemistry"], subsidy_percent=D(50),
                                        cap_usd=D("10.00"))
    scb = next(s for s in statements_compute(month=site["month"]).statements if s.department.code == "scb")
    assert scb.compute_usd == D("25.92")
    assert scb.subsidy_usd == D("-12.96")
    assert scb.cap_usd == D("-2.96")
    assert scb.total_usd == D("10.00")
    assert set(scb.lines.values_list("kind", flat=True)) == {"compute", "subsidy", "cap"}
    assert_reconciles(site["month"])


def test_synthetic_months_reconcile_exactly(departments: Any, tmp_path: Path) -> None:
    from forecasts.accounting.parsers.synth import default_people, slurm_lines
    from forecasts.models import Department

    for code in ("onco", "psych", "neuro", "pharm", "cardio", "micro", "pophealth", "bmi", "path"):
        Department.objects.get_or_create(code=code, defaults={"name": code.title()})
    lines = list(slurm_lines(4000, start=datetime(2024, 1, 1, tzinfo=UTC), end=datetime(2024, 4, 1, tzinfo=UTC),
                             cluster="synth", people=default_people(60), seed=3))
    ingest_lines(lines, tmp_path, cluster="synth")
    map_accounts([(p.account, p.group, None) for p in default_people(60)])
    minerva_plan()
    for month in (date(2024, 1, 1), date(2024, 2, 1), date(2024, 3, 1)):
        result = statements_compute(month=month)
        assert len(result.statements) >= 5
        assert_reconciles(month)
        total = UsageMonthly.objects.filter(month=month).values_list("core_hours", flat=True)
        assert math.isclose(sum(s.core_hours for s in result.statements), math.fsum(total), rel_tol=1e-12)


def test_sample_logs_reconcile(departments: Any, tmp_path: Path) -> None:
    sample = ROOT / "fixtures" / "samples" / "slurm_sample.txt"
    if not sample.exists():
        pytest.skip(f"{sample} is not in this checkout")
    from forecasts.accounting.load import ingest_run_create, ingest_run_execute

    ingest_run_execute(ingest_run_create(cluster_name="sample", fmt="slurm", paths=[sample], tz="UTC").pk)
    minerva_plan()
    for month in UsageMonthly.objects.values_list("month", flat=True).distinct():
        statements_compute(month=month)
        assert_reconciles(month)


def test_changing_a_rate_writes_a_new_version_and_keeps_the_previous(departments: Any, tmp_path: Path) -> None:
    site = small_site(tmp_path)
    plan = minerva_plan()
    first = next(s for s in statements_compute(month=site["month"]).statements if s.department.code == "ggs")
    again = statements_compute(month=site["month"])
    assert again.created == 0 and again.unchanged == 2  # nothing changed: no new version
    rate = plan.compute_rates.get(queue="*")
    rate.core_hour_usd = D("0.04")
    rate.save()
    plan.save()  # editing the plan marks its statements stale
    first.refresh_from_db()
    assert statement_is_stale(first) == "The rate plan was edited after this statement was computed."
    second = next(s for s in statements_compute(month=site["month"]).statements if s.department.code == "ggs")
    first.refresh_from_db()
    assert (first.version, first.is_current, second.version, second.is_current) == (1, False, 2, True)
    assert first.total_usd == D("3.40") and second.total_usd == D("3.80")  # old statement kept as it was
    assert StatementLine.objects.filter(statement=first).exists()
    assert statement_is_stale(second) == ""
    assert_reconciles(site["month"])


def test_changing_a_mapping_moves_usage_and_recomputes_both_departments(departments: Any, tmp_path: Path) -> None:
    site = small_site(tmp_path)
    minerva_plan()
    statements_compute(month=site["month"])
    map_accounts([("rare-disease", "scb", "rare-disease")])  # the PI moved to chemistry
    ggs_v1 = Statement.objects.get(department__code="ggs", month=site["month"], version=1)
    assert "attribution" in statement_is_stale(ggs_v1)
    statements_compute(month=site["month"])
    ggs = Statement.objects.get(department__code="ggs", month=site["month"], is_current=True)
    scb = Statement.objects.get(department__code="scb", month=site["month"], is_current=True)
    assert (ggs.version, scb.version) == (2, 2)
    assert ggs.core_hours == 16 and scb.core_hours == 16 + 10 + 80 + 24
    assert_reconciles(site["month"])


def test_no_plan_in_force_is_a_clear_error(departments: Any, tmp_path: Path) -> None:
    site = small_site(tmp_path)
    with pytest.raises(ChargebackError, match="no rate plan is in force for 2024-03"):
        statements_compute(month=site["month"])


def test_command_prints_a_json_summary_last(departments: Any, tmp_path: Path) -> None:
    small_site(tmp_path)
    minerva_plan()
    out, err = io.StringIO(), io.StringIO()
    call_command("chargeback", "--month", "2024-03", "--json", stdout=out, stderr=err)
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert summary["month"] == "2024-03"
    assert summary["total_usd"] == "29.32"
    totals = {d["department"]: d["total_usd"] for d in summary["departments"]}
    assert totals == {"ggs": "3.40", "scb": "25.92"}
    assert "2024-03" in err.getvalue()
    out = io.StringIO()
    call_command("chargeback", "--month", "2024-03", "--department", "scb", "--json", stdout=out)
    summary = json.loads(out.getvalue().strip().splitlines()[-1])
    assert [d["department"] for d in summary["departments"]] == ["scb"]
    assert summary["unchanged"] == 1


@pytest.mark.parametrize("args, message", [
    (["--month", "March"], "month 'March' must look like YYYY-MM"),
    (["--month", "2024-03", "--department", "nope"], "unknown department 'nope'"),
])
def test_command_rejects_bad_input_with_one_line(departments: Any, args: list[str], message: str) -> None:
    minerva_plan()
    with pytest.raises(CommandError, match=message):
        call_command("chargeback", *args, "--json", stdout=io.StringIO(), stderr=io.StringIO())


def test_demo_step_loads_rates_and_is_quick_the_second_time(departments: Any, tmp_path: Path) -> None:
    from forecasts.chargeback.demo import demo_load

    small_site(tmp_path)
    log: list[str] = []
    demo_load(log.append)
    assert Statement.objects.filter(month="2024-03-01").count() == 2
    demo_load(log.append)
    assert "already computed" in log[-1]


def test_storage_is_charged_per_tb_month_from_the_months_scans(departments: Any, tmp_path: Path) -> None:
    from forecasts.storage.models import FileSystem, StorageSnapshot, StorageUsage

    site = small_site(tmp_path)
    logs_cover_march(tmp_path)
    minerva_plan()
    gpfs = FileSystem.objects.create(name="gpfs-work", tier="disk")
    for day, tb in ((5, 10), (20, 14)):  # mean over the month's two scans: 12 TB
        snap = StorageSnapshot.objects.create(filesystem=gpfs, taken_on=date(2024, 3, day), format="tsv",
                                              scan_name=f"scan{day}", status=StorageSnapshot.Status.COMPLETED)
        StorageUsage.objects.create(snapshot=snap, kind="owner", name="chris", department=departments["chemistry"],
                                    bytes=tb * 10**12)
        StorageUsage.objects.create(snapshot=snap, kind="group", name="scb", department=departments["chemistry"],
                                    bytes=tb * 10**12)  # the same bytes seen by group: not counted twice
    scb = next(s for s in statements_compute(month=site["month"]).statements if s.department.code == "scb")
    line = scb.lines.get(kind="storage")
    assert (line.filesystem, line.tier, line.tb, line.amount_usd) == ("gpfs-work", "disk", 12.0, D("60.00"))
    assert scb.storage_usd == D("60.00") and scb.total_usd == D("85.92")
    assert NO_STORAGE_NOTE not in scb.notes
    assert_reconciles(site["month"])
