"""The API's body parser: DRF's JSON parser, with a body nested past the JSON decoder's
recursion (``[[[[...`` thousands deep) refused as the malformed body it is, not a 500."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:  # the decoder's own limit: the body's bytes, never the server's
            raise exceptions.ParseError("JSON nested too deeply") from None
