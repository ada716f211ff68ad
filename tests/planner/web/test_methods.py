"""The method documents as pages: every "docs/....md" a page cites opens in the product, rendered from the
repository's own files, for every signed-in role; raw HTML in a document is shown as text, never run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from planner.web.methods import heading_id, link_citations, list_docs, render_doc
from tests.helpers import login, screenshot

ROOT = Path(__file__).resolve().parents[3]


def test_every_document_in_docs_is_listed_method_documents_first() -> None:
    docs = list_docs(ROOT / "docs")
    assert [d.slug for d in docs][:3] == ["forecasting", "uncertainty", "performance-model"]
    assert {d.slug for d in docs} == {p.stem for p in (ROOT / "docs").glob("*.md")}
    assert all(d.title and "`" not in d.title and d.summary for d in docs)


def test_a_document_renders_with_its_tables_heading_ids_and_links_between_documents(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Alpha\n\nSee [the other](b.md#part) and docs/b.md and docs/c.md.\n\n"
                                   "## Part one\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n## Part one\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Beta\n", encoding="utf-8")
    title, html = render_doc(tmp_path, "a") or ("", "")
    assert title == "Alpha"
    assert '<a href="/methods/b/#part">the other</a>' in html
    assert '<a href="/methods/b/">docs/b.md</a>' in html
    assert "docs/c.md" in html and "/methods/c/" not in html  # no such document: left as text
    assert '<h2 id="part-one">' in html and '<h2 id="part-one-2">' in html
    assert "<table>" in html and "<td>2</td>" in html


def test_raw_html_in_a_document_is_escaped_and_odd_names_find_nothing(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("# X\n\n<script>alert(1)</script>\n\n[y](javascript:alert(1))\n", encoding="utf-8")
    _, html = render_doc(tmp_path, "x") or ("", "")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "href=\"javascript" not in html
    for slug in ("../README", "X", "x.md", "", "nope"):
        assert render_doc(tmp_path, slug) is None


def test_citations_inside_a_link_are_not_linked_twice() -> None:
    html = '<p><a href="/x/">docs/a.md</a> and <code>docs/a.md</code></p>'
    assert link_citations(html, {"a"}, "/m/{slug}/") == (
        '<p><a href="/x/">docs/a.md</a> and <code><a href="/m/a/">docs/a.md</a></code></p>')
    assert heading_id("Plans bought for a service level (`service_level.py`)") == \
        "plans-bought-for-a-service-level-service-level-py"


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["admin_user", "planner_user", "finance_user", "genomics_viewer"])
def test_every_role_reads_the_methods_and_an_unknown_one_is_a_404(request: Any, persona: str) -> None:
    client = login(Client(), request.getfixturevalue(persona))
    index = client.get("/methods/")
    assert index.status_code == 200 and b'href="/methods/uncertainty/"' in index.content
    page = client.get("/methods/uncertainty/")
    assert page.status_code == 200
    assert b"From forecast to design with the uncertainty" in page.content
    assert client.get("/methods/no-such-document/").status_code == 404


@pytest.mark.django_db
def test_signed_out_visitors_are_sent_to_sign_in() -> None:
    response = Client().get("/methods/forecasting/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_director_opens_the_methods_from_the_menu_and_follows_a_citation(page_as: Any, live_server: Any,
                                                                           planner_user: Any) -> None:
    page = page_as(planner_user)
    page.goto(f"{live_server.url}/")
    page.click(".usermenu >> text=Methods")
    page.wait_for_url(f"{live_server.url}/methods/")
    screenshot(page, "methods-index")
    page.click("#methods-list >> text=From forecast to design with the uncertainty")
    page.wait_for_url(f"{live_server.url}/methods/uncertainty/")
    assert page.locator("#method-doc table").count() >= 1
    page.locator("#method-doc a[href='/methods/scenario-format/']").first.click()
    page.wait_for_url(f"{live_server.url}/methods/scenario-format/")
    assert page.locator("#method-doc h1").inner_text().startswith("Scenario file format")
    screenshot(page, "methods-scenario-format")


def test_every_citation_of_a_method_document_in_a_page_is_a_link_to_it() -> None:
    """A page that says "docs/replay.md" links it (a director has the product, not the repository), and the
    document it names exists."""
    import re

    missing, unlinked = [], []
    for template in sorted((ROOT / "templates").rglob("*.html")):
        text = template.read_text(encoding="utf-8")
        for m in re.finditer(r"docs/([a-z0-9-]+)\.md", text):
            if not (ROOT / "docs" / f"{m.group(1)}.md").is_file():
                missing.append(f"{template.name}: {m.group(0)}")
            before = text[max(0, m.start() - 120):m.start()]
            if f"{{% url 'method' '{m.group(1)}' %}}" not in before and "{% url 'method' d.slug %}" not in before \
                    and "docs/{{" not in text[m.start() - 6:m.start() + 6]:
                unlinked.append(f"{template.relative_to(ROOT)}: {m.group(0)}")
    assert not missing and not unlinked, (missing, unlinked)
