"""Shared fixtures: personas who encode who may see what, a real Celery worker, a real browser.

Personas: ``admin_user`` (everything), ``planner_user`` (all usage, forecasts, designs,
reports), ``finance_user`` (usage and chargeback of every department, the audit trail),
``genomics_viewer`` and ``chemistry_viewer`` (department viewers of two different departments).
Tests log in as a persona and try the product from outside.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")


def pytest_configure(config: Any) -> None:
    """A test database of this run's own, so concurrent runs on one server never collide."""
    from django.conf import settings

    name = settings.DATABASES["default"]["NAME"]
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_{name}_{os.getpid()}"
    # ... and a task queue of its own, so a `make run` worker never takes a test's task
    from planner.celery import app

    app.conf.task_default_queue = f"test-{os.getpid()}"
    # ... and report files of its own: report ids restart in every test database, so files under the data
    # folder's reports/<id>/ overwrote `make run`'s demo report and the other worker's reports
    settings.REPORTS_DIR = Path(tempfile.mkdtemp(prefix=f"planner-test-reports-{os.getpid()}-"))


def pytest_unconfigure(config: Any) -> None:
    from django.conf import settings

    reports = Path(settings.REPORTS_DIR)
    if reports.name.startswith("planner-test-reports-"):
        shutil.rmtree(reports, ignore_errors=True)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture
def departments(db: Any) -> dict[str, Any]:
    from forecasts.models import Department, Institution

    Institution.objects.get_or_create(pk=1, defaults={"name": "Test Institute of Genomics"})
    genomics, _ = Department.objects.get_or_create(code="ggs", name="Genetics and Genomic Sciences")
    chemistry, _ = Department.objects.get_or_create(code="scb", name="Structural and Chemical Biology")
    return {"genomics": genomics, "chemistry": chemistry}


def _make_user(username: str, group: str | None, *, superuser: bool = False) -> Any:
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(username=username, password="pw-" + username, is_superuser=superuser,
                                    is_staff=superuser)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])  # flushed by transactional tests
    return user


@pytest.fixture
def admin_user(db: Any) -> Any:
    return _make_user("root-admin", "admin", superuser=True)


@pytest.fixture
def planner_user(db: Any) -> Any:
    return _make_user("pat-planner", "planner")


@pytest.fixture
def finance_user(db: Any) -> Any:
    return _make_user("fay-finance", "finance")


@pytest.fixture
def genomics_viewer(departments: dict[str, Any]) -> Any:
    user = _make_user("gina-genomics", "department viewer")
    departments["genomics"].viewers.add(user)
    return user


@pytest.fixture
def chemistry_viewer(departments: dict[str, Any]) -> Any:
    user = _make_user("chris-chemistry", "department viewer")
    departments["chemistry"].viewers.add(user)
    return user


@pytest.fixture(scope="session")
def celery_test_queue() -> str:
    """A queue of this test session's own, so no other worker (e.g. `make run`'s) takes its tasks."""
    from planner.celery import app

    return app.conf.task_default_queue  # set per run in pytest_configure


@pytest.fixture
def live_worker(transactional_db: Any, celery_test_queue: str) -> Iterator[Any]:
    """A real Celery worker (same broker as production: Redis in CI, filesystem locally) in a thread."""
    from celery.contrib.testing.worker import start_worker

    from planner.celery import app

    with start_worker(app, queues=[celery_test_queue], perform_ping_check=False, pool="solo",
                      loglevel="WARNING", shutdown_timeout=30) as worker:
        yield worker


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright; the test is skipped with a reason when absent."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        pytest.skip("playwright is not installed")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's loop vs the ORM in tests
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page_as(browser: Any, live_server: Any) -> Iterator[Any]:
    """``page_as(user)`` returns a logged-in page on the live server (session cookie injected)."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    contexts = []

    def open_as(user: Any) -> Any:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.save()
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session.session_key,
                              "url": live_server.url}])
        contexts.append(context)
        return context.new_page()

    yield open_as
    for context in contexts:
        context.close()


@pytest.fixture(scope="module")
def world(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any) -> Iterator[Any]:
    """The site with one row of every kind (tests/planner/access/world.py), built once per module
    inside a transaction rolled back at its end, so other test modules never see it."""
    from django.db import transaction

    from tests.planner.access.world import build_world

    tmp: Path = tmp_path_factory.mktemp("world")
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            yield build_world(tmp)
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
