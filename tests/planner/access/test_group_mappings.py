"""Groups to roles and departments, applied at every sign-on; the pages that show and import them."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from planner.access.services import access_apply, mappings_import
from planner.roles import role_of, visible_department_ids
from tests.helpers import login

pytestmark = pytest.mark.django_db

MAPPINGS = """mappings:
  - {group: hpc-admins, role: admin}
  - {group: hpc-planners, role: planner}
  - {group: research-finance, role: finance}
  - {group: genomics-pis, role: department viewer, departments: [ggs]}
"""


@pytest.fixture
def mapped(departments: Any) -> dict[str, Any]:
    mappings_import(text=MAPPINGS, filename="m.yaml")
    return departments


def test_each_sign_on_gives_exactly_what_the_groups_map_to_now(mapped: Any) -> None:
    user = User.objects.create_user("sam")
    access_apply(user=user, source="oidc", groups=["genomics-pis", "staff"])
    assert role_of(user) == "department viewer" and visible_department_ids(user) == {mapped["genomics"].pk}
    access_apply(user=user, source="oidc", groups=["hpc-admins"])
    user.refresh_from_db()
    assert role_of(user) == "admin" and user.is_superuser and user.is_staff
    assert not user.viewable_departments.exists()
    access_apply(user=user, source="oidc", groups=["staff"])  # removed from every mapped group
    user.refresh_from_db()
    assert role_of(user) is None and not user.is_superuser and not user.is_staff
    assert visible_department_ids(user) == set()


def test_finance_sees_every_departments_chargeback_but_no_planning_area(mapped: Any) -> None:
    user = User.objects.create_user("fin")
    access_apply(user=user, source="ldap", groups=["research-finance"])
    client = login(Client(), user)
    assert visible_department_ids(user) is None
    assert client.get("/chargeback/").status_code == 200 and client.get("/audit/").status_code == 200
    assert client.get("/designs/").status_code == 403 and client.get("/access/").status_code == 403


def test_the_effective_access_page_says_why(mapped: Any, admin_user: Any) -> None:
    user = User.objects.create_user("sam")
    access_apply(user=user, source="oidc", groups=["genomics-pis", "staff"])
    page = login(Client(), admin_user).get("/access/").content.decode()
    assert "sam" in page and "OpenID Connect sign-on" in page
    assert "group &#x27;genomics-pis&#x27; (any) -&gt; department viewer of ggs" in page
    assert "Genetics and Genomic Sciences" in page and "superuser flag set in the admin" in page  # the local admin
    mine = login(Client(), user).get("/access/profile/").content.decode()
    assert "department viewer" in mine and "Genetics and Genomic Sciences" in mine


def test_the_import_page_replaces_mappings_and_names_a_bad_line(mapped: Any, admin_user: Any) -> None:
    client = login(Client(), admin_user)
    bad = io.BytesIO(b"group,role,departments\nchem-pis,department viewer,nope\n")
    bad.name = "groups.csv"
    page = client.post("/access/mappings/", {"file": bad}, follow=True).content.decode()
    assert "groups.csv: unknown department codes: nope" in page
    good = io.BytesIO(b"group,role,departments\nchem-pis,department viewer,scb\n")
    good.name = "groups.csv"
    page = client.post("/access/mappings/", {"file": good, "replace": "on"}, follow=True).content.decode()
    assert "1 mappings created, 0 changed, 4 removed" in page and "<code>chem-pis</code>" in page
    assert "<code>hpc-admins</code>" not in page


def test_a_local_account_is_not_taken_over_by_a_sign_on_of_the_same_name(planner_user: Any) -> None:
    from planner.access.backends import OIDCBackend

    backend = OIDCBackend.__new__(OIDCBackend)  # no provider needed to decide this
    assert backend.update_user(planner_user, {"preferred_username": "pat-planner", "groups": ["hpc-admins"]}) is None
    planner_user.refresh_from_db()
    assert role_of(planner_user) == "planner" and not planner_user.is_superuser


def test_the_import_command_loads_a_file_and_refuses_a_bad_one_in_one_line(departments: Any, tmp_path: Any) -> None:
    from django.core.management import CommandError, call_command

    good = tmp_path / "groups.yaml"
    good.write_text(MAPPINGS)
    out = io.StringIO()
    call_command("import_group_mappings", str(good), stdout=out)
    assert out.getvalue().strip() == "groups.yaml: 4 created, 0 changed, 0 removed"
    bad = tmp_path / "bad.csv"
    bad.write_text("group,role\nhpc,root\n")
    with pytest.raises(CommandError, match=r"^bad.csv: line 2: role 'root' is not one of"):
        call_command("import_group_mappings", str(bad))
    latin = tmp_path / "latin.csv"  # was "cannot read ('utf-8' codec can't decode byte 0xe9 in position 22: ...)"
    latin.write_bytes("group,role\nhpc,admin\ngénomique,planner\n".encode("latin-1"))
    with pytest.raises(CommandError, match=r"^latin.csv line 3: not UTF-8 text \(byte 22\)"):
        call_command("import_group_mappings", str(latin))
