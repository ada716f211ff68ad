"""A YAML key given twice in one mapping (a node type's second ``price_usd``, an instrument's second
``runs_per_week``) was loaded by PyYAML with the LAST value and no word, while the CSV import refuses a duplicate
row. Every YAML the product reads (hardware catalog and benchmark file, scenario, sequencer plan, rate plan, group
mappings) goes through one loader, planner.web.textfiles.yaml_load, which refuses it naming the file, the line of
the second key and the line of the first; nothing is stored. A benchmark given twice in a catalog YAML (same
pipeline, node type, storage system and samples: the database keeps one row per key) is refused the same way."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.test import Client

from forecasts.models import SequencerPlan
from planner.hardware.models import Benchmark, NodeType
from planner.web.textfiles import yaml_load

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "fixtures" / "catalog.yaml"
PLAN = ROOT / "fixtures" / "nigm_sequencer_plan.yaml"


def _lines(text: str, needle: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]


def _file(data: str, name: str) -> io.BytesIO:
    f = io.BytesIO(data.encode())
    f.name = name
    return f


def test_the_loader_refuses_a_key_given_twice_but_not_a_merge_or_a_list() -> None:
    with pytest.raises(yaml.MarkedYAMLError, match=r"duplicate key 'a' \(also on line 1\)") as err:
        yaml_load("a: 1\nb: 2\na: 3\n")
    assert err.value.problem_mark.line + 1 == 3
    assert yaml_load("x: &b {p: 1, q: 2}\ny:\n  <<: *b\n  p: 5\n") == {"x": {"p": 1, "q": 2}, "y": {"p": 5, "q": 2}}
    assert yaml_load('1: a\n"1": b\nl: [1, 1]\n') == {1: "a", "1": "b", "l": [1, 1]}


def test_the_catalog_command_refuses_a_node_type_field_given_twice(tmp_path: Path) -> None:
    text = CATALOG.read_text()
    first = re.search(r"^( +)price_usd: .*$", text, re.M)
    assert first
    text = text[:first.end()] + f"\n{first.group(1)}price_usd: 1" + text[first.end():]
    path = tmp_path / "catalog.yaml"
    path.write_text(text)
    line, again = _lines(text, "price_usd:")[:2]
    with pytest.raises(CommandError) as err:
        call_command("import_catalog", str(path))
    message = str(err.value)
    assert message.startswith(f"{path}:{again}:") and f"duplicate key 'price_usd' (also on line {line})" in message
    assert "\n" not in message
    assert not NodeType.objects.exists()


def test_the_catalog_command_refuses_a_benchmark_given_twice(tmp_path: Path) -> None:
    doc = yaml.safe_load(CATALOG.read_text())
    doc["benchmarks"].append(dict(doc["benchmarks"][0], cpu_hours_per_sample=1))
    text = yaml.safe_dump(doc, sort_keys=False)
    path = tmp_path / "catalog.yaml"
    path.write_text(text)
    with pytest.raises(CommandError) as err:
        call_command("import_catalog", str(path))
    n = len(doc["benchmarks"]) - 1
    line = _lines(text, "- pipeline:")[n]
    assert str(err.value) == (
        f"{path} line {line}: benchmarks[{n}].pipeline: duplicate benchmark 'GATK 3.1.1 WGS' on amd-interlagos "
        "with ddn-sfa10k, 1 sample (also benchmarks[0])")
    assert not Benchmark.objects.exists()


def test_the_benchmark_file_refuses_a_key_given_twice(tmp_path: Path) -> None:
    from planner.hardware.perf_inputs import InputError, read_yaml

    path = tmp_path / "bench.yaml"
    path.write_text("nodes:\n  a: {cores: 4}\n  a: {cores: 8}\n")
    with pytest.raises(InputError, match=re.escape(f"{path}:3:3: YAML syntax error: duplicate key 'a' "
                                                   "(also on line 2)")):
        read_yaml(path)
    path.write_bytes("nodes:\n  caf\u00e9: {cores: 4}\n".encode("latin-1"))  # was Python's UnicodeDecodeError
    with pytest.raises(InputError, match=re.escape(f"{path} line 2: not UTF-8 text (byte 12)")):
        read_yaml(path)


def test_a_plan_with_a_field_given_twice_is_refused_by_the_command_and_the_upload_page(
        tmp_path: Path, planner_user: Any) -> None:
    text = PLAN.read_text().replace("department: ggs\n", "").replace(
        "  runs_per_week: 0.2\n", "  runs_per_week: 0.2\n  runs_per_week: 20\n", 1)
    first, again = _lines(text, "runs_per_week:")[:2]
    expected = (f"plan.yaml, line {again}, column 3: not valid YAML: duplicate key 'runs_per_week' "
                f"(also on line {first})")
    path = tmp_path / "plan.yaml"
    path.write_text(text)
    with pytest.raises(CommandError, match=re.escape(expected)):
        call_command("import_sequencer_plan", str(path))
    client = Client()
    client.force_login(planner_user)
    page = client.post("/forecasts/plans/", {"file": _file(text, "plan.yaml")})
    assert page.status_code == 200 and expected.replace("'", "&#x27;") in page.content.decode()
    assert not SequencerPlan.objects.exists()


def test_a_scenario_with_a_key_given_twice_is_refused_on_the_page_and_by_the_command(
        tmp_path: Path, planner_user: Any) -> None:
    text = (ROOT / "fixtures" / "scenarios" / "minerva_narrow_flash.yaml").read_text()
    text = re.sub(r"^name: (.*)$", r"name: \1\nname: again", text, count=1, flags=re.M)
    first, again = _lines(text, "name:")[:2]
    client = Client()
    client.force_login(planner_user)
    page = client.post("/designs/new/", {"scenario": "", "action": "check", "file": _file(text, "s.yaml")})
    assert (f"s.yaml, line {again}, column 1: not valid YAML: duplicate key &#x27;name&#x27; "
            f"(also on line {first})") in page.content.decode()
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(CommandError, match=re.escape(f"{path}:{again}:1: YAML syntax error: duplicate key 'name'")):
        call_command("evaluate_design", str(path))


def test_a_group_mapping_file_with_a_key_given_twice_is_refused(admin_user: Any) -> None:
    client = Client()
    client.force_login(admin_user)
    text = "mappings:\n  - group: hpc\n    role: admin\n    role: planner\n"
    page = client.post("/access/mappings/", {"file": _file(text, "groups.yaml")}, follow=True)
    assert ("groups.yaml, line 4, column 5: not valid YAML: duplicate key &#x27;role&#x27; (also on line 3)"
            in page.content.decode())
