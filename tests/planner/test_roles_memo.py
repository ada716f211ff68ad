"""planner.roles memoises a person's role and departments on the request's user object: a change
of groups, viewer links or departments is seen at once, whichever side of the relation it is made
from, so the memo never grants what was taken away (or hides what was given)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group

from planner.roles import PLANNER, VIEWER, role_of, sees_everything, visible_department_ids

pytestmark = pytest.mark.django_db


def test_a_role_taken_away_or_given_is_seen_by_the_same_user_object(genomics_viewer: Any) -> None:
    user = genomics_viewer
    assert role_of(user) == VIEWER and not sees_everything(user)
    planners, _ = Group.objects.get_or_create(name=PLANNER)
    planners.user_set.add(user)  # from the group's side: the user object is not told
    assert role_of(user) == PLANNER and sees_everything(user)
    user.groups.remove(planners)
    assert role_of(user) == VIEWER and not sees_everything(user)
    Group.objects.filter(name=VIEWER).delete()
    assert role_of(user) is None


def test_departments_given_or_taken_are_seen_by_the_same_user_object(
        genomics_viewer: Any, departments: dict[str, Any]) -> None:
    user = genomics_viewer
    before = visible_department_ids(user)
    assert before == {departments["genomics"].pk}
    departments["chemistry"].viewers.add(user)  # from the department's side
    assert visible_department_ids(user) == {departments["genomics"].pk, departments["chemistry"].pk}
    departments["chemistry"].delete()
    departments["genomics"].viewers.remove(user)
    assert visible_department_ids(user) == set()
