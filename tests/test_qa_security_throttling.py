"""Sign-in throttling tried as an attacker: an account of one's own must not reset the count of
wrong passwords typed against somebody else's, and a lock ends after the stated time."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db

ATTACKER_ADDRESS = "198.51.100.23"


def _attempt(username: str, password: str, address: str = ATTACKER_ADDRESS) -> Any:
    return Client().post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


def test_signing_in_to_ones_own_account_does_not_reset_the_count_against_anothers(
    admin_user: Any, genomics_viewer: Any
) -> None:
    """A department viewer who guesses the admin's password four times, signs in as themself, and
    guesses once more has typed the limit of wrong passwords for the admin from one address: the admin
    account and the address are locked, and the admin's right password is refused until the lock ends.
    (django-axes' reset on success deleted every attempt from the address, the admin's included.)"""
    limit = settings.AXES_FAILURE_LIMIT
    for _ in range(limit - 1):
        assert _attempt("root-admin", "guess").status_code == 200
    assert _attempt("gina-genomics", "pw-gina-genomics").status_code == 302  # the attacker's own account
    assert _attempt("root-admin", "guess").status_code == 429  # the limit-th wrong password for the admin
    assert _attempt("root-admin", "pw-root-admin", "203.0.113.9").status_code == 429  # locked from anywhere
    assert _attempt("gina-genomics", "pw-gina-genomics").status_code == 429  # and the address is locked

def test_a_success_still_clears_the_users_own_failures(genomics_viewer: Any) -> None:
    limit = settings.AXES_FAILURE_LIMIT
    for _ in range(limit - 1):
        _attempt("gina-genomics", "typo")
    assert _attempt("gina-genomics", "pw-gina-genomics").status_code == 302
    for _ in range(limit - 1):
        assert _attempt("gina-genomics", "typo").status_code == 200  # the form again, not the lock


def test_the_lock_ends_after_the_stated_minutes(planner_user: Any) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _attempt("pat-planner", "wrong")
    locked = _attempt("pat-planner", "pw-pat-planner")
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    assert locked.status_code == 429 and f"for {minutes} minutes" in locked.content.decode()
    # one minute short of the stated time: still locked; at the stated time: the right password gets in
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=minutes - 1))
    assert _attempt("pat-planner", "pw-pat-planner").status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=minutes, seconds=1))
    assert _attempt("pat-planner", "pw-pat-planner").status_code == 302


def test_a_locked_address_is_not_called_a_locked_account_and_the_page_names_the_right_command(
        planner_user: Any) -> None:
    """Someone else's guesses from a shared address (a campus NAT) lock the address, not pat-planner's
    account: the page said 'locked for this account and for this address' and sent the admin to
    axes_reset_username, which does not lift an address lock."""
    for i in range(settings.AXES_FAILURE_LIMIT):
        _attempt(f"guess-{i}", "wrong", "192.0.2.50")
    page = _attempt("pat-planner", "pw-pat-planner", "192.0.2.50")
    assert page.status_code == 429
    text = " ".join(page.content.decode().split())
    assert "from this address (192.0.2.50)" in text and "for this account" not in text
    assert "Your account pat-planner is not locked" in text
    assert "axes_reset_ip 192.0.2.50" in text and "axes_reset_username" not in text


def test_a_locked_account_names_its_command_and_says_every_address_is_refused(planner_user: Any) -> None:
    for i in range(settings.AXES_FAILURE_LIMIT):
        _attempt("pat-planner", "wrong", f"10.1.0.{i + 1}")
    page = _attempt("pat-planner", "pw-pat-planner", "10.2.0.1")
    text = " ".join(page.content.decode().split())
    assert page.status_code == 429
    assert "the account pat-planner is locked" in text and "from any address" in text
    assert "axes_reset_username pat-planner" in text and "axes_reset_ip" not in text


def test_a_pasted_over_long_username_is_a_wrong_sign_in_not_a_database_error(db: Any) -> None:
    """Someone pastes a token or a paragraph into the username: axes' record of the failure overflowed
    its 255-character column and the page said 'value too long for type character varying(255)' (400),
    and the attempt was not counted."""
    page = _attempt("x" * 300, "wrong")
    assert page.status_code == 200 and "did not match" in page.content.decode()
    assert AccessAttempt.objects.filter(ip_address=ATTACKER_ADDRESS, failures_since_start=1).exists()
