"""The API schema's error answers (a drf-spectacular postprocessing hook).

drf-spectacular documents each operation's success only, so the schema said nothing of the 400, 401, 403, 404,
... that every operation can answer, and a client generated from it (or schemathesis) could not tell an answer
the API means from a defect. Every operation now documents the error answers it can give, with the body DRF
sends: ``{"detail": "..."}``, or for a refused input the fields, each with its messages.
"""

from __future__ import annotations

from typing import Any

ERROR = {
    "type": "object",
    "description": "Why the request was refused: {\"detail\": \"...\"}, or for a refused input each field with "
                   "its messages ({\"field\": [\"...\"]}) and \"non_field_errors\" for the input as a whole.",
    "additionalProperties": True,
    "properties": {"detail": {"type": "string"}},
}

# status: (when, the operations that can answer it)
ANSWERS = {
    "400": "the input is refused (each field with its reason)",
    "401": "no valid session or token (missing, expired, revoked or unknown)",
    "403": "the role, the token's scope or the department does not allow it",
    "404": "no such object, or not one of the caller's departments'",
    "405": "the method is not allowed here",
    "406": "the Accept header asks for a format the API does not give",
    "409": "the change conflicts with what refers to the object (e.g. a node type benchmarks cite)",
    "413": "the upload is larger than the limit",
    "415": "the body's content type is not one the operation reads",
    "429": "too many requests",
}
ANY_METHOD = ("400", "401", "403", "404", "405", "406", "429")
WRITES = ("409", "413", "415")


def add_error_answers(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS entry: every operation documents the errors it can answer, with one Error body."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    ref = {"$ref": "#/components/schemas/Error"}
    for path in (result.get("paths") or {}).values():
        for method, operation in path.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            codes = ANY_METHOD + (WRITES if method in ("post", "put", "patch", "delete") else ())
            for code in codes:
                operation["responses"].setdefault(code, {
                    "description": ANSWERS[code], "content": {"application/json": {"schema": ref}}})
    return result
