"""Streamed file uploads for API views: one mixin for accounting logs and storage scans alike.

The upload handler writes the body straight into UPLOAD_DIR (checked against
UPLOAD_MAX_BYTES) before anything, the CSRF check of session auth included, reads it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from forecasts.accounting.upload import IngestUploadHandler, too_large_message, upload_discard, uploads_discard_unkept
from forecasts.accounting.views import UPLOAD_SLACK_BYTES, upload_handler_install


class StreamedUploadMixin:
    """For viewsets whose POST carries one large file; ``server_command`` names the command to
    use instead when the file is over the limit."""

    server_command: str | None = None

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        if request.method == "POST":
            self._upload_handler = upload_handler_install(request)  # None for a body without files
        return super().initialize_request(request, *args, **kwargs)  # type: ignore[misc]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        # the body was streamed to disk before authentication's CSRF check and the permission check
        # read it: a refused request (or any that did not store its file) leaves nothing behind
        uploads_discard_unkept(getattr(self, "_upload_handler", None))
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]

    def _too_large(self, size: int) -> Response:
        message = too_large_message(size, self.server_command) if self.server_command else too_large_message(size)
        return Response({"file": [message]}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)

    def upload_refused(self, request: Request) -> Response | None:
        """413 when the declared or streamed size is over the limit (reads the body once)."""
        length = int(request.META.get("CONTENT_LENGTH") or 0)
        if length > settings.UPLOAD_MAX_BYTES + UPLOAD_SLACK_BYTES:
            return self._too_large(length)
        request.data  # noqa: B018 - streams the body through the handler
        handler: IngestUploadHandler | None = getattr(self, "_upload_handler", None)
        if handler is not None and handler.too_large:
            return self._too_large(handler.size)
        return None

    @staticmethod
    def discard_uploads(request: Request) -> None:
        """Remove what the handler wrote when the form is refused."""
        for uploaded in request.FILES.values():
            if getattr(uploaded, "path", None) is not None:
                uploaded.close()
                upload_discard(uploaded.path)
