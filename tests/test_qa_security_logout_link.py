"""Log out is a POST (the navigation's button), but people also open /accounts/logout/ from a bookmark or
by typing it. Signed out, that sent them to the login page with next=/accounts/logout/; signing in then
sent them to /accounts/logout/ by GET, which answered 405: Chromium's 'This page isn't working, HTTP
ERROR 405', just after a successful sign-in. Now signing in never lands on the logout address, and
opening it while signed in asks to confirm with a button that logs out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser]
SHOTS = Path("/tmp/s26/h4")


def _sign_in(page: Any) -> None:
    page.fill("input[name=username]", "pat-planner")
    page.fill("input[name=password]", "pw-pat-planner")
    page.click("main button[type=submit]")
    page.wait_for_load_state()


def test_the_logout_address_opened_signed_out_leads_to_the_dashboard_after_signing_in(
        transactional_db: Any, browser: Any, live_server: Any, planner_user: Any) -> None:
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/accounts/logout/")
    assert page.url.startswith(f"{live_server.url}/accounts/login/")
    _sign_in(page)
    assert page.url == f"{live_server.url}/", page.url
    assert "HTTP ERROR 405" not in page.inner_text("body")


def test_the_logout_address_opened_signed_in_asks_and_its_button_logs_out(
        transactional_db: Any, browser: Any, live_server: Any, planner_user: Any) -> None:
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    _sign_in(page)
    response = page.goto(f"{live_server.url}/accounts/logout/")
    assert response is not None and response.status == 200
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "logout-confirm.png"), full_page=True)
    assert "Log out of" in page.inner_text("main")
    page.click("#logout-confirm button[type=submit]")
    page.wait_for_load_state()
    assert page.url.startswith(f"{live_server.url}/accounts/login/")
    page.goto(f"{live_server.url}/designs/")
    assert page.url.startswith(f"{live_server.url}/accounts/login/")  # signed out
