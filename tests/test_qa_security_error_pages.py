"""With DEBUG off (the default) an unexpected failure answered with Django's bare 'Server Error (500)':
no layout, no way back, nothing saying what to do. It now answers the product's page, which says the
failure is logged and leads back to the dashboard, and still shows nothing of the error or the settings."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

pytestmark = pytest.mark.django_db


@override_settings(ROOT_URLCONF="tests.qa_security_crash_urls", DEBUG=False)
def test_a_failure_shows_the_products_page_and_leaks_nothing(planner_user: Any) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(planner_user)
    response = client.get("/qa-crash/")
    assert response.status_code == 500
    text = response.content.decode()
    assert "Something went wrong" in text and 'href="/"' in text and "has been logged" in text
    assert "planted-in-the-error" not in text and "Traceback" not in text and "SECRET_KEY" not in text
    assert "/static/css/app.css" in text  # the product's layout
    api = client.get("/api/v1/qa-crash/")
    assert api.status_code == 500 and api.json() == {"detail": "The server failed on this request; it has been logged."}
