"""GET /api/schema/: the OpenAPI schema, generated once per process.

The schema depends on the code alone (SERVE_PUBLIC: not on who asks), and generating
it walks every view and serializer: about a second on this machine the first time,
which /api/docs/ waited for on each load. Each format is still rendered per request.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils import translation
from drf_spectacular.views import SpectacularAPIView
from rest_framework.request import Request
from rest_framework.response import Response


class SchemaView(SpectacularAPIView):
    _generated: ClassVar[dict[tuple[str | None, str | None], Any]] = {}

    def _get_schema_response(self, request: Request) -> Response:
        version = (
            self.api_version or request.version or self._get_version_parameter(request)  # type: ignore[no-untyped-call]  # drf-spectacular's own, untyped
        )
        key = (version, translation.get_language())
        schema = self._generated.get(key)
        if schema is None:
            generator = self.generator_class(
                urlconf=self.urlconf, api_version=version, patterns=self.patterns
            )
            schema = generator.get_schema(  # type: ignore[no-untyped-call]  # untyped upstream
                request=request, public=self.serve_public
            )
            self._generated[key] = schema
        filename = self._get_filename(request, version)  # type: ignore[no-untyped-call]
        return Response(
            data=schema, headers={"Content-Disposition": f'inline; filename="{filename}"'}
        )
