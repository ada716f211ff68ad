"""Input checked at the edge: what no view should ever see, and what no view may answer with a 500.

``RejectMalformedInput`` refuses a request carrying a NUL byte (path, query string or form)
with a 400 that says which parameter, before any view parses it (PostgreSQL cannot store NUL
in text, so it would surface as a 500).  Its ``process_exception`` turns the errors a
malformed parameter produces deep inside a view into a 400 that says so: a number out of the
database's range (``DataError``), Django's ``ValidationError`` (a bad date or UUID in a
filter), ``OverflowError`` (a year past 9999); a delete refused because other rows still refer
to the object (``ProtectedError``, ``RestrictedError``) answers 409 naming what refers to it, and
a row a table's constraint refuses (``IntegrityError``) answers 400 naming the constraint.
Views still validate their own parameters with messages of their own; this is the net under
them.  API paths answer JSON ``{"detail"}``, and so do their 404s and 500s (``not_found``,
``server_error``: the URL conf's handlers), which Django would otherwise answer with an HTML page a script cannot read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError
from django.db.models import ProtectedError, RestrictedError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults

FORM = "application/x-www-form-urlencoded"


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    """A 400 with the reason: JSON on the API, a page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=400)
    return render(request, "400.html", {"message": message}, status=400)


def conflict(request: HttpRequest, message: str) -> HttpResponse:
    """A 409 with the reason: JSON on the API, a page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=409)
    return render(request, "400.html", {"message": message}, status=409)


def _still_used(exc: ProtectedError | RestrictedError) -> str:
    """'3 benchmarks, 1 design' from the rows that still refer to the object being deleted."""
    counts: dict[Any, int] = {}
    for row in exc.args[1] if len(exc.args) > 1 else ():
        counts[type(row)._meta] = counts.get(type(row)._meta, 0) + 1
    return ", ".join(f"{n} {meta.verbose_name if n == 1 else meta.verbose_name_plural}"
                     for meta, n in sorted(counts.items(), key=lambda kv: str(kv[0].verbose_name))) or "other rows"


def _nul_in(request: HttpRequest) -> str | None:
    """The first place of a NUL byte in the request (path, query parameter, form field), or None."""
    if "\x00" in request.path or b"\x00" in unquote_to_bytes(request.META.get("PATH_INFO", "")):
        return "the address"
    for key, values in request.GET.lists():
        if "\x00" in key or any("\x00" in v for v in values):
            return f"the query parameter {key.replace(chr(0), '')!r}"
    if request.method == "POST" and request.content_type == FORM:
        for key, values in request.POST.lists():
            if "\x00" in key or any("\x00" in v for v in values):
                return f"the form field {key.replace(chr(0), '')!r}"
    return None


class RejectMalformedInput:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = _nul_in(request)
        if where is not None:
            return bad_request(request, f"{where} contains a NUL byte (\\x00), which no field accepts.")
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if isinstance(exc, DataError):
            return bad_request(request, "A number or text in the request is out of the range the database "
                                        f"accepts: {str(exc).splitlines()[0][:200]}")
        if isinstance(exc, ValidationError):
            return bad_request(request, "; ".join(str(m) for m in exc.messages)[:300])
        if isinstance(exc, (ValueError, TypeError)) and str(exc).startswith("Field '") and " expected " in str(exc):
            # the ORM refusing a lookup value taken from the request ("Field 'id' expected a number but got 'x'")
            return bad_request(request, str(exc)[:300])
        if isinstance(exc, (ProtectedError, RestrictedError)):
            return conflict(request, "This object cannot be deleted while other rows refer to it "
                                     f"({_still_used(exc)}); delete or change those first.")
        if isinstance(exc, IntegrityError):
            diag = getattr(exc.__cause__, "diag", None)
            rule = getattr(diag, "constraint_name", None) or str(exc).splitlines()[0][:200]
            return bad_request(request, f"The database refuses these values (its rule {rule}); see the field's "
                                        "documented range.")
        if isinstance(exc, OverflowError):
            return bad_request(request, f"A number in the request is too large: {exc}")
        return None


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The 404 handler: JSON ``{"detail"}`` under /api/, the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"No API endpoint or object at {request.path}; the endpoints are listed "
                                       "at /api/v1/docs/."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 handler: JSON ``{"detail"}`` under /api/, the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "The server failed on this request; it has been logged."}, status=500)
    return defaults.server_error(request)
