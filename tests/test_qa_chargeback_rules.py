"""Chargeback rules against an independent computation: a mid-year rate change, QOS multipliers, the GPU and
big-memory rules (max of the core, GPU and memory charges), a department subsidy and cap, a job across the
month boundary (and so across the rate change), an account moved between departments, statement versions.

The expected figures are worked out by hand below from docs/commands.md ("Chargeback") and the rules in the
docstring of forecasts/chargeback/rates.py; nothing here calls the product's pricing code.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from tests.forecasts.chargeback_data import ingest_lines, sacct_line
from tests.helpers import login

pytestmark = pytest.mark.django_db
CENT = Decimal("0.01")

# Plan "Y1" from 2024-01-01 and plan "Y2" from 2024-03-01: (core, gpu, mem) per queue, QOS multipliers.
PLANS = {
    "2024-01-01": {"*": ("0.02", None, None), "gpu": ("0.02", "0.50", None), "bigmem": ("0.02", None, "0.01"),
                   "qos": {"high": "1.5", "scavenger": "0"}},
    "2024-03-01": {"*": ("0.03", None, None), "gpu": ("0.03", "0.60", None), "bigmem": ("0.03", None, "0.012"),
                   "qos": {"high": "2", "scavenger": "0"}},
}
# (job, account, queue, qos, start, end, cores, GPUs, memory MB)
JOBS = [
    (1, "lab-a", "general", "normal", "2024-02-10T08:00:00", "2024-02-10T10:00:00", 4, 0, 4000),
    (2, "lab-a", "general", "normal", "2024-02-29T22:00:00", "2024-03-01T02:00:00", 4, 0, 4000),  # across both
    (3, "lab-a", "general", "high", "2024-03-05T08:00:00", "2024-03-05T10:00:00", 4, 0, 4000),
    (4, "lab-a", "gpu", "normal", "2024-03-05T08:00:00", "2024-03-05T11:00:00", 8, 2, 4000),
    (5, "lab-a", "general", "normal", "2024-03-06T00:00:00", "2024-03-06T10:00:00", 64, 0, 4000),
    (6, "lab-a", "general", "scavenger", "2024-03-06T00:00:00", "2024-03-06T10:00:00", 8, 0, 4000),
    (7, "lab-b", "bigmem", "normal", "2024-03-07T08:00:00", "2024-03-07T13:00:00", 2, 0, 512 * 1024),
    (8, "lab-b", "bigmem", "high", "2024-03-07T08:00:00", "2024-03-07T09:00:00", 32, 0, 1024),
    (9, "mover", "general", "normal", "2024-03-05T08:00:00", "2024-03-05T09:00:00", 4, 0, 4000),
    (10, "mover", "general", "normal", "2024-03-20T08:00:00", "2024-03-20T09:00:00", 4, 0, 4000),
]


def by_hand(month: str, department_of: dict[str, str]) -> dict[str, dict[str, Decimal]]:
    """department -> gross, subsidy, cap, total for ``month``: each job billed whole in the month it ended,
    at the plan in force on that month's first day, max(core, GPU, memory) x QOS; ggs has 25% off and a $10
    cap under Y2 only."""
    plan = PLANS["2024-03-01" if month >= "2024-03" else "2024-01-01"]
    exact: dict[str, Decimal] = {}
    for _, account, queue, qos, start, end, cores, gpus, mem_mb in JOBS:
        if end[:7] != month:
            continue
        hours = Decimal(int((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds())) / 3600
        core_usd, gpu_usd, mem_usd = plan.get(queue, plan["*"])  # type: ignore[misc]
        charges = [cores * hours * Decimal(core_usd)]
        if gpu_usd:
            charges.append(gpus * hours * Decimal(gpu_usd))
        if mem_usd:
            charges.append(Decimal(mem_mb) / 1024 * hours * Decimal(mem_usd))
        mult = Decimal(plan["qos"].get(qos, "1"))  # type: ignore[union-attr]
        dept = department_of[account]
        exact[dept] = exact.get(dept, Decimal(0)) + max(charges) * mult
    out = {}
    for dept, amount in exact.items():
        gross = amount.quantize(CENT, ROUND_HALF_UP)
        subsidy = cap = Decimal(0)
        if dept == "ggs" and month >= "2024-03":
            subsidy = -(gross * 25 / 100).quantize(CENT, ROUND_HALF_UP)
            cap = -max(gross + subsidy - 10, Decimal(0))
        out[dept] = {"gross": gross, "subsidy": subsidy, "cap": cap, "total": gross + subsidy + cap}
    return out


@pytest.fixture
def site(departments: dict[str, Any], tmp_path: Path) -> None:
    from forecasts.accounting.org import usage_reattribute
    from forecasts.models import (
        ComputeRate,
        DepartmentAdjustment,
        IdentityMapping,
        QosMultiplier,
        RatePlan,
    )

    ggs, scb = departments["genomics"], departments["chemistry"]
    for start, rates in PLANS.items():
        plan = RatePlan.objects.create(name=f"Y{start[5:7]}", effective_from=start)
        for queue, prices in rates.items():
            if queue != "qos":
                core, gpu, mem = prices  # type: ignore[misc]
                ComputeRate.objects.create(plan=plan, cluster="*", queue=queue, core_hour_usd=Decimal(core),
                                           gpu_hour_usd=gpu and Decimal(gpu), mem_gb_hour_usd=mem and Decimal(mem))
        for qos, mult in rates["qos"].items():  # type: ignore[union-attr]
            QosMultiplier.objects.create(plan=plan, qos=qos, multiplier=Decimal(mult))
        if start == "2024-03-01":
            DepartmentAdjustment.objects.create(plan=plan, department=ggs, subsidy_percent=Decimal(25),
                                                cap_usd=Decimal(10))
    lines = [sacct_line(j, user=f"u{account}", account=account, group="g", partition=queue, qos=qos, start=start,
                        end=end, cores=cores, gpus=gpus, mem_mb=mem_mb)
             for j, account, queue, qos, start, end, cores, gpus, mem_mb in JOBS]
    ingest_lines(lines, tmp_path)
    IdentityMapping.objects.create(kind="account", name="lab-a", department=ggs)
    IdentityMapping.objects.create(kind="account", name="lab-b", department=scb)
    IdentityMapping.objects.create(kind="account", name="mover", department=ggs, valid_to="2024-03-14")
    IdentityMapping.objects.create(kind="account", name="mover", department=scb, valid_from="2024-03-15")
    usage_reattribute(reprice=False)


def compute(month: str, *extra: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command("chargeback", "--month", month, "--json", *extra, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_every_department_total_matches_the_hand_computation(site: None) -> None:
    from forecasts.models import Statement

    for month in ("2024-02", "2024-03"):
        summary = compute(month)
        # one department per account and month: the mapping in force on most of its days (mover: scb from 15 March)
        expected = by_hand(month, {"lab-a": "ggs", "lab-b": "scb", "mover": "scb"})
        got = {d["department"]: d for d in summary["departments"]}
        assert set(got) == set(expected), month
        for dept, want in expected.items():
            s = Statement.objects.get(department__code=dept, month=f"{month}-01", is_current=True)
            assert (s.compute_usd, s.subsidy_usd, s.cap_usd, s.total_usd) == (
                want["gross"], want["subsidy"], want["cap"], want["total"]), (month, dept)
            assert Decimal(got[dept]["total_usd"]) == want["total"]


def test_march_is_provisional_and_the_exports_equal_the_page(site: None, client: Client, planner_user: Any) -> None:
    from forecasts.models import Statement

    compute("2024-03")
    s = Statement.objects.get(department__code="ggs", month="2024-03-01", is_current=True)
    assert s.is_provisional and "20 March 2024" in s.provisional_reason
    login(client, planner_user)
    page = client.get(f"/chargeback/statements/{s.pk}/").content.decode()
    assert "20 March 2024" in page and f"{s.total_usd:,}" in page
    rows = list(csv.reader(io.StringIO(client.get(f"/chargeback/statements/{s.pk}.csv").content.decode())))
    amounts = [Decimal(r[-1]) for r in rows if r and r[0] in ("compute", "storage", "subsidy", "cap")]
    assert sum(amounts, Decimal(0)) == s.total_usd


def test_a_viewer_sees_only_their_department(site: None, client: Client, genomics_viewer: Any) -> None:
    compute("2024-03")
    login(client, genomics_viewer)
    body = client.get("/api/v1/chargeback/statements/?month=2024-03").json()
    results = body["results"] if isinstance(body, dict) else body
    assert {r["department"] for r in results} == {"ggs"}


def test_repricing_keeps_the_old_version_with_the_reason(site: None) -> None:
    from forecasts.models import ComputeRate, Statement

    compute("2024-03")
    ComputeRate.objects.filter(plan__effective_from="2024-03-01", queue="bigmem").update(
        mem_gb_hour_usd=Decimal("0.02"))
    compute("2024-03", "--reason", "bigmem memory price corrected")
    versions = list(Statement.objects.filter(department__code="scb", month="2024-03-01").order_by("version"))
    assert [(v.version, v.is_current) for v in versions] == [(1, False), (2, True)]
    assert versions[1].reason == "bigmem memory price corrected"
    PLANS["2024-03-01"]["bigmem"] = ("0.03", None, "0.02")
    try:
        want = by_hand("2024-03", {"lab-a": "ggs", "lab-b": "scb", "mover": "scb"})["scb"]["total"]
    finally:
        PLANS["2024-03-01"]["bigmem"] = ("0.03", None, "0.012")
    assert versions[1].total_usd == want and versions[0].total_usd != want


def test_a_mapping_that_starts_inside_a_month_attributes_that_month(site: None, tmp_path: Path) -> None:
    """Found on this QA pass: a new lab mapped from 15 March (nothing before) had its March jobs, all run after
    the 15th, in Unassigned, and an account moved on 15 March stayed with its old department for the 17 days
    after: a mapping counted for a month only when it was in force on the 1st.  The rule now: the mapping in
    force on most of the month's days (one department per account and month, the rollups' grain)."""
    from forecasts.accounting.org import usage_reattribute
    from forecasts.models import Department, IdentityMapping, UsageMonthly

    ingest_lines([sacct_line(50, user="unew", account="newlab", group="g", start="2024-03-20T08:00:00",
                             end="2024-03-20T09:00:00")], tmp_path, name="new.txt")
    IdentityMapping.objects.create(kind="account", name="newlab", department=Department.objects.get(code="scb"),
                                   valid_from="2024-03-15")
    usage_reattribute(reprice=False)
    march = {a: d for a, d in UsageMonthly.objects.filter(month="2024-03-01").values_list(
        "identity__account", "department__code")}
    assert march["newlab"] == "scb"  # was the Unassigned bucket
    assert march["mover"] == "scb"  # 17 of March's 31 days at scb


def test_the_subsidy_is_listed_before_the_cap_it_precedes(site: None, client: Client, planner_user: Any) -> None:
    """Found on this QA pass: the statement page, its CSV/XLSX/PDF and the API listed 'Cap: -$7.82' above
    'Subsidy: 25% -$5.94' (lines sorted by kind's name), though the cap is what remains over $10 after the
    subsidy: read top down, $23.76 - $7.82 = $15.94 is not the $10 cap.  Lines now come in the order the rule
    applies them: compute, storage, subsidy, cap."""
    from forecasts.models import Statement

    compute("2024-03")
    s = Statement.objects.get(department__code="ggs", month="2024-03-01", is_current=True)
    login(client, planner_user)
    page = client.get(f"/chargeback/statements/{s.pk}/").content.decode()
    assert page.index("25% department subsidy") < page.index("monthly cap $10.00")
    kinds = [r[0] for r in csv.reader(io.StringIO(client.get(f"/chargeback/statements/{s.pk}.csv").content.decode()))
             if r and r[0] in ("compute", "storage", "subsidy", "cap")]
    assert kinds == ["compute"] * 4 + ["subsidy", "cap"]
    api = client.get(f"/api/v1/chargeback/statements/{s.pk}/").json()
    assert [ln["kind"] for ln in api["lines"]][-2:] == ["subsidy", "cap"]


def test_storage_with_no_rate_in_the_plan_says_why_it_is_free(site: None, departments: dict[str, Any],
                                                              client: Client, planner_user: Any) -> None:
    """Found on this QA pass: under a plan with no storage rate for a file system, the statement showed 27.3 TB
    at $0.00 with nothing saying why (compute with no rate gets a note); now storage gets the same note."""
    from datetime import date

    from forecasts.models import Statement
    from forecasts.storage.models import FileSystem, StorageSnapshot, StorageUsage

    fs = FileSystem.objects.create(name="gpfs-work", tier="disk")
    snap = StorageSnapshot.objects.create(filesystem=fs, taken_on=date(2024, 3, 5), format="tsv", scan_name="s",
                                          status=StorageSnapshot.Status.COMPLETED)
    StorageUsage.objects.create(snapshot=snap, kind="group", name="ggs", department=departments["genomics"],
                                bytes=12 * 10**12)
    compute("2024-03")
    s = Statement.objects.get(department__code="ggs", month="2024-03-01", is_current=True)
    assert s.storage_usd == 0 and s.storage_tb > 0
    assert "No storage rate for gpfs-work/disk: that storage is not charged." in s.notes
    login(client, planner_user)
    assert "No storage rate for gpfs-work/disk" in client.get(f"/chargeback/statements/{s.pk}/").content.decode()


def test_the_pdf_writes_negative_amounts_as_the_page_does(site: None, client: Client, planner_user: Any) -> None:
    """The statement PDF wrote the subsidy and the cap as '$-5.94' and '$-7.82' where the page writes '−$5.94'."""
    from django.urls import reverse
    from pypdf import PdfReader

    from forecasts.models import Statement

    compute("2024-03")
    login(client, planner_user)
    ggs = Statement.objects.get(department__code="ggs", month="2024-03-01", is_current=True)
    pdf = client.get(reverse("chargeback-statement-pdf", args=[ggs.pk])).content
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "-$5.94" in text and "-$7.82" in text and "$-" not in text
