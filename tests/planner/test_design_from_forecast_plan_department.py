"""A design from a forecast with a sequencer plan that names its department D counts D's sequencing once:
the plan goes on a trend that holds none of it (all but D, or another single department), and on one that
does (D's, every department's, all but another) only when the planner says it is new to the cluster, with
the trend without D offered instead.  A plan that names no department keeps the rule it had before."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from forecasts.demand.paths import PathsError
from planner.designs.models import Design
from tests.helpers import login

MINERVA = Path(__file__).resolve().parents[2] / "fixtures" / "minerva_sequencer_plan.yaml"

pytestmark = pytest.mark.django_db


def _plan(name: str, department: str | None) -> Any:
    """The Minerva plan moved to 2024-2030, so it adds core-hours in the forecast's whole years 2024-2026."""
    from forecasts.demand.plans import plan_from_document, plan_save

    text = MINERVA.read_text()
    for old, new in (("2019-", "2030-"), ("2015-", "2026-"), ("2013-", "2024-")):
        text = text.replace(old, new)
    doc = yaml.safe_load(text) | {"name": name} | ({"department": department} if department else {})
    return plan_save(plan_from_document(doc), source="test")[0]


@pytest.fixture(scope="module")
def site(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """minerva's usage 2020-2023 (ggs and scb) and its core-hours fits of every kind, a plan of ggs's sequencing
    and one that names no department, the hardware catalog; built once per module in a transaction rolled
    back at its end."""
    from django.db import transaction

    from forecasts.demand.series import SeriesSpec, forecast_fit_create
    from forecasts.models import Cluster, Department, Institution
    from planner.hardware.services import catalog_load_yaml
    from tests.forecasts.forecast_factories import usage_history

    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            catalog_load_yaml()  # a design is checked against the catalog
            Institution.objects.get_or_create(pk=1, defaults={"name": "Test Institute of Genomics"})
            ggs = Department.objects.create(code="ggs", name="Genetics and Genomic Sciences")
            scb = Department.objects.create(code="scb", name="Structural and Chemical Biology")
            usage_history({"genomics": ggs, "chemistry": scb}, months=48)
            usage_history({"genomics": ggs, "chemistry": scb}, months=48, cluster="nexus")
            minerva = Cluster.objects.get(name="minerva")

            def fit(**kw: Any) -> Any:
                return forecast_fit_create(SeriesSpec("core_hours", **kw), horizon_months=36)

            yield {
                "fits": {
                    "all but ggs": fit(cluster=minerva, exclude_department=ggs),
                    "all but scb": fit(cluster=minerva, exclude_department=scb),
                    "ggs only": fit(cluster=minerva, department=ggs),
                    "scb only": fit(cluster=minerva, department=scb),
                    "every department": fit(cluster=minerva),
                    # nexus has no fit without ggs: the refusal says how to make one
                    "nexus, every department": fit(cluster=Cluster.objects.get(name="nexus")),
                    "nexus, all but scb": fit(cluster=Cluster.objects.get(name="nexus"), exclude_department=scb),
                },
                "ggs plan": _plan("Minerva from 2024, ggs", "ggs"),
                "plain plan": _plan("Minerva from 2024", None),
            }
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)


def _start(site: dict[str, Any], fit: str, plan: str, plan_on_top: bool = False) -> Design:
    from planner.designs.services_paths import design_from_forecast, design_years

    row = site["fits"][fit]
    first, last = design_years(row)
    return design_from_forecast(fit=row, start_year=first, end_year=last, plan=site[plan], plan_on_top=plan_on_top)


def _refusal(site: dict[str, Any], fit: str, plan: str) -> str:
    with pytest.raises(PathsError) as caught:
        _start(site, fit, plan)
    return str(caught.value)


# ---- a plan of department ggs ---------------------------------------------------------------------------

