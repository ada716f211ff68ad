"""The demo's plans and usage belong together: department ggs's sequencing plan is sized to ggs's usage on
the demo cluster, and the study's plan (Minerva's fleet) is nobody's department in the demo institution.

The usage side is summed straight from the demo's generated sacct lines (the same generator and arguments
``make run`` ingests, forecasts.accounting.demo.demo_slurm_lines), by the year each job started: the
product's monthly rollups split jobs across months, which moves a year's total by well under 1 %."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import yaml

from forecasts.accounting.demo import demo_slurm_lines
from forecasts.demand.demo import DEMO_PLAN, FIXTURES, load_forecasts
from forecasts.demand.plan_io import plan_from_dict
from forecasts.demand.sequencing import yearly_figures
from forecasts.models import SequencerPlan

# plan and observed usage within this factor of each other in every year both cover
TOLERANCE = 1.25


def _seconds(elapsed: str) -> int:
    days, _, hms = elapsed.rpartition("-")
    h, m, s = hms.split(":")
    return (int(days) if days else 0) * 86400 + int(h) * 3600 + int(m) * 60 + int(s)


def _core_hours_by_year(group: str) -> dict[int, float]:
    out: Counter[int] = Counter()
    for line in demo_slurm_lines():
        f = line.split("|")
        if f[6] == group:  # the unix group is the department code in the demo's generator
            out[int(f[12][:4])] += _seconds(f[14]) * int(f[18]) / 3600.0
    return {y: v for y, v in out.items() if v > 0}


def test_the_demo_plan_of_ggs_matches_ggs_usage_on_the_demo_cluster_year_by_year() -> None:
    plan = plan_from_dict(yaml.safe_load((FIXTURES / DEMO_PLAN).read_text()))
    planned = {y.year: y.core_hours_ref for y in yearly_figures(plan)}
    used = _core_hours_by_year("ggs")
    both = sorted(set(planned) & {y for y in used if y <= 2019})  # 2020 holds the logs' last hours only
    assert both == list(range(2014, 2020))
    for year in both:
        ratio = planned[year] / used[year]
        assert 1 / TOLERANCE <= ratio <= TOLERANCE, (year, planned[year], used[year])
    assert max(planned) >= 2022  # and it goes on into the forecast years the combined projection shows


def test_the_study_plan_is_larger_than_the_whole_demo_cluster_so_it_names_no_demo_department() -> None:
    minerva = plan_from_dict(yaml.safe_load((FIXTURES / "minerva_sequencer_plan.yaml").read_text()))
    study_2019 = next(y.core_hours_ref for y in yearly_figures(minerva) if y.year == 2019)
    assert study_2019 > 40e6  # SC15: 48 M core-hours in 2019; the demo cluster's 3,584 cores give at most 31 M
    assert minerva.department is None


@pytest.mark.django_db
def test_the_demo_step_links_only_the_demo_plan_to_ggs(departments: dict[str, Any]) -> None:
    load_forecasts(lambda _: None)
    rows = {r.name: r for r in SequencerPlan.objects.select_related("department")}
    assert rows["Genomics core sequencing plan (NIGM demo)"].department.code == "ggs"
    assert rows["Minerva sequencer rollout (SC15 section 5)"].department is None
    # the combined projection's default plan (the first by name) is the demo institution's own
    assert SequencerPlan.objects.first().name == "Genomics core sequencing plan (NIGM demo)"


def _stated(text: str, what: str) -> int:
    import re

    flat = " ".join(text.replace("#", " ").split())
    found = re.search(rf"about (\d+) % of the {what}", flat)
    assert found, f"no 'about N % of the {what}' in the text"
    return int(found.group(1))


def test_the_demo_institutions_words_on_genomics_match_its_generated_logs() -> None:
    """The fixture said 'genomics two-thirds of use' (the Minerva paper's figure) while the demo's genomics
    departments submit most jobs but use a small share of the core-hours; the words now give both shares, and
    they must stay within a point or two of the logs the demo loads (the unix group is the department)."""
    from forecasts.accounting.parsers.synth import default_people

    genomics = {p.group for p in default_people() if p.profile == "genomics"}
    md = {p.group for p in default_people() if p.profile == "md"}
    jobs: Counter[str] = Counter()
    hours: Counter[str] = Counter()
    for line in demo_slurm_lines():
        f = line.split("|")
        kind = "genomics" if f[6] in genomics else "md" if f[6] in md else "other"
        jobs[kind] += 1
        hours[kind] += _seconds(f[14]) * int(f[18])
    job_share = 100 * jobs["genomics"] / sum(jobs.values())
    hour_share = 100 * hours["genomics"] / sum(hours.values())
    md_share = 100 * hours["md"] / sum(hours.values())
    fixture = (FIXTURES / "demo_institution.yaml").read_text().split("institution:")[0]
    readme = (FIXTURES.parent / "README.md").read_text().split("## The demo in five minutes")[1].split("\n## ")[0]
    for text in (fixture, readme):
        assert "two-thirds" not in text
        assert abs(_stated(text, "jobs") - job_share) <= 2, (job_share, text)
        assert abs(_stated(text, "core-hours") - hour_share) <= 2, (hour_share, text)
    assert sorted(genomics) == ["ggs", "micro", "onco", "psych"] and sorted(md) == ["pharm", "scb"]
    assert abs(87 - md_share) <= 2, md_share
