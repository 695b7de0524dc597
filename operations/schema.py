"""Postprocessing of the OpenAPI schema: the error answers every operation can give.

drf-spectacular documents what each view declares; the answers that come from
the framework around the views are added here, so the schema is true
(schemathesis checks it against the running server, tests/test_api_schema.py):
400 for a body or query DRF cannot parse (``{detail}``, or the field errors a
view declares), 401/403 without credentials, 404 for an object that is not the
caller's or a page past the end, 429 past the caller's PREEMPTLAB_API_RATE (every
call counts), 503 while the database or the broker is down.
"""

from __future__ import annotations

from typing import Any

ERROR = "Error"
ERROR_SCHEMA = {
    "type": "object",
    "properties": {"detail": {"type": "string", "description": "What was wrong, in words."}},
    "required": ["detail"],
}
FIELD_ERRORS = "FieldErrors"
FIELD_ERRORS_SCHEMA = {
    "type": "object",
    "description": "Messages by the name of the field they are about.",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}
DESCRIPTIONS = {
    "400": "The request could not be read (malformed, nested too deeply, invalid filter).",
    "401": "No credentials, or invalid ones.",
    "403": "Not allowed.",
    "404": "No such object (or not yours), or a page past the end.",
    "429": "Too many calls (PREEMPTLAB_API_RATE); Retry-After says when to call again.",
    "503": "The database or the task queue is unavailable; retry shortly.",
}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def error_responses(result: dict[str, Any], generator: Any, request: Any, public: Any) -> Any:
    """POSTPROCESSING_HOOKS entry: adds the framework's error answers to every operation."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas[ERROR] = ERROR_SCHEMA
    schemas[FIELD_ERRORS] = FIELD_ERRORS_SCHEMA
    ref = {"$ref": f"#/components/schemas/{ERROR}"}
    bad_request = {"anyOf": [ref, {"$ref": f"#/components/schemas/{FIELD_ERRORS}"}]}
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            for code in ("401", "403", "404", "429", "503"):
                responses.setdefault(
                    code, {"description": DESCRIPTIONS[code], "content": _json(ref)}
                )
            declared = responses.get("400")
            if declared is None:
                responses["400"] = {
                    "description": DESCRIPTIONS["400"],
                    "content": _json(bad_request),
                }
            else:
                content = declared.setdefault("content", {}).setdefault("application/json", {})
                own = content.get("schema")
                content["schema"] = {"anyOf": [own, *bad_request["anyOf"]]} if own else bad_request
                if method == "post" and "413" not in responses and "multipart" in str(operation):
                    responses["413"] = {"description": "Over MAX_UPLOAD_MB.", "content": _json(ref)}
    return result
