"""The design pages as a director reads them: a bad scenario upload comes back as the form with one line
naming the file and the reason (never a 500, nothing stored); statuses and constraints in words."""

from __future__ import annotations

import io
from typing import Any

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from planner.designs.models import Design, OptimizerRun
from tests.helpers import login
from tests.planner.test_uncertainty_pages import SMALL as UNCERTAIN
from tests.planner.test_uncertainty_pages import _design as _uncertain_design
from tests.planner.test_uncertainty_pages import catalog  # noqa: F401 - the fixture every test here uses

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("catalog")]

# the uncertainty pages' two-year design, asked to stop within 0.5 % (a status "within the requested gap")
SMALL = UNCERTAIN | {"name": "Two years, two guesses", "optimize": UNCERTAIN["optimize"] | {"mip_rel_gap": 0.005},
                     "uncertainty": UNCERTAIN["uncertainty"] | {"paths": 200}}


def _design(**extra: Any) -> Design:
    return _uncertain_design(SMALL, **extra)


def _errors(html: str) -> list[str]:
    block = html.split('id="scenario-errors"')[1].split("</div>")[0]
    return [li.split("</li>")[0] for li in block.split("<li>")[1:]]


@pytest.mark.parametrize(("name", "data", "message"), [
    ("garbage.bin", b"\x89PNG\r\n\x1a\n\xff\xfe\xfd binary", "garbage.bin line 1: not UTF-8 text (byte 0)"),
    ("latin1.yaml", b"name: x\ndescription: caf\xe9\n", "latin1.yaml line 2: not UTF-8 text (byte 24)"),
    ("nul.yaml", b"name: x\nhorizon: \x00\x01\n", "nul.yaml line 2: a NUL byte (a binary or damaged file"),
    ("broken.yaml", b"name: x\nhorizon: {start_year: 2015\npurchases: []\n",
     "broken.yaml, line 3, column 10: not valid YAML: expected &#x27;,&#x27; or &#x27;}&#x27;"),
    ("list.yaml", b"- 1\n- 2\n", "list.yaml: not a scenario: expected a mapping of name, horizon"),
    ("words.txt", b"just some words\n", "words.txt: not a scenario: expected a mapping"),
    ("empty.yaml", b"", "empty.yaml: the file is empty"),
    ("comments.yaml", b"# nothing here\n", "comments.yaml: the file holds no scenario"),
    ("huge.yaml", b"#" * (1024 * 1024 + 1), "huge.yaml: 1.0 MB is too large for a scenario (at most 1 MB"),
])
@pytest.mark.parametrize("url", ["/designs/new/", "edit"])
def test_a_bad_scenario_upload_comes_back_as_the_form_with_one_line_naming_the_file(
        client: Any, planner_user: Any, name: str, data: bytes, message: str, url: str) -> None:
    login(client, planner_user)
    if url == "edit":  # an existing design's editor: the same, and no new version
        design = Design.objects.create(name="kept", scenario_yaml="name: kept\n", scenario={"name": "kept"})
        url = f"/designs/{design.pk}/edit/"
    before = Design.objects.count()
    for action in ("evaluate", "check"):
        response = client.post(url, {"scenario": "", "action": action, "file": SimpleUploadedFile(name, data)})
        assert response.status_code == 200
        errors = _errors(response.content.decode())
        assert len(errors) == 1 and errors[0].startswith(message) and "\n" not in errors[0]
    assert Design.objects.count() == before


def test_a_good_upload_is_saved_and_its_field_errors_name_the_file(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    bad = yaml.safe_dump(SMALL | {"purchases": [{"year": 2015, "node_type": "skylake", "count": 1}]}).encode()
    html = client.post("/designs/new/", {"action": "evaluate", "file": SimpleUploadedFile("s.yaml", bad)})
    assert "s.yaml: purchases[0].node_type: unknown node type" in html.content.decode()
    assert not Design.objects.exists()
    good = io.BytesIO(b"\xef\xbb\xbf" + yaml.safe_dump(SMALL).encode())  # a byte-order mark is fine
    good.name = "s.yaml"
    response = client.post("/designs/new/", {"action": "evaluate", "file": good})
    made = Design.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/designs/{made.pk}/"


def test_the_chance_table_heads_its_columns_with_names_and_units(client: Any, planner_user: Any) -> None:
    design = _design()
    html = login(client, planner_user).get(f"/designs/{design.pk}/").content.decode()
    head = html.split('id="chance-table"')[1].split("</thead>")[0]
    assert '>Core-hours</th>' in head and '>Storage (TB)</th>' in head
    assert ">core_hours<" not in head and ">storage_tb<" not in head
    api = client.get(f"/api/v1/designs/{design.pk}/chance/").json()
    assert api["labels"] == {"core_hours": "Core-hours", "storage_tb": "Storage (TB)"}


def test_a_run_reads_as_words_on_its_page_the_design_page_and_the_api(client: Any, planner_user: Any) -> None:
    design = _design()
    result = {"status": "gap", "mip_gap": 0.0046, "npv_usd": 1.0e6, "purchases": [], "message": "HiGHS: ok",
              "solve_seconds": 1.0, "n_variables": 1, "n_constraints": 1}
    within = OptimizerRun.objects.create(design=design, status="gap", result=result)
    stopped = OptimizerRun.objects.create(design=design, status="gap", result=result | {"mip_gap": 0.02})
    none = OptimizerRun.objects.create(design=design, status="infeasible",
                                       result={"status": "infeasible", "message": "infeasible: x",
                                               "shortfalls": [{"constraint": "storage_tb", "year": 2016,
                                                               "required": 900, "shortfall": 12.5, "unit": "TB"}]})
    login(client, planner_user)
    head = client.get(f"/designs/runs/{within.pk}/").content.decode().split('id="run-status"')[0:2]
    assert "Within 0.46% of the cheapest possible plan<" in head[1] and 'class="ok"' in head[0][-40:]
    page = client.get(f"/designs/runs/{stopped.pk}/").content.decode()
    assert 'class="warn" id="run-status"' in page and "Within 2.00% of the cheapest possible plan (stopped at" in page
    page = client.get(f"/designs/runs/{none.pk}/").content.decode()
    assert 'class="error" id="run-status"' in page and "Infeasible: no plan meets every constraint" in page
    assert "<td>Storage (TB)</td>" in page and "Lower the demand for Storage (TB) in 2016 by 12.5 TB" in page
    assert ">Gap<" not in page and ">gap<" not in page
    runs = client.get(f"/designs/{design.pk}/").content.decode().split("<h2>Optimiser runs</h2>")[1]
    assert "Within 0.46% of the cheapest possible plan" in runs and ">gap<" not in runs
    api = client.get(f"/api/v1/optimizer-runs/{within.pk}/").json()
    assert api["status"] == "gap" and api["status_label"] == "Within 0.46% of the cheapest possible plan"


def test_the_comparison_names_the_constraints_a_design_falls_short_on(client: Any, planner_user: Any) -> None:
    short = _design(name="Too small", purchases=[{"year": 2015, "node_type": "haswell", "count": 1},
                                                 {"year": 2015, "storage_system": "ibm-gss26", "count": 1}])
    other = _design()
    html = login(client, planner_user).get(f"/designs/compare/?ids={short.pk}&ids={other.pk}").content.decode()
    table = html.split('id="compare-table"')[1].split("</table>")[0]
    assert "Core-hours short by" in table and "core_hours −" not in table and "None" not in table
