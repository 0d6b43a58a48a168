"""The operators' endpoints: /metrics (Prometheus) and /health.

/metrics answers a staff member's session, or a request bearing the METRICS_TOKEN
(``Authorization: Bearer ...``, as Prometheus' ``authorization`` setting sends it):
through the proxy like any page, from any web process (the figures are the site's, read
at scrape time: tournaments.play.metrics). Others get 403 and nothing else. A separate
port would need a second server in every web process, which gunicorn's processes cannot
share; a token works wherever the site does.

/health answers anyone with 200 when the broker, the database and the Docker engine all
answer, else 503, and which part fails; the reasons (they name hosts and ports) only to
the readers of /metrics. /health?live asks only whether this process serves and its
database answers (the liveness a container's health check wants: no worker needed).
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from tournaments.play import health, metrics


def may_read(request: HttpRequest) -> bool:
    """A staff member signed in, or the METRICS_TOKEN as a bearer token."""
    if request.user.is_authenticated and request.user.is_staff:
        return True
    token = str(settings.METRICS_TOKEN)
    given = request.headers.get("Authorization", "")
    scheme, _, value = given.partition(" ")
    return (
        bool(token)
        and scheme.lower() == "bearer"
        and hmac.compare_digest(value.strip().encode(), token.encode())
    )


@require_GET
@never_cache
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not may_read(request):
        return HttpResponse(
            "metrics are for staff, or a request with 'Authorization: Bearer METRICS_TOKEN'\n",
            status=403,
            content_type="text/plain",
        )
    body = generate_latest(metrics.registry())
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)


@require_GET
@never_cache
def health_view(request: HttpRequest) -> JsonResponse:
    parts = health.liveness() if "live" in request.GET else health.report()
    body = health.as_json(parts, reasons=may_read(request))
    return JsonResponse(body, status=200 if body["ok"] else 503)
