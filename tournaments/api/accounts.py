"""Registration, API tokens, and who is signed in."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import generics
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer, CharField
from rest_framework.views import APIView

from tournaments.api import serializers
from tournaments.api.throttles import RegistrationThrottle


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
            user.token = Token.objects.create(user=user).key  # type: ignore[attr-defined]
        serializer.instance = user


class TokenView(APIView):
    """Trade a username and password for the API token (send it as ``Authorization: Token``)."""

    permission_classes = (AllowAny,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)

    @extend_schema(
        request=AuthTokenSerializer,
        responses=inline_serializer("Token", {"token": CharField()}),
        operation_id="token_create",
    )
    def post(self, request: Request) -> Response:
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})


class MeView(generics.RetrieveAPIView[User]):
    serializer_class = serializers.UserSerializer
    permission_classes = (IsAuthenticated,)

    def get_object(self) -> User:
        return self.request.user  # type: ignore[return-value]
