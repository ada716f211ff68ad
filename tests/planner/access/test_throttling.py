"""Wrong passwords are throttled per account and per address, with a page that says what happened."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db


def _attempt(client: Client, username: str, password: str, address: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_an_account_is_locked_after_the_failure_limit_even_from_new_addresses(planner_user: Any) -> None:
    client = Client()
    limit = settings.AXES_FAILURE_LIMIT
    for i in range(limit - 1):
        assert _attempt(client, "pat-planner", "wrong", f"10.0.0.{i + 1}").status_code == 200  # the form again
    locked = _attempt(client, "pat-planner", "wrong", "10.0.1.1")
    assert locked.status_code == 429
    text = locked.content.decode()
    assert "Too many failed sign-ins" in text and f"After {limit} wrong passwords" in text and "15 minutes" in text
    # the right password does not get through while the account is locked, from anywhere
    assert _attempt(Client(), "pat-planner", "pw-pat-planner", "10.9.9.9").status_code == 429


def test_an_address_is_locked_after_the_failure_limit_whatever_the_names(planner_user: Any) -> None:
    client = Client()
    for i in range(settings.AXES_FAILURE_LIMIT):
        _attempt(client, f"guess-{i}", "wrong", "192.0.2.7")
    assert _attempt(client, "pat-planner", "pw-pat-planner", "192.0.2.7").status_code == 429
    other = Client()
    assert _attempt(other, "pat-planner", "pw-pat-planner", "192.0.2.8").status_code == 302  # in, from elsewhere


def test_a_success_before_the_limit_clears_the_count(planner_user: Any) -> None:
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _attempt(client, "pat-planner", "wrong", "10.0.0.1")
    assert _attempt(client, "pat-planner", "pw-pat-planner", "10.0.0.1").status_code == 302
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _attempt(Client(), "pat-planner", "wrong", "10.0.0.1").status_code == 200
