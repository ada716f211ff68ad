"""A first sign-on whose groups match no mapping (or a user whose last group was removed) creates a
user with no role. Their dashboard said 'No usage loaded yet: load accounting logs with python manage.py
ingest_accounting ...' and every area 'Nothing loaded yet', though the product holds years of usage:
they were told the data was missing when it was hidden from them. The dashboard now says they have no
role yet and who can give them one."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_a_user_with_no_role_is_told_so_not_that_nothing_is_loaded(departments: Any) -> None:
    from django.contrib.auth.models import User

    from planner.access.services import access_apply

    user = User.objects.create_user("sso-newcomer", email="new@example.org")
    access_apply(user=user, source="oidc", groups=["staff", "hpc-users"])  # no mapping matches
    client = Client()
    client.force_login(user)
    page = " ".join(client.get("/").content.decode().split())
    assert "You are signed in as sso-newcomer, with no role yet" in page
    assert "No usage loaded yet" not in page and "Nothing loaded yet" not in page
    assert 'href="/access/profile/"' in page


def test_a_viewer_still_sees_the_areas(genomics_viewer: Any) -> None:
    client = Client()
    client.force_login(genomics_viewer)
    page = client.get("/").content.decode()
    assert "with no role yet" not in page and 'class="areas"' in page
