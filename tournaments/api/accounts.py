"""Registration, API tokens, and who is signed in."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer, CharField
from rest_framework.views import APIView

from tournaments.api import serializers
from tournaments.api.parsers import BoundedJSONParser
from tournaments.api.throttles import RegistrationThrottle
from tournaments.bots import lookalikes
from tournaments.errors import ServiceError
from tournaments.guard import addresses
from tournaments.guard.lockout import forget_own_failures, locked_out


class RegisterView(generics.CreateAPIView[User]):
    """Make an account; the answer holds its API token."""

    serializer_class = serializers.RegisterSerializer
    permission_classes = (AllowAny,)
    throttle_classes = (RegistrationThrottle,)

    def perform_create(self, serializer: BaseSerializer[User]) -> None:
        data = serializer.validated_data
        with transaction.atomic():
            if User.objects.filter(username__iexact=data["username"]).exists():
                raise ValidationError({"username": ["that name is taken"]})
            user = User.objects.create_user(
                data["username"], data.get("email", ""), data["password"]
            )
            try:  # a look-alike made meanwhile undoes this one
                lookalikes.claim_user_look(user)
            except ServiceError as error:
                raise ValidationError({"username": [str(error)]}) from None
            user.token = Token.objects.create(user=user).key  # type: ignore[attr-defined]
            addresses.remember_request(self.request, user)  # the person behind it
        serializer.instance = user


class TokenView(APIView):
    """Trade a username and password for the API token (send it as ``Authorization: Token``)."""

    permission_classes = (AllowAny,)
    parser_classes = (BoundedJSONParser, FormParser, MultiPartParser)

    @extend_schema(
        request=AuthTokenSerializer,
        responses=inline_serializer("Token", {"token": CharField()}),
        operation_id="token_create",
    )
    def post(self, request: Request) -> HttpResponse:
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        valid = serializer.is_valid()
        if getattr(request, "axes_locked_out", False):
            return locked_out(request._request)
        if not valid:
            raise ValidationError(serializer.errors)
        user = serializer.validated_data["user"]
        forget_own_failures(request._request, user)
        token, _ = Token.objects.get_or_create(user=user)
        addresses.remember_request(request, user)
        return Response({"token": token.key})


class MeView(generics.RetrieveAPIView[User]):
    serializer_class = serializers.UserSerializer
    permission_classes = (IsAuthenticated,)

    def get_object(self) -> User:
        return self.request.user  # type: ignore[return-value]
