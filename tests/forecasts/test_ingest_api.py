"""The ingestion and usage API: upload, poll, rejections, and monthly usage scoped by role."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.forecasts.usage_data import CHEMISTRY_CORE_HOURS, GENOMICS_CORE_HOURS, load_usage

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "samples" / "slurm_sample.txt"


@pytest.fixture(autouse=True)
def upload_dir(settings: Any, tmp_path: Path) -> Path:
    settings.UPLOAD_DIR = tmp_path / "uploads"
    return settings.UPLOAD_DIR


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_upload_through_the_api_is_accepted_and_polled_to_completion(planner_user: Any,
                                                                        live_worker: Any) -> None:
    api = _api(planner_user)
    response = api.post("/api/v1/ingestions/", {
        "file": SimpleUploadedFile("slurm_sample.txt", SAMPLE.read_bytes()), "cluster": "minerva",
        "format": "detect"}, format="multipart")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["format"] == "slurm" and body["status_url"].endswith(f"/api/v1/ingestions/{body['run']}/")

    deadline = time.monotonic() + 60
    while True:
        status = api.get(body["status_url"]).json()
        if status["status"] in ("completed", "failed") or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert status["status"] == "completed", status
    assert (status["records_read"], status["jobs_ingested"], status["skipped"], status["rejected"]) == (15, 5, 8, 2)
    assert status["files"][0]["name"] == "slurm_sample.txt" and len(status["files"][0]["sha256"]) == 64
    assert status["progress"]["id"] == body["job"]
    assert status["progress"]["status"] in ("running", "succeeded")
    assert set(status["progress"]) >= {"done", "total", "rate_per_s", "eta_s"}
    assert status["page_url"].endswith(f"/usage/ingest/{body['run']}/")

    rejections = api.get(f"/api/v1/ingestions/{body['run']}/rejections/").json()
    assert rejections["count"] == 2
    assert {"file", "line", "reason", "raw"} <= set(rejections["results"][0])
    listing = api.get("/api/v1/ingestions/").json()
    assert [r["id"] for r in listing["results"]] == [body["run"]]


@pytest.mark.django_db
def test_api_uploads_are_checked(planner_user: Any, settings: Any) -> None:
    api = _api(planner_user)
    bad_cluster = api.post("/api/v1/ingestions/", {"file": SimpleUploadedFile("a.txt", SAMPLE.read_bytes()),
                                                   "cluster": "Big One"}, format="multipart")
    assert bad_cluster.status_code == 400 and "big-one" in bad_cluster.json()["cluster"][0]
    unknown = api.post("/api/v1/ingestions/", {"file": SimpleUploadedFile("a.txt", b"hello\n"),
                                               "cluster": "minerva"}, format="multipart")
    assert unknown.status_code == 400 and "could not be recognised" in unknown.json()["format"][0]
    # a wrong format or zone is named under its own field, with what would be accepted
    torque = api.post("/api/v1/ingestions/", {"file": SimpleUploadedFile("a.txt", SAMPLE.read_bytes()),
                                              "cluster": "minerva", "format": "torque"}, format="multipart")
    assert torque.status_code == 400 and "use one of: detect, " in torque.json()["format"][0]
    assert "pbs" in torque.json()["format"][0]
    zone = api.post("/api/v1/ingestions/", {"file": SimpleUploadedFile("a.txt", SAMPLE.read_bytes()),
                                            "cluster": "minerva", "format": "slurm", "timezone": "Mars/Olympus"},
                    format="multipart")
    assert zone.status_code == 400 and "'Mars/Olympus' is not a time zone" in zone.json()["timezone"][0]
    settings.UPLOAD_MAX_BYTES = 100
    big = api.post("/api/v1/ingestions/", {"file": SimpleUploadedFile("a.txt", SAMPLE.read_bytes()),
                                           "cluster": "minerva", "format": "slurm"}, format="multipart")
    assert big.status_code == 413 and "upload limit of 100 bytes" in big.json()["file"][0]


@pytest.mark.django_db
def test_ingestion_endpoints_are_for_planners_only(genomics_viewer: Any) -> None:
    api = _api(genomics_viewer)
    assert api.get("/api/v1/ingestions/").status_code == 403
    assert api.post("/api/v1/ingestions/", {"file": SimpleUploadedFile("a.txt", SAMPLE.read_bytes()),
                                            "cluster": "minerva"}, format="multipart").status_code == 403


@pytest.mark.django_db
def test_monthly_usage_is_scoped_to_the_callers_departments(tmp_path: Path, departments: dict[str, Any],
                                                            planner_user: Any, genomics_viewer: Any,
                                                            chemistry_viewer: Any) -> None:
    load_usage(tmp_path, departments)

    def totals(user: Any, **params: str) -> dict[str, float]:
        rows = _api(user).get("/api/v1/usage/monthly/", params).json()
        out: dict[str, float] = {}
        for r in rows:
            out[r["department"]] = out.get(r["department"], 0) + r["core_hours"]
        return out

    assert totals(planner_user) == {"ggs": GENOMICS_CORE_HOURS, "scb": CHEMISTRY_CORE_HOURS, "unassigned": 20.0}
    assert totals(genomics_viewer) == {"ggs": GENOMICS_CORE_HOURS}
    assert totals(chemistry_viewer) == {"scb": CHEMISTRY_CORE_HOURS}
    assert totals(genomics_viewer, department="scb") == {}
    assert totals(chemistry_viewer, department="ggs", cluster="minerva") == {}
    rows = _api(planner_user).get("/api/v1/usage/monthly/", {"start": "2024-02", "queue": "express"}).json()
    assert [(r["month"], r["department"], r["core_hours"], r["jobs"], r["users"]) for r in rows] == [
        ("2024-02", "ggs", 8.0, 1, 1), ("2024-02", "unassigned", 20.0, 1, 1)]
