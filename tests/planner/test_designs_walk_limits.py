"""A scenario's quantities have upper bounds: a typo's extra zeros are refused with one line naming the field and
the limit, in the scenario core and in the editor's "Check only", never evaluated into a twenty-digit bill."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.designs.scenario import MAX_COUNT, ScenarioError, load_scenario
from tests.helpers import login

SCEN = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios"
BIG = 99999999999999999999


@pytest.fixture
def catalog() -> None:
    from planner.hardware.services import catalog_load_yaml

    catalog_load_yaml()


def _data() -> dict[str, Any]:
    data = yaml.safe_load((SCEN / "minerva_narrow_flash.yaml").read_text())
    data.pop("catalog")
    return data


def _errors(data: dict[str, Any]) -> list[str]:
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    return exc.value.errors


def test_a_purchase_count_above_the_limit_names_the_field_and_the_limit() -> None:
    data = _data()
    node = next(i for i, p in enumerate(data["purchases"]) if p.get("node_type"))
    store = next(i for i, p in enumerate(data["purchases"]) if p.get("storage_system"))
    data["purchases"][node]["count"] = BIG
    data["purchases"][store]["count"] = MAX_COUNT + 1
    data["existing"][0]["count"] = BIG
    errs = _errors(data)
    assert f"purchases[{node}].count: at most 100,000 nodes in one purchase line, got {BIG}" in errs
    assert f"purchases[{store}].count: at most 100,000 storage units in one purchase line, got 100001" in errs
    assert f"existing[0].count: at most 100,000 nodes in one inventory line, got {BIG}" in errs
    data = _data()
    data["purchases"][node]["count"] = MAX_COUNT  # the limit itself is allowed
    load_scenario(data)


@pytest.mark.parametrize(("where", "value", "error"), [
    (("demand", 0, "core_hours"), 1e20, "demand[0].core_hours: at most 1,000,000,000,000 core-hours a year, got 1e+20"),
    (("demand", 0, "storage_tb"), 1e9, "demand[0].storage_tb: at most 100,000,000 TB, got 1e+09"),
    (("constraints", "budgets_usd", 2014), 5e15,
     "constraints.budgets_usd.2014: at most 1,000,000,000,000 USD, got 5e+15"),
    (("optimize", "max_count_per_year"), 10**9, "optimize.max_count_per_year: at most 100,000 of an item a year, "
                                                 "got 1000000000"),
    (("horizon", "end_year"), 99999, "horizon.end_year: at most 2,200, got 99999"),
    (("prices",), {"nodes": {"all": {"price_index": 1e6}}},
     "prices.nodes.all.price_index: at most 1,000 times the catalog price, got 1e+06"),
])
def test_other_quantities_have_limits_too(where: tuple[Any, ...], value: Any, error: str) -> None:
    data = copy.deepcopy(_data())
    node = data
    for key in where[:-1]:
        node = node.setdefault(key, {}) if isinstance(node, dict) else node[key]
    node[where[-1]] = value
    assert error in _errors(data)


@pytest.mark.django_db
def test_the_editor_refuses_the_big_count_on_check_and_on_save(client: Any, planner_user: Any, catalog: None) -> None:
    from planner.designs.models import Design

    data = _data()
    node = next(i for i, p in enumerate(data["purchases"]) if p.get("node_type"))
    data["purchases"][node]["count"] = BIG
    text = yaml.safe_dump(data, sort_keys=False)
    login(client, planner_user)
    for action in ("check", "save"):
        html = client.post("/designs/new/", {"scenario": text, "action": action}).content.decode()
        assert f"purchases[{node}].count: at most 100,000 nodes in one purchase line, got {BIG}" in html
        assert "Valid:" not in html
    assert not Design.objects.exists()


@pytest.mark.django_db
def test_the_year_table_prints_memory_with_thousands_separators(client: Any, planner_user: Any,
                                                               catalog: None) -> None:
    from planner.designs.services import design_create, design_evaluate

    data = _data()
    node = next(i for i, p in enumerate(data["purchases"]) if p.get("node_type"))
    data["purchases"][node]["count"] = MAX_COUNT
    design = design_create(text=yaml.safe_dump(data, sort_keys=False))
    ev = design_evaluate(design=design)
    year = next(y for y in ev.result["years"] if y["memory_tb"] >= 1000)
    html = login(client, planner_user).get(f"/designs/{design.pk}/").content.decode()
    assert f"{year['memory_tb']:,.1f} / {year['peak_tf']:,.0f}" in html
