"""Helpers the tests call: log in a persona, wait for a background job, save a screenshot."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

SCREENSHOTS = Path(__file__).resolve().parent.parent / "screenshots"


def login(client: Any, user: Any) -> Any:
    client.force_login(user)
    return client


def wait_for_job(job_id: int, timeout_s: float = 60) -> Any:
    """Poll a BackgroundJob until it finishes; fails the test on timeout."""
    from planner.models import BackgroundJob

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = BackgroundJob.objects.get(pk=job_id)
        if job.status in (BackgroundJob.Status.SUCCEEDED, BackgroundJob.Status.FAILED):
            return job
        time.sleep(0.1)
    raise AssertionError(f"background job {job_id} did not finish in {timeout_s} s")


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under screenshots/ for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def database_url_of_test_db() -> str:
    """DATABASE_URL of the test database, for subprocesses (commands killed mid-run and the like)."""
    from urllib.parse import urlsplit, urlunsplit

    from django.conf import settings
    from django.db import connection

    parts = urlsplit(settings.DATABASE_URL)
    return urlunsplit(parts._replace(path="/" + connection.settings_dict["NAME"]))


def watch_progress(page: Any, *, until_path: str, rate_unit: str, screenshot_name: str) -> tuple[list[float], bool]:
    """Follow a job page's progress bar until the browser leaves for ``until_path``.

    Returns the bar widths seen and whether the rate line ever showed ``<rate_unit>/s``
    (a screenshot is taken the first time it does).
    """
    widths: list[float] = []
    seen_rate = False
    for _ in range(300):
        if until_path in page.url:
            break
        try:
            width = page.evaluate("() => parseFloat(document.querySelector('.job-progress .bar').style.width) || 0")
            widths.append(width)
            if not seen_rate and f"{rate_unit}/s" in page.locator(".job-rate").inner_text():
                seen_rate = True
                screenshot(page, screenshot_name)
        except Exception:  # the page navigated away between two looks  # noqa: BLE001
            break
        page.wait_for_timeout(100)
    return widths, seen_rate
