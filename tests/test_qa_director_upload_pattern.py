"""The upload pages' new-name fields (QA, session 26). Their pattern attribute "[a-z0-9_-]+" is not a valid
regular expression under the 'v' flag browsers compile patterns with, so Chromium logged "Pattern attribute
value [a-z0-9_-]+ is not a valid regular expression" on every visit and checked nothing: a name such as
"KTH SP2" reached the server. The hyphen is escaped now; the browser checks the name before uploading."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import screenshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.mark.parametrize(("url", "choice", "field"), [
    ("/usage/ingest/new/", "select[name=cluster]", "input[name=new_cluster]"),
    ("/usage/storage/upload/", "select[name=filesystem]", "input[name=new_filesystem]"),
])
def test_the_new_name_field_checks_the_name_with_no_console_error(page_as: Any, live_server: Any, planner_user: Any,
                                                                  url: str, choice: str, field: str) -> None:
    page = page_as(planner_user)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}{url}")
    page.wait_for_load_state("networkidle")
    page.fill(field, "KTH SP2")
    assert page.eval_on_selector(field, "e => e.validity.patternMismatch") is True
    page.fill(field, "kth-sp2_b")
    assert page.eval_on_selector(field, "e => e.validity.valid") is True
    screenshot(page, "qa-director-" + url.strip("/").replace("/", "-"))
    assert not errors, errors
    assert page.locator(choice).count() == 1
