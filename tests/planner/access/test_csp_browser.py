"""Under the Content-Security-Policy, pages render and charts draw in a real browser, with no
violation reported; the header is on every page.  Screenshots of the access pages go to
/tmp/shots19/ (and screenshots/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SHOTS = Path("/tmp/shots19")

MAPPINGS = """mappings:
  - {group: hpc-admins, role: admin}
  - {group: hpc-planners, role: planner, source: oidc}
  - {group: research-finance, role: finance}
  - {group: genomics-pis, role: department viewer, departments: [ggs]}
"""
WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));
"""


def test_every_page_sends_the_policy(db: Any, admin_user: Any) -> None:
    client = Client()
    client.force_login(admin_user)
    for url in ("/", "/usage/", "/access/profile/", "/api/v1/docs/", "/admin/"):
        policy = client.get(url)["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "'unsafe-eval'" not in policy, url
        assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0], url
        assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy


def test_pages_render_and_charts_draw_with_no_policy_violation(transactional_db: Any, browser: Any,
                                                                live_server: Any, tmp_path: Path) -> None:
    from auditlog.context import set_actor
    from django.contrib.auth.models import User

    from forecasts.models import RatePlan
    from planner.access.services import access_apply, mappings_import
    from tests.planner.access.world import build_world

    world = build_world(tmp_path)
    a = world.samples_a
    with set_actor(world.users["admin"]):
        plan = RatePlan.objects.get()
        plan.note = "FY25 rates approved by the board"
        plan.save()
        mappings_import(text=MAPPINGS, filename="groups.yaml")
    access_apply(user=User.objects.create_user("sso-sam", email="sam@example.org"), source="oidc",
                 groups=["genomics-pis", "hpc-users"])
    pages = {  # url -> how many charts it must draw
        "/": 1, "/usage/": 1, "/usage/workload/": 2, "/usage/storage/": 1, "/chargeback/departments/ggs/": 1,
        f"/chargeback/statements/{a.statement_pk}/": 0, f"/forecasts/fits/{a.forecast_fit_pk}/": 2,
        f"/forecasts/plans/{a.sequencer_plan_pk}/": 1, f"/designs/{a.design_pk}/": 1, "/hardware/": 0,
        "/api/v1/docs/": 0, "/admin/": 0, "/access/": 0, "/access/mappings/": 0, "/access/profile/": 0,
        "/audit/": 0,
    }
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(WATCH)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(f"{page.url}: {m.text} {m.location.get('url')}")
            if ("Content Security Policy" in m.text or m.type == "error")
            and "favicon.ico" not in str(m.location.get("url")) else None)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "root-admin")
    page.fill("input[name=password]", "pw-root-admin")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    violations: list[str] = []
    for url, charts in pages.items():
        page.goto(f"{live_server.url}{url}")
        if url == "/api/v1/docs/":
            page.wait_for_selector(".swagger-ui .info", timeout=20000)  # its start-up script ran
        for i in range(charts):
            page.wait_for_selector(f":nth-match([data-drawn=yes] .main-svg, {i + 1})", timeout=20000)
        violations += [f"{url}: {v}" for v in page.evaluate("window.__csp")]
    assert violations == [] and console == [], violations + console

    SHOTS.mkdir(exist_ok=True)
    page.goto(f"{live_server.url}/access/profile/")
    page.fill("input[name=name]", "nightly usage export")
    page.click("text=Create token")
    page.wait_for_selector("#new-token-value")
    screenshot(page, "access_profile_tokens")
    page.screenshot(path=str(SHOTS / "profile_tokens.png"), full_page=True)
    for url, name in (("/access/", "effective_access"), ("/audit/", "audit"), ("/access/mappings/", "group_mappings")):
        page.goto(f"{live_server.url}{url}")
        screenshot(page, f"access_{name}")
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=name != "audit")
    assert page.evaluate("window.__csp") == []
    context.close()
