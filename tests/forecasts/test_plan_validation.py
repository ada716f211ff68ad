"""Sequencer plans are checked where they come in: negative counts refused, unknown keys named,
line numbers in counts CSV errors (pure core: no database)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from forecasts.demand.plan_io import counts_from_csv, plan_from_dict

MINERVA = yaml.safe_load((Path(__file__).resolve().parents[2] / "fixtures" / "minerva_sequencer_plan.yaml").read_text())


def _plan(**change: Any) -> dict[str, Any]:
    d = copy.deepcopy(MINERVA)
    for path, value in change.items():
        *parents, last = path.split("__")
        target: Any = d
        for p in parents:
            target = target[int(p)] if p.isdigit() else target[p]
        target[int(last) if last.isdigit() else last] = value
    return d


def test_the_minerva_plan_is_valid() -> None:
    assert plan_from_dict(_plan()).instruments


@pytest.mark.parametrize(("change", "message"), [
    ({"instruments__0__counts__0__count": -5}, "from 2013-01-01: instruments: between 0 and 1,000, got -5"),
    ({"instruments__0__runs_per_week": -1}, "HiSeq 2500: runs per week per instrument: between 0 and 50, got -1"),
    ({"instruments__0__run_mix__0__samples_per_run": -2},
     "HiSeq 2500, whole genome 30x: samples per run: between 0 and 10,000, got -2"),
    ({"instruments__0__runs_per_weak": 3}, r"instrument 1 \(.*\): unknown key 'runs_per_weak'"),
    ({"colour": "blue"}, "plan: unknown key 'colour'"),
])
def test_a_plan_with_a_negative_count_or_an_unknown_key_is_refused_by_name(change: dict[str, Any],
                                                                            message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan_from_dict(_plan(**change))


def test_a_counts_csv_error_names_its_line() -> None:
    text = "model,date,count\nHiSeq 2500,2014-01-01,4\nHiSeq 2500,2014-06-01,-3\n"
    with pytest.raises(ValueError, match="line 3: count '-3' for HiSeq 2500 must be a number >= 0"):
        counts_from_csv(text)
    with pytest.raises(ValueError, match="line 2: "):
        counts_from_csv("model,date,count\nX,2014-13-01,1\n")


@pytest.mark.parametrize(("text", "message"), [
    ("name: [unclosed\n", "plan.yaml, line 2, column 1: not valid YAML: expected ',' or ']'"),
    ("name: x\n start: 2014\n", "plan.yaml, line 2, column 7: not valid YAML: mapping values are not allowed here"),
    ("\x11", "plan.yaml, line 1, column 1: not valid YAML: a control character (0x11) that YAML does not allow"),
])
def test_a_plan_that_is_not_yaml_is_refused_with_its_line(text: str, message: str) -> None:
    from forecasts.demand.plans import PlanError, plan_parse

    with pytest.raises(PlanError) as caught:
        plan_parse(text, name="plan.yaml")
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def test_a_plan_may_name_its_department_and_keeps_it_through_yaml() -> None:
    from forecasts.demand.plan_io import plan_from_yaml, plan_to_dict, plan_to_yaml

    plan = plan_from_dict(_plan(department=" ggs "))
    assert plan.department == "ggs"
    doc = plan_to_dict(plan)
    assert list(doc)[:2] == ["name", "department"] and doc["department"] == "ggs"
    assert plan_from_yaml(plan_to_yaml(plan)).department == "ggs"


@pytest.mark.parametrize("value", [None, "", "   "])
def test_a_plan_without_a_department_is_the_document_it_always_was(value: Any) -> None:
    from forecasts.demand.plan_io import plan_to_dict

    plain = plan_to_dict(plan_from_dict(_plan()))
    assert "department" not in plain  # no new key: stored documents compare equal to re-imported ones
    assert plan_to_dict(plan_from_dict(_plan(department=value))) == plain


@pytest.mark.parametrize("value", [42, ["ggs"], {"code": "ggs"}, True])
def test_a_department_that_is_not_a_code_is_refused(value: Any) -> None:
    with pytest.raises(ValueError, match="department must be a department code such as ggs"):
        plan_from_dict(_plan(department=value))


def test_a_misspelt_department_key_is_named() -> None:
    with pytest.raises(ValueError, match="plan: unknown key 'departement'"):
        plan_from_dict(_plan(departement="ggs"))
