"""A form opened before the user signed in elsewhere (two tabs on the login page, or a page left open
while signing in again) carries a CSRF token the sign-in rotated. Posting it showed Django's bare
'Forbidden (403) CSRF verification failed. Request aborted.', on the login page even to a user who was by
then signed in. The refusal stays (403), but the page now says in words what happened, that nothing
was saved, and what to do, inside the product's layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser]
SHOTS = Path("/tmp/s26/h4")


def _sign_in(page: Any, username: str, password: str) -> None:
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()


def test_signing_in_from_a_second_tab_says_you_are_already_signed_in(
        transactional_db: Any, browser: Any, live_server: Any, planner_user: Any) -> None:
    context = browser.new_context()
    first, second = context.new_page(), context.new_page()
    first.goto(f"{live_server.url}/accounts/login/")
    second.goto(f"{live_server.url}/accounts/login/")
    _sign_in(first, "pat-planner", "pw-pat-planner")
    assert first.url == f"{live_server.url}/"
    _sign_in(second, "pat-planner", "pw-pat-planner")
    SHOTS.mkdir(parents=True, exist_ok=True)
    second.screenshot(path=str(SHOTS / "stale-login-form.png"), full_page=True)
    text = second.inner_text("body")
    assert "CSRF verification failed" not in text
    assert "You are already signed in as pat-planner" in text
    assert second.locator("a#stale-form-continue").get_attribute("href") == "/"
    assert second.locator("nav").count() == 1  # the product's layout, with its navigation
    context.close()


def test_a_form_left_open_across_a_new_sign_in_is_refused_in_words(
        transactional_db: Any, browser: Any, live_server: Any, planner_user: Any) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    _sign_in(page, "pat-planner", "pw-pat-planner")
    page.goto(f"{live_server.url}/access/profile/")
    other = context.new_page()  # a second tab signs out and in again: the first tab's token is stale
    other.goto(f"{live_server.url}/access/profile/")
    other.click("form[action='/accounts/logout/'] button")
    other.goto(f"{live_server.url}/accounts/login/")
    _sign_in(other, "pat-planner", "pw-pat-planner")
    page.fill("input[name=name]", "nightly export")
    with page.expect_response(lambda r: r.url.endswith("/access/profile/") and r.request.method == "POST") as info:
        page.click("form.token-form button[type=submit]")
    assert info.value.status == 403
    page.screenshot(path=str(SHOTS / "stale-profile-form.png"), full_page=True)
    text = page.inner_text("body")
    assert "CSRF verification failed" not in text
    assert "Nothing was saved" in text and "Open the page again" in text
    assert page.locator("a#stale-form-continue").get_attribute("href") == "/access/profile/"
    context.close()
