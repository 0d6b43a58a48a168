"""Refuse oversized request bodies before anything reads them, and keep uploads in memory.

Django's CSRF check reads a POST body (a multipart file goes to a temporary file past
FILE_UPLOAD_MAX_MEMORY_SIZE) before any view can refuse it: without these, a 1 GB
anonymous POST to any page was written whole to /tmp. The middleware answers 413 from the
declared Content-Length alone, and 411 to a chunked body (its size is unknown until read);
the upload handler holds a file in memory and keeps at most one byte past the bot upload
limit, so the view can tell the user the file is too large.
"""

from __future__ import annotations

from collections.abc import Callable
from io import BytesIO
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse, JsonResponse


class RequestSizeMiddleware:
    """413 for a body over REQUEST_MAX_BYTES, 411 for one without a Content-Length."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit: int = settings.REQUEST_MAX_BYTES
        declared = request.META.get("CONTENT_LENGTH") or ""
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not declared:
            return refusal(411, "send the body with a Content-Length (chunked bodies are refused)")
        if declared and (not declared.isdigit() or int(declared[:20]) > limit):
            return refusal(
                413,
                f"the request is {declared[:20]} bytes; the limit is {limit} bytes "
                f"(a bot upload may be at most {settings.BOT_UPLOAD_MAX_BYTES} bytes)",
            )
        return self.get_response(request)


def refusal(status: int, message: str) -> HttpResponse:
    """The refusal, closing the connection (the unread body must not be parsed as a
    next request)."""
    response = JsonResponse({"detail": message}, status=status)
    response["Connection"] = "close"
    return response


class CappedMemoryUploadHandler(FileUploadHandler):
    """Every uploaded file in memory, cut at BOT_UPLOAD_MAX_BYTES + 1 bytes: the size
    check downstream sees it is over the limit; nothing is written to disk."""

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.buffer = BytesIO()
        self.cap = settings.BOT_UPLOAD_MAX_BYTES + 1

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        room = self.cap - self.buffer.tell()
        if room > 0:
            self.buffer.write(raw_data[:room])
        return None

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        self.buffer.seek(0)
        return InMemoryUploadedFile(
            file=self.buffer,
            field_name=self.field_name,
            name=self.file_name,
            content_type=self.content_type,
            size=self.buffer.getbuffer().nbytes,
            charset=self.charset,
            content_type_extra=self.content_type_extra,
        )
