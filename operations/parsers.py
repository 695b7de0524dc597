"""The API's JSON parser: DRF's, refusing what would crash it with a 400 instead of a 500."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JSONBodyParser(JSONParser):
    """A body nested thousands deep makes the standard library's decoder recurse until
    RecursionError (not a ValueError, so DRF let it through as a 500)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
