"""Sign up, log in, log out (Django's own views) and the API token page."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from tournaments.bots import lookalikes
from tournaments.errors import ServiceError
from tournaments.guard.limits import limited
from tournaments.web.forms import SignupForm


@require_http_methods(["GET", "POST"])
@limited("registrations", per_user=False)
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():  # a look-alike made meanwhile undoes this one
                user = form.save()
                lookalikes.claim_user_look(user)
        except ServiceError as error:
            form.add_error("username", str(error))
            return render(request, "web/signup.html", {"form": form})
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}: upload your first bot.")
        return redirect("web:upload")
    return render(request, "web/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def token(request: HttpRequest) -> HttpResponse:
    """The user's API token; POST makes a new one (the old one stops working)."""
    user = cast(User, request.user)
    if request.method == "POST":
        Token.objects.filter(user=user).delete()
        Token.objects.create(user=user)
        messages.success(request, "A new token was made; the old one no longer works.")
        return redirect("web:token")
    key = Token.objects.filter(user=user).values_list("key", flat=True).first()
    return render(request, "web/token.html", {"key": key})
