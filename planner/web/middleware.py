"""Login required everywhere but the login page, /healthz and static files."""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse

PUBLIC_PREFIXES = ("/accounts/login/", "/healthz", "/api/", "/admin/", "/oidc/", settings.STATIC_URL)


class LoginRequiredEverywhere:
    """Redirect anonymous visitors to the login page.

    The API answers 401/403 itself (DRF's IsAuthenticated default) and the admin has its
    own login, so both are left to their own handling rather than redirected.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.user.is_authenticated and not request.path.startswith(PUBLIC_PREFIXES):
            return redirect_to_login(request.get_full_path())
        return self.get_response(request)
