"""QA walk of a new site's catalog import with mistakes in it: each bad file is one line naming the file, the
line and the reason, through the command and the Hardware page, and nothing of it is stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from planner.hardware.models import NodeType
from planner.hardware.services import catalog_export_csv, catalog_load_yaml
from tests.helpers import login

pytestmark = pytest.mark.django_db

EPYC = "epyc-9554,AMD EPYC 9554,2,128,3.1,3.5,1.3,768,3.8,0,14200,720,1,5,5,2023,16,,site quote,assumed,quote,2024"
XEON = "xeon-8480,Intel Xeon 8480+,2,112,2.0,3.0,1.2,512,1.9,0,16800,800,1,5,5,2023,32,,site quote,assumed,quote,2024"
EPYC_AGAIN = "epyc-9554,AMD EPYC 9554 (typo),2,64,3.1,3.5,1.3,768,3.8,0,9000,720,1,5,5,2023,16,,x,y,z,2024"


def _header() -> str:
    return catalog_export_csv("node_types").splitlines()[0]


def _import(path: Path) -> str:
    with pytest.raises(CommandError) as err:
        call_command("import_catalog", str(path))
    return str(err.value)


def test_a_name_twice_in_one_csv_is_refused_with_both_lines_and_stores_nothing(tmp_path: Path) -> None:
    catalog_load_yaml()
    path = tmp_path / "site_nodes.csv"
    path.write_text(f"{_header()}\n{EPYC}\n{XEON}\n{EPYC_AGAIN}\n")
    said = _import(path)
    # Before: the file loaded, the second epyc-9554 row (64 cores, $9,000) silently replacing the first.
    assert said == ("site_nodes.csv line 4: duplicate node type 'epyc-9554' (also on line 2); "
                    "nothing was imported")
    assert not NodeType.objects.filter(name__in=["epyc-9554", "xeon-8480"]).exists()


def test_a_name_twice_on_the_page_is_the_same_line(client: Any, planner_user: Any) -> None:
    catalog_load_yaml()
    upload = SimpleUploadedFile("site_nodes.csv", f"{_header()}\n{EPYC}\n{EPYC_AGAIN}\n".encode())
    page = login(client, planner_user).post("/hardware/import/", {"file": upload}, follow=True).content.decode()
    assert "site_nodes.csv line 3: duplicate node type &#x27;epyc-9554&#x27; (also on line 2)" in page
    assert not NodeType.objects.filter(name="epyc-9554").exists()


def test_a_missing_column_is_named_not_an_unknown_kind_of_file(tmp_path: Path) -> None:
    catalog_load_yaml()
    columns = _header().split(",")
    drop = columns.index("cores_per_node")
    path = tmp_path / "no_cores.csv"
    path.write_text("\n".join(",".join(c for i, c in enumerate(line.split(",")) if i != drop)
                              for line in (_header(), EPYC)) + "\n")
    # Before: "CSV line 1: cannot tell node types, storage systems or benchmarks from the header", no file.
    assert _import(path) == "no_cores.csv line 1: missing column(s) cores_per_node"


def test_an_empty_csv_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "nothing.csv"
    path.write_text("")
    said = _import(path)
    assert said.startswith("nothing.csv line 1: the file is empty"), said


def test_a_latin1_csv_names_the_line_through_the_command_as_on_the_page(tmp_path: Path) -> None:
    catalog_load_yaml()
    path = tmp_path / "latin1.csv"
    path.write_bytes(f"{_header()}\n{XEON}\n".encode() + EPYC.replace("site quote", "devis Genève").encode("latin-1")
                     + b"\n")
    said = _import(path)
    # Before: UnicodeDecodeError escaped the service (the command's fallback named no line).
    assert said.startswith("latin1.csv line 3: not UTF-8 text"), said
    assert not NodeType.objects.filter(name__in=["epyc-9554", "xeon-8480"]).exists()


def test_a_unit_in_a_number_cell_names_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "ghz.csv"
    path.write_text(f"{_header()}\n{EPYC.replace(',3.1,3.5,', ',3.2GHz,3.5,')}\n")
    assert _import(path) == "ghz.csv line 2, field base_clock_ghz: expected a number, got '3.2GHz'"


def test_a_yaml_catalog_with_a_name_twice_is_refused(tmp_path: Path) -> None:
    item = SITE_NODE.split("\n", 1)[1].split("storage_systems")[0].replace("-14200", "14200")  # lines 2-18
    path = tmp_path / "site.yaml"
    path.write_text("node_types:\n" + item + item.replace("price_usd: 14200", "price_usd: 1") + "storage_systems: []\n")
    # Before: loaded, the second epyc-9554 ($1) silently replacing the first.
    assert _import(path) == (f"{path} line 19: node_types[1].name: duplicate node type 'epyc-9554' "
                             "(also node_types[0])")
    assert not NodeType.objects.exists()


def test_an_empty_or_latin1_yaml_catalog_is_one_line_with_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    # Before: the empty file loaded as nothing and the command said "ok".
    assert _import(empty) == (f"{empty} line 1: the file is empty: expected node_types, storage_systems and "
                              "benchmarks")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("node_types:\n  - {name: a-b, cpu_model: 'Genève'}\n".encode("latin-1"))
    assert _import(latin).startswith(f"{latin} line 2: not UTF-8 text"), _import(latin)


SITE_NODE = """node_types:
  - name: epyc-9554
    cpu_model: AMD EPYC 9554
    sockets: 2
    cores_per_node: 128
    base_clock_ghz: 3.1
    all_core_clock_ghz: 3.5
    arch_factor: 1.3
    memory_gb: 768
    price_usd: -14200
    power_w: 720
    lifetime_years: 5
    first_year: 2023
    local_flash_tb: 3.8
    gpus: 0
    rack_units: 1
    support_pct_per_year: 5
    flops_per_cycle_per_core: 16
