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


def test_the_data_pages_say_no_role_not_nothing_loaded(departments: Any, tmp_path: Any) -> None:
    """The Usage, Workload, Storage and Chargeback pages opened to a user with no role showed their empty states
    ('No accounting logs loaded yet: load ...') with usage loaded: each now says first that the user has no role."""
    from django.contrib.auth.models import User

    from tests.forecasts.chargeback_data import ingest_lines, sacct_line

    ingest_lines([sacct_line(101, user="gina", account="autism-wgs", group="ggs", cores=4)], tmp_path)
    client = Client()
    client.force_login(User.objects.create_user("sso-newcomer"))
    for url in ("/usage/", "/usage/workload/", "/usage/storage/", "/chargeback/"):
        page = " ".join(client.get(url).content.decode().split())
        assert 'id="no-role-banner"' in page and "with no role yet" in page, url
    profile = client.get("/access/profile/").content.decode()
    assert 'id="no-role-banner"' not in profile  # the profile and the dashboard say it their own way


def test_a_planner_sees_no_such_banner(planner_user: Any) -> None:
    client = Client()
    client.force_login(planner_user)
    assert 'id="no-role-banner"' not in client.get("/usage/").content.decode()
