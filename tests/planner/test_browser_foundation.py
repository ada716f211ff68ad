"""The first five minutes of a visitor, in a real browser."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_logs_in_and_sees_the_dashboard(browser: Any, live_server: Any, departments: Any) -> None:
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user("dana-director", password="a-long-demo-password")
    user.groups.add(Group.objects.get_or_create(name="planner")[0])
    page = browser.new_page()
    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
    screenshot(page, "login")
    page.fill("input[name=username]", "dana-director")
    page.fill("input[name=password]", "a-long-demo-password")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    assert "Test Institute of Genomics" in page.content()
    for label in ["Usage", "Forecasts", "Hardware", "Designs", "Reports", "Chargeback"]:
        assert page.locator("nav.mainnav").get_by_text(label, exact=True).is_visible()
    screenshot(page, "dashboard")
    page.click("nav.mainnav >> text=Usage")
    assert "ingest_accounting" in page.content()
    page.close()
