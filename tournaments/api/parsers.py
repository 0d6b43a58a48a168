"""The API's JSON parser: DRF's, refusing documents nested deeper than 32 levels (400)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from tournaments.guard import boundedjson


class BoundedJSONParser(JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        try:
            return boundedjson.loads(stream.read())
        except boundedjson.TooDeep as error:
            raise ParseError(f"JSON parse error - {error}") from None
        except (UnicodeDecodeError, ValueError) as error:
            raise ParseError(f"JSON parse error - {error}") from None