def test_a_ggs_plan_goes_on_the_trend_without_ggs(site: dict[str, Any]) -> None:
    from forecasts.demand.plans import plan_years

    design = _start(site, "all but ggs", "ggs plan")
    assert ("Sequencer plan 'Minerva from 2024, ggs v1' on top of the trend without ggs, the department whose "
            "sequencing the plan is.") in design.scenario["description"]
    first = design.scenario["demand"][0]
    trend = next(y["median"] for y in site["fits"]["all but ggs"].yearly if y["year"] == first["year"])
    plan_hours = {y.year: y.core_hours_ref for y in plan_years(site["ggs plan"]) if y.months == 12}
    assert first["core_hours"] == pytest.approx(trend + plan_hours[first["year"]])


def test_a_ggs_plan_goes_on_another_single_department_s_trend_without_asking(site: dict[str, Any]) -> None:
    design = _start(site, "scb only", "ggs plan")
    assert ("on top of department scb's trend, which holds none of department ggs's sequencing."
            in design.scenario["description"])
    assert design.scenario["uncertainty"]["forecast"]["sequencer_plan"] == site["ggs plan"].pk


@pytest.mark.parametrize(("fit", "counts", "confirmed"), [
    ("all but scb", "counts every department's core-hours but scb's on minerva, department ggs's among them",
     "on top of the trend without scb, department ggs's included"),
    ("ggs only", "counts department ggs's core-hours on minerva", "on top of department ggs's own trend"),
    ("every department", "counts every department's core-hours on minerva, department ggs's among them",
     "on top of the whole trend, department ggs's included"),
])
def test_a_ggs_plan_on_a_trend_that_holds_ggs_is_refused_offering_only_the_trend_without_ggs(
        site: dict[str, Any], fit: str, counts: str, confirmed: str) -> None:
    fits = site["fits"]
    before = Design.objects.count()
    message = _refusal(site, fit, "ggs plan")
    assert Design.objects.count() == before and "\n" not in message
    assert message == (f"forecast #{fits[fit].pk} {counts}, and the plan is department ggs's sequencing: added on "
                       f"top, that sequencing would be counted twice: start from #{fits['all but ggs'].pk} "
                       f"(minerva / all but ggs / core-hours per month) instead, or confirm that the plan's "
                       f"sequencing is new to the cluster (plan on top)")
    assert f"#{fits['all but scb'].pk} (" not in message  # a trend without scb still holds ggs's: not offered
    design = _start(site, fit, "ggs plan", plan_on_top=True)
    assert (f"{confirmed}: department ggs's sequencing in the plan is new to the cluster, as the planner "
            f"confirmed.") in design.scenario["description"]


def test_without_a_trend_of_all_but_ggs_the_refusal_says_how_to_make_one(site: dict[str, Any]) -> None:
    for fit in ("nexus, every department", "nexus, all but scb"):
        message = _refusal(site, fit, "ggs plan")
        assert ("fit the cluster's core-hours without department ggs (forecasts page, Department: all but ggs) "
                "and start from that, or confirm") in message
        assert f"#{site['fits']['nexus, all but scb'].pk} (" not in message


# ---- a plan that names no department: the rule as before ------------------------------------------------

def test_a_plan_without_a_department_keeps_the_rule_it_had(site: dict[str, Any]) -> None:
    fits = site["fits"]
    message = _refusal(site, "every department", "plain plan")
    assert message.startswith(f"forecast #{fits['every department'].pk} counts every department's core-hours on "
                              "minerva, and a sequencer plan's core-hours are added on top of it: sequencing that "
                              "already runs there would be counted twice: start from ")
    assert f"#{fits['all but ggs'].pk} (" in message and f"#{fits['all but scb'].pk} (" in message  # any "all but"
    for fit in ("ggs only", "scb only"):
        assert f"counts department {fit[:3]}'s core-hours" in _refusal(site, fit, "plain plan")
    assert "on top of the trend without scb." in _start(site, "all but scb", "plain plan").scenario["description"]
    assert ("on top of the whole trend: its sequencing is new to the cluster, as the planner confirmed."
            in _start(site, "every department", "plain plan", plan_on_top=True).scenario["description"])


# ---- the same through the API ---------------------------------------------------------------------------

