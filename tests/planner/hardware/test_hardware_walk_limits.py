"""QA walk of the catalog's input: impossible machines are refused in the form, the CSV import and the API."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from planner.hardware.catalog import NODE_POSITIVE, STORAGE_POSITIVE, number_problems
from planner.hardware.models import NodeType, StorageSystem
from planner.hardware.services import CatalogImportError, catalog_export_csv, catalog_import_csv, catalog_load_yaml
from tests.helpers import login

IVY = {"name": "ivy-2", "cpu_model": "Xeon E5-2643 v2", "sockets": 2, "cores_per_node": 12, "base_clock_ghz": 3.5,
       "all_core_clock_ghz": 3.6, "arch_factor": 1.0, "memory_gb": 64, "local_flash_tb": 0, "gpus": 0,
       "price_usd": 6404, "power_w": 300, "rack_units": 0.5, "support_pct_per_year": 5, "lifetime_years": 5,
       "first_year": 2013, "last_year": 2015, "flops_per_cycle_per_core": 8, "source": "", "assumptions": "",
       "price_source": "", "price_date": ""}

# name, kind, raw, usable, price, power, GB/s, IOPS, fullness, efficiency, 3 ceilings, support, lifetime, years, texts
BAD_STORE = "bad-st,disk,100,200,1000,10,1,10,0.8,,,,,8,5,2010,,,,,"
NODE_CASES = [
    ({"first_year": 2015, "last_year": 2010}, "last_year",
     "Last year sold (2010) must not be before the first year sold (2015)"),
    ({"base_clock_ghz": 500}, "base_clock_ghz", "Base clock (GHz) must be between 0.5 and 10, got 500"),
    ({"cores_per_node": 1_000_000}, "cores_per_node", "Cores per node must be at most 1,024, got 1,000,000"),
    ({"price_usd": 1e20}, "price_usd", "Price (USD) must be at most 10,000,000, got 1e+20"),
]


@pytest.mark.parametrize(("change", "field", "message"), NODE_CASES)
def test_the_core_rule_refuses_impossible_node_types(change: dict[str, Any], field: str, message: str) -> None:
    assert number_problems(IVY | change, NODE_POSITIVE) == {field: message}


def test_the_core_rule_refuses_usable_over_raw_and_accepts_the_shipped_catalog() -> None:
    store = {"raw_tb": 100, "usable_tb": 200, "price_usd": 1000, "throughput_gbps": 1, "metadata_iops": 10,
             "lifetime_years": 5, "power_w": 10}
    assert number_problems(store, STORAGE_POSITIVE) == {
        "usable_tb": "Usable capacity (200 TB) must not exceed the raw capacity (100 TB)"}
    assert number_problems(store | {"usable_tb": 100}, STORAGE_POSITIVE) == {}
    assert number_problems(IVY, NODE_POSITIVE) == {}


@pytest.mark.django_db
@pytest.mark.parametrize(("change", "field", "message"), NODE_CASES)
def test_the_new_node_type_form_names_the_field_and_limit(client: Any, planner_user: Any, change: dict[str, Any],
                                                          field: str, message: str) -> None:
    catalog_load_yaml()
    form = {k: ("" if v is None else v) for k, v in (IVY | change).items()}
    response = login(client, planner_user).post("/hardware/node-types/new/", form)
    assert response.status_code == 200
    assert response.context["form"].errors[field] == [message]
    assert not NodeType.objects.filter(name="ivy-2").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("change", "field", "message"), NODE_CASES)
def test_the_api_refuses_impossible_node_types(client: Any, planner_user: Any, change: dict[str, Any], field: str,
                                               message: str) -> None:
    catalog_load_yaml()
    response = login(client, planner_user).post("/api/v1/node-types/", IVY | change, content_type="application/json")
    assert response.status_code == 400
    assert response.json()[field] == [message]


@pytest.mark.django_db
@pytest.mark.parametrize(("column", "old", "new", "message"), [
    ("base_clock_ghz", ",3.5,3.6,", ",500,3.6,", "Base clock (GHz) must be between 0.5 and 10, got 500"),
    ("last_year", ",2013,8,2015,", ",2013,8,2010,",
     "Last year sold (2010) must not be before the first year sold (2013)"),
])
def test_the_node_csv_import_names_file_line_field_and_limit(column: str, old: str, new: str, message: str) -> None:
    catalog_load_yaml()
    text = catalog_export_csv("node_types")
    ivy_line = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("ivy-bridge,"))
    assert old in text.splitlines()[ivy_line - 1]
    bad = "\n".join(line.replace(old, new) if i == ivy_line else line
                    for i, line in enumerate(text.splitlines(), 1))
    with pytest.raises(CatalogImportError) as exc:
        catalog_import_csv(bad, filename="nodes.csv")
    assert str(exc.value) == f"nodes.csv line {ivy_line}, field {column}: {message}"
    assert NodeType.objects.get(name="ivy-bridge").base_clock_ghz == 3.5


@pytest.mark.django_db
def test_the_storage_csv_import_refuses_usable_over_raw_on_the_page(client: Any, planner_user: Any) -> None:
    catalog_load_yaml()
    header = catalog_export_csv("storage_systems").splitlines()[0]
    upload = SimpleUploadedFile("bad_st.csv", f"{header}\n{BAD_STORE}\n".encode())
    page = login(client, planner_user).post("/hardware/import/", {"file": upload}, follow=True).content.decode()
    assert ("bad_st.csv line 2, field usable_tb: Usable capacity (200 TB) must not exceed the raw capacity (100 TB)"
            in page)
    assert not StorageSystem.objects.filter(name="bad-st").exists()
