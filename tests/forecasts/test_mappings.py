"""Identity mappings: CSV import with errors by line, the Unassigned list, re-attribution without re-reading logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tests.forecasts.usage_data import GENOMICS_CORE_HOURS, UNASSIGNED_CORE_HOURS, figure_totals, load_usage
from tests.helpers import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def usage(tmp_path: Path, departments: dict[str, Any]) -> Any:
    return load_usage(tmp_path, departments)


def _department_totals(client: Any) -> dict[str, float]:
    return figure_totals(client.get(reverse("usage")).context["figure"])


def test_a_mappings_csv_loads_good_rows_and_reports_the_bad_line(client: Any, admin_user: Any, usage: Any) -> None:
    from forecasts.models import IdentityMapping

    login(client, admin_user)
    text = ("kind,name,department,project,valid_from,valid_to\n"
            "user,nobody,ggs,,2024-01-01,\n"
            "colour,blue,ggs,,,\n"
            "account,md-membrane,scb,,,\n")
    response = client.post(reverse("usage-mappings"),
                           {"file": SimpleUploadedFile("people.csv", text.encode(), "text/csv")})
    assert response.status_code == 200
    result = response.context["result"]
    assert (result.read, result.created, result.updated, result.rejected) == (3, 2, 0, 1)
    page = response.content.decode()
    assert "people.csv, line 3" in page and "colour" in page
    assert IdentityMapping.objects.filter(kind="user", name="nobody").exists()
    # nobody's February usage now counts for genomics
    assert _department_totals(client)["Genetics and Genomic Sciences"] == GENOMICS_CORE_HOURS + UNASSIGNED_CORE_HOURS
    assert "Unassigned" not in _department_totals(client)


def test_a_csv_without_the_header_is_refused_with_the_expected_columns(client: Any, admin_user: Any) -> None:
    login(client, admin_user)
    response = client.post(reverse("usage-mappings"), {"file": SimpleUploadedFile("x.csv", b"a,b\n1,2\n")})
    assert "kind, name, department, project, valid_from, valid_to" in response.content.decode()


def test_mapping_an_unassigned_identity_moves_its_core_hours(client: Any, admin_user: Any, usage: Any,
                                                             departments: dict[str, Any]) -> None:
    from forecasts.models import Identity

    login(client, admin_user)
    assert _department_totals(client)["Unassigned"] == UNASSIGNED_CORE_HOURS
    page = client.get(reverse("usage-unassigned"))
    rows = list(page.context["rows"])
    assert [(r["identity__user"], r["jobs"], r["core_hours"]) for r in rows] == [("nobody", 1, 20.0)]
    assert "Feb 2024" in page.content.decode()

    nobody = Identity.objects.get(user="nobody")
    response = client.post(reverse("usage-unassigned-map"), {
        "identity": nobody.pk, "kind": "account", "department": departments["genomics"].pk, "project": ""})
    assert response.status_code == 302
    totals = _department_totals(client)
    assert "Unassigned" not in totals
    assert totals["Genetics and Genomic Sciences"] == GENOMICS_CORE_HOURS + UNASSIGNED_CORE_HOURS
    assert "Nothing unassigned" in client.get(reverse("usage-unassigned")).content.decode()


def test_an_admin_edit_of_a_mapping_reattributes_at_once(client: Any, admin_user: Any, usage: Any,
                                                         departments: dict[str, Any]) -> None:
    from forecasts.models import IdentityMapping

    login(client, admin_user)
    mapping = IdentityMapping.objects.get(kind="group", name="ggs")
    url = reverse("admin:forecasts_identitymapping_change", args=[mapping.pk])
    response = client.post(url, {"kind": "group", "name": "ggs", "department": departments["chemistry"].pk,
                                 "project": "", "valid_from": "1970-01-01", "valid_to": "", "note": "moved"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert "Genetics and Genomic Sciences" not in _department_totals(client)


def test_department_viewers_do_not_manage_mappings(client: Any, genomics_viewer: Any) -> None:
    login(client, genomics_viewer)
    assert client.get(reverse("usage-mappings")).status_code == 403
    assert client.get(reverse("usage-unassigned")).status_code == 403
    assert client.post(reverse("usage-unassigned-map"), {}).status_code == 403


def test_a_planner_maps_an_unassigned_identity_and_the_ingest_run_says_how_much_was_unassigned(
        client: Any, planner_user: Any, usage: Any, departments: dict[str, Any]) -> None:
    from forecasts.models import Identity

    login(client, planner_user)
    run_page = client.get(reverse("ingest-run", args=[usage.pk])).content.decode()
    assert "landed in <em>Unassigned</em>" in run_page and reverse("usage-unassigned") in run_page
    assert client.get(reverse("usage-mappings")).status_code == 200
    nobody = Identity.objects.get(user="nobody")
    response = client.post(reverse("usage-unassigned-map"), {
        "identity": nobody.pk, "kind": "user", "department": departments["genomics"].pk, "project": ""})
    assert response.status_code == 302
    assert "Unassigned" not in _department_totals(client)
    page = client.get(reverse("ingest-run", args=[usage.pk])).content.decode()
    assert "nothing landed in <em>Unassigned</em>" in page
