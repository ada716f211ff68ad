"""Every kind of change leaves an audit record (who, when, before, after) in the same transaction;
admins and finance read and export them; nobody can change or delete one."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from auditlog.context import set_actor
from auditlog.models import LogEntry
from django.db import DatabaseError, transaction
from django.test import Client

from planner.audit.selectors import AuditFilters, audit_entries, changes_of
from tests.helpers import login

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]


def _latest(kind: str) -> LogEntry:
    entry = audit_entries(AuditFilters(kind=kind)).first()
    assert entry is not None, f"no audit record for {kind}"
    return entry


def _changes(entry: LogEntry) -> dict[str, tuple[str, str]]:
    return {c.field: (c.before, c.after) for c in changes_of(entry)}


def test_a_rate_change_through_the_admin_records_who_and_before_and_after(admin_user: Any) -> None:
    from forecasts.models import ComputeRate, RatePlan

    plan = RatePlan.objects.create(name="FY25", effective_from=date(2024, 7, 1))
    ComputeRate.objects.create(plan=plan, cluster="*", queue="*", core_hour_usd=Decimal("0.02"))
    client = login(Client(), admin_user)
    form = _rate_plan_form(client, plan.pk)
    rates = next(k.removesuffix("-0-core_hour_usd") for k in form if k.endswith("-0-core_hour_usd"))
    form |= {f"{rates}-0-core_hour_usd": "0.025", "note": "board approved"}
    response = client.post(f"/admin/forecasts/rateplan/{plan.pk}/change/", form, REMOTE_ADDR="10.1.2.3")
    assert response.status_code == 302, response.content.decode()[:3000]
    entry = audit_entries(AuditFilters(kind="rate plan", text="0.025")).get()
    assert entry.actor == admin_user and entry.remote_addr == "10.1.2.3"
    before, after = _changes(entry)["core_hour_usd"]
    assert (Decimal(before), Decimal(after)) == (Decimal("0.02"), Decimal("0.025"))


def _rate_plan_form(client: Client, plan_pk: int) -> dict[str, str]:
    """The admin's rate plan form as it stands: its fields and every inline's rows and management forms."""
    import re

    page = client.get(f"/admin/forecasts/rateplan/{plan_pk}/change/").content.decode()
    form = dict(re.findall(r'<input type="(?:text|number|hidden)" name="([^"]+)"[^>]*?value="([^"]*)"', page))
    form |= {name: "" for name in re.findall(r'<input type="(?:text|number)" name="([^"]+)"(?![^>]*value=)', page)}
    form |= {name: text.strip() for name, text in re.findall(r'<textarea name="([^"]+)"[^>]*>([^<]*)</textarea>',
                                                               page)}
    form |= dict(re.findall(r'<select name="([^"]+)"[^>]*>.*?<option value="([^"]*)" selected', page, re.S))
    return {k: v for k, v in form.items() if "__prefix__" not in k}


def test_identity_and_group_mapping_imports_are_recorded(admin_user: Any, departments: Any) -> None:
    from forecasts.accounting.org import mappings_import_csv

    with set_actor(admin_user):
        mappings_import_csv("kind,name,department,project,valid_from,valid_to\nuser,gina,ggs,,,\n")
    assert _latest("identity mapping").object_repr.startswith("user gina")
    client = login(Client(), admin_user)
    upload = io.BytesIO(b"mappings:\n  - {group: genomics-pis, role: department viewer, departments: [ggs]}\n")
    upload.name = "groups.yaml"
    assert client.post("/access/mappings/", {"file": upload}).status_code == 302
    entry = _latest("group mapping")
    assert entry.actor == admin_user and "genomics-pis" in entry.object_repr


def test_catalog_design_plan_and_narrative_changes_are_recorded(planner_user: Any) -> None:
    from forecasts.demand.plans import plan_import_file
    from planner.models import Design, GrantReport, NodeType

    with set_actor(planner_user):
        node = NodeType.objects.create(name="test-node", cpu_model="EPYC", cores_per_node=32, base_clock_ghz=2.5,
                                       all_core_clock_ghz=2.8, memory_gb=256, price_usd=9000, power_w=500,
                                       first_year=2024)
        node.price_usd = 8500
        node.save()
        design = Design.objects.create(name="Test design", scenario_yaml="a: 1", scenario={"a": 1})
        design.description = "two racks"
        design.save()
        plan_import_file(ROOT / "fixtures" / "minerva_sequencer_plan.yaml", source="test", user=planner_user)
        report = GrantReport.objects.create(design=design, title="NIH S10")
        report.narrative_overrides = {"summary": "We ask for two racks."}
        report.save()
    assert _changes(_latest("catalog row"))["price_usd"][1] == "8500"
    assert _changes(_latest("design"))["description"] == ("", "two racks")
    assert _latest("sequencer plan").actor == planner_user
    assert "We ask for two racks." in _changes(_latest("report narrative"))["narrative_overrides"][1]


def test_owned_capacity_changes_are_recorded(admin_user: Any) -> None:
    """A design started from a forecast owns what the capacity records say: a change to them is on the trail."""
    from forecasts.accounting.models import Cluster, ClusterCapacity
    from forecasts.storage.models import FileSystem

    with set_actor(admin_user):
        fs = FileSystem.objects.create(name="work", capacity_tb=600)
        fs.capacity_tb = 750
        fs.save()
        ClusterCapacity.objects.create(cluster=Cluster.objects.create(name="nexus"), effective_from=date(2019, 1, 1),
                                       cores=3584, nodes=56)
    entry = _latest("owned capacity")
    assert entry.actor == admin_user and "3584" in str(_changes(entry).get("cores"))
    last = LogEntry.objects.filter(object_repr="work").order_by("pk").last()
    assert last is not None and _changes(last)["capacity_tb"] == ("600.0", "750")


def test_sign_on_and_admin_changes_of_user_access_are_recorded(admin_user: Any, departments: Any) -> None:
    from django.contrib.auth.models import User

    from planner.access.services import access_apply, mappings_import

    mappings_import(text="group,role,departments\npis,department viewer,ggs\n", filename="m.csv")
    user = User.objects.create_user("sso-user")
    access_apply(user=user, source="oidc", groups=["pis"])
    kinds = [(e.content_type.model, e.changes) for e in audit_entries(AuditFilters(kind="user access"))]
    assert any(model == "user" and "groups" in str(changes) for model, changes in kinds)
    assert any(model == "user" and "viewers" in str(changes) and "Genetics and Genomic Sciences" in str(changes)
               for model, changes in kinds)
    with set_actor(admin_user):
        user.is_staff = True
        user.save()
    assert _changes(audit_entries(AuditFilters(kind="user access", actor=admin_user.username)).first())[
        "is_staff"] == ("False", "True")


def test_audit_records_cannot_be_changed_or_deleted(admin_user: Any) -> None:
    from forecasts.models import RatePlan

    with set_actor(admin_user):
        RatePlan.objects.create(name="FY26", effective_from=date(2025, 7, 1))
    entry = _latest("rate plan")
    for attempt in (lambda: LogEntry.objects.filter(pk=entry.pk).update(object_repr="nothing happened"),
                    lambda: LogEntry.objects.filter(pk=entry.pk).delete()):
        with pytest.raises(DatabaseError, match="audit records cannot be"), transaction.atomic():
            attempt()
    assert LogEntry.objects.get(pk=entry.pk).object_repr == entry.object_repr
    client = login(Client(), admin_user)
    assert client.get("/admin/auditlog/logentry/").status_code == 404  # no admin page to edit them in


@pytest.mark.parametrize(("persona", "status"), [("admin_user", 200), ("finance_user", 200), ("planner_user", 403),
                                                 ("genomics_viewer", 403)])
def test_the_audit_page_and_export_are_for_admins_and_finance(request: Any, persona: str, status: int) -> None:
    from forecasts.models import RatePlan

    admin = request.getfixturevalue("admin_user") if persona != "admin_user" else None
    user = request.getfixturevalue(persona)
    with set_actor(admin or user):
        plan = RatePlan.objects.create(name="FY27", effective_from=date(2026, 7, 1))
        plan.note = "raised for the new GPUs"
        plan.save()
    client = login(Client(), user)
    page = client.get("/audit/?kind=rate+plan&q=FY27")
    export = client.get("/audit/export.csv?kind=rate+plan")
    assert (page.status_code, export.status_code) == (status, status)
    if status == 200:
        assert "raised for the new GPUs" in page.content.decode()
        rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
        changed = [r for r in rows if r["field"] == "note"]
        assert changed and changed[0]["before"] == "" and changed[0]["after"] == "raised for the new GPUs"
        assert changed[0]["actor"] == (admin or user).username and changed[0]["kind"] == "rate plan"


def test_a_bad_filter_is_named_and_ignored(admin_user: Any) -> None:
    page = login(Client(), admin_user).get("/audit/?since=yesterday&kind=everything")
    text = page.content.decode()
    assert page.status_code == 200
    assert "since: &#x27;yesterday&#x27; is not a date (YYYY-MM-DD); ignored" in text and "kind: " in text


def test_changes_read_as_names_not_ids_and_leave_out_reverse_relations(planner_user: Any) -> None:
    """A benchmark's node type reads as the node's name, a design's parent as the design; the parent's
    reverse relations (which django-auditlog recorded as 'planner.Benchmark.None') are not shown."""
    from planner.models import Design, GrantReport

    with set_actor(planner_user):
        first = Design.objects.create(name="Two racks", scenario_yaml="a: 1", scenario={"a": 1})
        second = Design.objects.create(name="Three racks", scenario_yaml="a: 1", scenario={"a": 1}, parent=first)
        GrantReport.objects.create(design=second, title="NIH S10")
    design = _changes(_latest("design"))
    assert design["parent"] == ("", str(first))
    assert not any(".None" in before + after for before, after in design.values())
    assert not {"revisions", "evaluations", "grant_reports", "optimizer_runs"} & design.keys()
    assert _changes(_latest("report narrative"))["design"] == ("", str(second))
    from planner.audit.selectors import audit_csv_rows

    rows = list(audit_csv_rows(audit_entries(AuditFilters())))
    assert not any("planner.Design.None" in cell for row in rows for cell in row)
    assert any(row[8] == "parent" and row[10] == str(first) for row in rows)

