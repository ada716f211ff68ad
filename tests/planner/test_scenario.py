"""Scenario loading and validation: every error names its field path."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from planner.designs.scenario import ScenarioError, evaluate_scenario, load_scenario

SCEN = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios"


def _data() -> dict:
    with (SCEN / "minerva_narrow_flash.yaml").open() as fh:
        data = yaml.safe_load(fh)
    data.pop("catalog")  # dicts use the default fixtures/catalog.yaml
    return data


def test_fixtures_load() -> None:
    for name in ("minerva_wide_amd_disk", "minerva_narrow_flash", "minerva_optimised"):
        sc = load_scenario(SCEN / f"{name}.yaml")
        assert sc.design.years == list(range(2014, 2020))
        assert sc.design.existing[0].count == 120


def test_unknown_node_type_names_path() -> None:
    data = _data()
    data["purchases"][2] = {"year": 2014, "node_type": "xeon", "count": 3}
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    assert "purchases[2].node_type: unknown node type 'xeon'" in exc.value.errors


def test_all_errors_collected() -> None:
    data = _data()
    data["purchases"].append({"year": 2030, "storage_system": "netapp", "count": -1})
    data["demand"][1]["core_hours"] = "lots"
    data["constraints"]["utilisation_target"] = 1.5
    data["costs"]["colour"] = "red"
    data["existing"][0]["node_type"] = "cray"
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    errs = exc.value.errors
    assert "purchases[5].year: 2030 outside the horizon 2014..2019" in errs
    assert "purchases[5].storage_system: unknown storage system 'netapp'" in errs
    assert "purchases[5].count: must be > 0, got -1" in errs
    assert "demand[1].core_hours: expected a number, got 'lots'" in errs
    assert "constraints.utilisation_target: must be <= 1, got 1.5" in errs
    assert "costs.colour: unknown field" in errs
    assert "existing[0].node_type: unknown node type 'cray'" in errs


@pytest.mark.parametrize("text", [".inf", "-.inf", ".nan", "1e400"])
def test_an_infinite_or_nan_number_is_an_error_naming_its_field(text: str) -> None:
    data = _data()
    data["demand"][1]["core_hours"] = yaml.safe_load(text)  # 1e400 reads as a string, then overflows
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    assert [e for e in exc.value.errors if e.startswith("demand[1].core_hours: expected a finite number")], \
        exc.value.errors


def test_availability_window_and_missing_demand() -> None:
    data = _data()
    data["purchases"].append({"year": 2014, "node_type": "xeon-e5-2697v4", "count": 1})
    data["demand"] = data["demand"][:-1]
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    assert "purchases[5].year: xeon-e5-2697v4 is not available before 2016" in exc.value.errors
    assert "demand: no entry for year 2019" in exc.value.errors


def test_json_scenario_and_dict_agree(tmp_path: Path) -> None:
    data = _data()
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    a = evaluate_scenario(path)
    b = evaluate_scenario(copy.deepcopy(data))
    assert a.npv_usd == pytest.approx(b.npv_usd)
    json.dumps(a.to_dict(), allow_nan=False)


def test_flash_tb_rounds_up_to_units() -> None:
    data = _data()
    data["purchases"][1] = {"year": 2014, "flash_tb": 150}  # 7.5 units of 20 TB -> 8
    ev = evaluate_scenario(data)
    assert ev.year(2014).flash_tb == 160


def test_yaml_and_json_syntax_errors_are_one_line_with_file_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nhorizon: {start_year: 2014, end_year: 2019\ndemand: []\n")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(bad)
    (msg,) = exc.value.errors
    assert msg.startswith(f"{bad}:") and ": YAML syntax error: " in msg and "\n" not in msg
    line, col = msg[len(str(bad)) + 1:].split(":")[:2]
    assert int(line) >= 2 and int(col) >= 1
    js = tmp_path / "bad.json"
    js.write_text('{"name": "x",\n "horizon": }')
    with pytest.raises(ScenarioError) as exc:
        load_scenario(js)
    assert exc.value.errors == [f"{js}:2:13: JSON syntax error: Expecting value"]


def test_a_missing_demand_field_is_an_error_unless_that_check_is_off() -> None:
    data = _data()
    del data["demand"][2]["files"]
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    assert "demand[2].files: required (or turn the check off: constraints.off: [files])" in exc.value.errors
    data["constraints"]["off"] = ["files"]
    ev = evaluate_scenario(data)
    assert not any(c.name == "metadata_files" for y in ev.years for c in y.checks)


def test_zero_or_negative_counts_are_rejected_with_their_path() -> None:
    data = _data()
    data["purchases"][0]["count"] = 0
    data["existing"][0]["count"] = -3
    data["purchases"][1] = {"year": 2014, "flash_tb": 0}
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    assert "purchases[0].count: must be > 0, got 0" in exc.value.errors
    assert "existing[0].count: must be > 0, got -3" in exc.value.errors
    assert "purchases[1].flash_tb: must be > 0, got 0" in exc.value.errors


def test_turnaround_and_storage_utilisation_are_optional_keys() -> None:
    data = _data()
    data["constraints"].pop("turnaround_hours", None)
    data["constraints"]["storage_utilisation_max"] = 0.5
    sc = load_scenario(data)
    assert sc.design.turnaround_hours is None and sc.design.storage_utilisation_max == 0.5
    data["constraints"]["storage_utilisation_max"] = 1.5
    data["constraints"]["turnaround_hours"] = -1
    with pytest.raises(ScenarioError) as exc:
        load_scenario(data)
    assert "constraints.storage_utilisation_max: must be <= 0.99, got 1.5" in exc.value.errors
    assert "constraints.turnaround_hours: must be >= 0.01, got -1" in exc.value.errors
