"""The method documents as pages (/methods/): what every "docs/....md" a page cites links to."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from planner.web.methods import list_docs, render_doc

LINK_TO = "/methods/{slug}/"


def methods_index(request: HttpRequest) -> HttpResponse:
    return render(request, "methods/index.html", {"docs": list_docs(settings.BASE_DIR / "docs")})


def method_doc(request: HttpRequest, slug: str) -> HttpResponse:
    found = render_doc(settings.BASE_DIR / "docs", slug, LINK_TO)
    if found is None:
        raise Http404(f"no method document named {slug!r}")
    title, html = found
    # Safe: markdown-it escapes any raw HTML in the file ("html": False); only its own tags remain.
    return render(request, "methods/doc.html", {"title": title, "html": mark_safe(html), "slug": slug})  # noqa: S308