@pytest.mark.parametrize(("fit", "plan", "plan_on_top", "status", "says"), [
    ("all but ggs", "ggs plan", False, 201, "on top of the trend without ggs, the department whose sequencing"),
    ("scb only", "ggs plan", False, 201, "which holds none of department ggs's sequencing"),
    ("all but scb", "ggs plan", False, 400, "department ggs's among them, and the plan is department ggs's"),
    ("all but scb", "ggs plan", True, 201, "on top of the trend without scb, department ggs's included"),
    ("ggs only", "ggs plan", False, 400, "counts department ggs's core-hours on minerva, and the plan is"),
    ("ggs only", "ggs plan", True, 201, "on top of department ggs's own trend"),
    ("every department", "ggs plan", False, 400, "start from #{all but ggs} (minerva / all but ggs"),
    ("every department", "ggs plan", True, 201, "on top of the whole trend, department ggs's included"),
    ("nexus, every department", "ggs plan", False, 400, "(forecasts page, Department: all but ggs)"),
    ("every department", "plain plan", False, 400, "sequencing that already runs there would be counted twice"),
    ("scb only", "plain plan", False, 400, "counts department scb's core-hours"),
    ("all but scb", "plain plan", False, 201, "on top of the trend without scb."),
])
def test_the_api_starts_or_refuses_a_design_by_the_plan_s_department(
        client: Any, planner_user: Any, site: dict[str, Any], fit: str, plan: str, plan_on_top: bool, status: int,
        says: str) -> None:
    row = site["fits"][fit]
    resp = login(client, planner_user).post(f"/api/v1/designs/from-forecast/{row.pk}/",
                                            {"plan": site[plan].pk, "plan_on_top": plan_on_top},
                                            content_type="application/json")
    assert resp.status_code == status, resp.json()
    text = (Design.objects.get(pk=resp.json()["design"]).scenario["description"] if status == 201
            else resp.json()["detail"])
    assert says.replace("{all but ggs}", str(site["fits"]["all but ggs"].pk)) in text


# ---- the form's "Counted twice?" note --------------------------------------------------------------------

def _option(form: str, plan: Any) -> str:
    match = re.search(rf'<option value="{plan.pk}"[^>]*>', form)
    assert match is not None
    return match.group(0)


def test_the_form_names_the_plan_s_department_and_offers_the_trend_without_it(
        client: Any, planner_user: Any, site: dict[str, Any]) -> None:
    fits, ggs = site["fits"], site["ggs plan"]
    form = login(client, planner_user).get(
        f"/designs/from-forecast/{fits['every department'].pk}/?plan={ggs.pk}").content.decode()
    assert 'data-department="ggs" data-overlap="1"' in _option(form, ggs)
    assert 'data-department="" data-overlap="1"' in _option(form, site["plain plan"])
    note = form.split('<p class="small overlap-note" data-department="ggs">', 1)[1].split("</p>", 1)[0]
    assert "A plan of department ggs's sequencing (Genetics and Genomic Sciences)" in note
    assert "ggs's sequencing would be counted twice" in note
    assert f'href="/designs/from-forecast/{fits["all but ggs"].pk}/?plan={ggs.pk}"' in note
    assert f"/designs/from-forecast/{fits['all but scb'].pk}/" not in note
    general = form.split('<p class="small overlap-note" data-department="">', 1)[1].split("</p>", 1)[0]
    assert "If the plan's sequencing already runs there" in general  # the plan without a department


def test_the_form_has_no_note_for_a_department_s_plan_on_another_department_s_trend(
        client: Any, planner_user: Any, site: dict[str, Any]) -> None:
    form = login(client, planner_user).get(f"/designs/from-forecast/{site['fits']['scb only'].pk}/").content.decode()
    assert 'data-department="ggs" data-overlap=""' in _option(form, site["ggs plan"])
    assert 'data-department="ggs">' not in form  # no ggs paragraph: that trend holds none of ggs's sequencing
    assert 'data-department="">' in form  # the plan without a department is still asked about (as before)
    form = client.get(f"/designs/from-forecast/{site['fits']['all but ggs'].pk}/").content.decode()
    assert 'data-department="ggs" data-overlap=""' in _option(form, site["ggs plan"])
    assert 'id="plan-overlap"' not in form  # neither plan overlaps a trend without one department's: no note
