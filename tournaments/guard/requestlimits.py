"""Refuse oversized request bodies before anything reads them, and keep uploads in memory.

Django's CSRF check reads a POST body (a multipart file goes to a temporary file past
FILE_UPLOAD_MAX_MEMORY_SIZE) before any view can refuse it: without these, a 1 GB
anonymous POST to any page was written whole to /tmp. The middleware answers 413 from the
declared Content-Length alone, and 411 to a chunked body (its size is unknown until read);
the upload handler holds a file in memory and keeps at most one byte past the bot upload
limit, so the view can tell the user the file is too large.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from io import BytesIO
from typing import Any

from csp.constants import HEADER
from csp.utils import build_policy
from django.conf import settings
from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse, JsonResponse

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RequestSizeMiddleware:
    """413 for a body over REQUEST_MAX_BYTES, 411 for one without a Content-Length."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        declared = request.META.get("CONTENT_LENGTH") or ""
        problem = body_problem(declared, request.META.get("HTTP_TRANSFER_ENCODING", ""))
        if problem is not None:
            return refusal(*problem)
        return self.get_response(request)


def body_problem(declared: str, transfer_encoding: str) -> tuple[int, str] | None:
    """(411 or 413, why) for a body that must not be read, or None."""
    limit: int = settings.REQUEST_MAX_BYTES
    if "chunked" in transfer_encoding.lower() and not declared:
        return 411, "send the body with a Content-Length (chunked bodies are refused)"
    if declared and (not (declared.isascii() and declared.isdigit()) or int(declared[:20]) > limit):
        return 413, (
            f"the request is {declared[:20]} bytes; the limit is {limit} bytes "
            f"(a bot upload may be at most {settings.BOT_UPLOAD_MAX_BYTES} bytes)"
        )
    return None


def refusal(status: int, message: str) -> HttpResponse:
    """The refusal, closing the connection (the unread body must not be parsed as a
    next request)."""
    response = JsonResponse({"detail": message}, status=status)
    response["Connection"] = "close"
    return response


class BodySizeGuard:
    """The same refusal for the ASGI server, before the body is read: Django's ASGI handler
    reads a whole body (to a temporary file past FILE_UPLOAD_MAX_MEMORY_SIZE) before any
    middleware runs, so RequestSizeMiddleware would come too late there."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {name.lower(): value.decode("latin-1") for name, value in scope["headers"]}
            declared = headers.get(b"content-length", "")
            problem = body_problem(declared, headers.get(b"transfer-encoding", ""))
            if problem is not None:
                await send_refusal(send, *problem)
                return
        await self.app(scope, receive, send)


async def send_refusal(send: Send, status: int, message: str) -> None:
    """The refusal with the site's Content-Security-Policy: Django's middleware (where
    django-csp adds it) never sees this answer."""
    body = json.dumps({"detail": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
    headers.append((HEADER.lower().encode(), build_policy().encode()))
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


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