storage_systems: []
"""


def test_a_yaml_field_error_names_the_line_of_the_field(tmp_path: Path) -> None:
    path = tmp_path / "site.yaml"
    path.write_text(SITE_NODE)
    # Before: "site.yaml: node_types[0].price_usd: must be > 0, got -14200", no line.
    assert _import(path) == f"{path} line 10: node_types[0].price_usd: must be > 0, got -14200"


def test_a_yaml_item_missing_fields_names_them_not_a_python_signature(tmp_path: Path) -> None:
    path = tmp_path / "site.yaml"
    path.write_text(SITE_NODE.replace("    cores_per_node: 128\n", "").replace("    gpus: 0\n", ""))
    # Before: "node_types[0]: NodeType.__init__() missing 2 required positional arguments: 'cores_per_node' ..."
    assert _import(path) == f"{path} line 2: node_types[0]: missing field(s) cores_per_node, gpus"
    assert not NodeType.objects.exists()


def test_a_negative_cpu_hours_in_a_benchmark_csv_is_refused(tmp_path: Path) -> None:
    from planner.hardware.models import Benchmark

    catalog_load_yaml()
    before = Benchmark.objects.count()
    header = catalog_export_csv("benchmarks").splitlines()[0]
    path = tmp_path / "runs.csv"
    path.write_text(f"{header}\nGATK 3.1.1 WGS,WGS,ivy-bridge,flash-gss,site run,2,1,2,-610,820,,,False,\n")
    # Before: stored, and the cost model used -610 CPU hours per genome.
    assert _import(path) == "runs.csv line 2, field cpu_hours_per_sample: must be > 0, got -610.0"
    assert Benchmark.objects.count() == before


def test_the_api_refuses_a_negative_cpu_hours_benchmark(client: Any, planner_user: Any) -> None:
    from planner.hardware.models import Benchmark

    catalog_load_yaml()
    before = Benchmark.objects.count()
    body = {"pipeline": "nf-core/sarek 3.4 30x WGS", "sample_type": "30x WGS", "node_type": "ivy-bridge",
            "storage_system": "flash-gss", "source": "site run", "samples": 1, "cpu_hours_per_sample": -610}
    resp = login(client, planner_user).post("/api/v1/benchmarks/", body, content_type="application/json")
    # Before: 201, and the run was priced at -610 CPU hours per genome.
    assert resp.status_code == 400
    assert resp.json() == {"cpu_hours_per_sample": ["must be > 0, got -610.0"]}
    assert Benchmark.objects.count() == before
