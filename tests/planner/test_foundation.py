"""The product as a whole: login everywhere, roles, health, API schema, static Plotly, worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from tests.helpers import login, wait_for_job

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db


def test_every_page_but_login_and_healthz_requires_login(client: Any) -> None:
    for url in ["/", "/usage/", "/forecasts/", "/chargeback/", "/jobs/1/"]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/")
    assert client.get("/accounts/login/").status_code == 200
    assert client.get("/healthz").status_code in (200, 503)


def test_the_api_refuses_anonymous_callers(client: Any) -> None:
    assert client.get("/api/v1/departments/").status_code in (401, 403)
    assert client.get("/api/v1/me/").status_code in (401, 403)


def test_dashboard_names_the_institution_and_every_area_for_a_planner(client: Any, planner_user: Any,
                                                                     departments: Any) -> None:
    html = login(client, planner_user).get("/").content.decode()
    assert "Test Institute of Genomics" in html
    for label in ["Usage", "Forecasts", "Hardware", "Designs", "Reports", "Chargeback"]:
        assert f">{label}</a>" in html


def test_each_empty_area_says_what_to_load_and_how(client: Any, admin_user: Any) -> None:
    login(client, admin_user)
    for slug in ["usage", "forecasts", "hardware", "designs", "reports", "chargeback"]:
        response = client.get(f"/{slug}/")
        assert response.status_code == 200, slug
        assert "python manage.py" in response.content.decode(), slug


def test_a_department_viewer_sees_only_their_department(client: Any, genomics_viewer: Any,
                                                        chemistry_viewer: Any) -> None:
    html = login(client, genomics_viewer).get("/").content.decode()
    assert "Genetics and Genomic Sciences" in html
    assert "Structural and Chemical Biology" not in html
    names = [d["name"] for d in client.get("/api/v1/departments/").json()["results"]]
    assert names == ["Genetics and Genomic Sciences"]
    other = client.get("/api/v1/departments/").json()["results"][0]["id"]
    chem_id = genomics_viewer.viewable_departments.model.objects.get(code="scb").id
    assert other != chem_id
    assert client.get(f"/api/v1/departments/{chem_id}/").status_code == 404


def test_a_department_viewer_cannot_open_planner_areas(client: Any, genomics_viewer: Any) -> None:
    login(client, genomics_viewer)
    for slug in ["forecasts", "hardware", "designs", "reports"]:
        assert client.get(f"/{slug}/").status_code == 403, slug
    assert client.get("/usage/").status_code == 200
    assert client.get("/chargeback/").status_code == 200


def test_token_authentication_works_for_scripts(client: Any, planner_user: Any, departments: Any) -> None:
    token = Token.objects.create(user=planner_user)
    response = client.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 200
    assert response.json()["role"] == "planner"
    assert len(response.json()["departments"]) == 2


def test_openapi_schema_and_browsable_docs(client: Any, planner_user: Any) -> None:
    login(client, planner_user)
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert "/api/v1/departments/" in schema.content.decode()
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200
    assert "swagger" in docs.content.decode().lower()


def test_healthz_reports_database_and_broker(client: Any) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_connections_run_without_postgresqls_jit() -> None:
    """PostgreSQL's JIT compiled the ingest's batch statement for 2.5 s per batch of a few dozen jobs
    (docs/performance.md, "PostgreSQL's JIT"): every connection the product opens turns it off."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def test_healthz_is_503_when_the_broker_does_not_answer(client: Any, monkeypatch: Any) -> None:
    # Celery's broker_url reads this variable before its own conf, so setting it is enough
    # (and monkeypatch restores it): nothing listens on port 1.
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:1/0")
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "ok"
    assert response.json()["broker"] != "ok"


def test_plotly_is_served_from_the_installed_package_not_a_cdn() -> None:
    found = finders.find("plotly/plotly.min.js")
    assert found and Path(found).stat().st_size > 1_000_000
    for template in (ROOT / "templates").rglob("*.html"):
        assert "cdn." not in template.read_text(), template


def test_no_model_change_lacks_a_migration() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_check_deploy_is_clean_under_production_settings() -> None:
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "x" * 64 + "-production-like-secret-for-the-check",
        "ALLOWED_HOSTS": "planner.example.org",
        "SECURE_SSL_REDIRECT": "1",
        "SECURE_HSTS_SECONDS": "31536000",
        "STATIC_MANIFEST": "1",
        "SECURE_HSTS_PRELOAD": "1",
    }
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.worker
def test_a_real_worker_runs_background_jobs(live_worker: Any, planner_user: Any) -> None:
    from planner.jobs.services import job_start
    from planner.tasks import selftest

    job = job_start(kind="selftest", label="worker self-test", task=selftest, user=planner_user)
    finished = wait_for_job(job.pk, timeout_s=30)
    assert finished.status == "succeeded"
    assert finished.result == {"worker": "ok"}


def _compose_command() -> list[str] | None:
    import shutil

    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"],
                                                 capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


def test_the_production_compose_file_is_valid() -> None:
    compose = _compose_command()
    if compose is None:
        pytest.skip("neither `docker compose` nor `docker-compose` is installed to validate docker/compose.yml")
    result = subprocess.run([*compose, "-f", "docker/compose.yml", "config"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for service in ["postgres", "redis", "web", "worker", "beat"]:
        assert f"  {service}:" in result.stdout
