"""Error type and the two VikingDB V2 response envelopes.

Data plane (flat):    {"code": "...", "message": "...", "request_id": "...", "result": ...}
Control plane (OpenAPI): {"ResponseMetadata": {..., "Error": {"Code", "Message"}}, "Result": ...}
Codes follow vendor-apis.md §5.2/§5.7 and the V2 error-code page
("NotFound.VikingdbCollection" style, one set of codes for both planes).
"""
from __future__ import annotations

import os
import time

SUCCESS_MESSAGE = "The API call was executed successfully."


class ApiError(Exception):
    """Raised anywhere in a handler; rendered in the plane's envelope."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def invalid(message: str) -> ApiError:
    return ApiError(400, "InvalidParameter", message)


def missing(name: str) -> ApiError:
    return ApiError(400, "MissingParameter", f"The request is missing {name} parameter.")


def collection_not_found(name: str) -> ApiError:
    return ApiError(404, "NotFound.VikingdbCollection",
                    f"The specified collection '{name}' of VikingDB does not exist.")


def index_not_found(name: str) -> ApiError:
    return ApiError(404, "NotFound.VikingdbIndex",
                    f"The specified index '{name}' of VikingDB does not exist.")


def new_request_id() -> str:
    # Same shape as the vendor's ids: "021" + ms timestamp + hex noise.
    return "021%d%s" % (int(time.time() * 1000), os.urandom(12).hex())


def data_ok(request_id: str, result=None) -> dict:
    return {"code": "Success", "message": SUCCESS_MESSAGE,
            "request_id": request_id, "result": result}


def data_error(request_id: str, err: ApiError) -> dict:
    return {"code": err.code, "message": err.message,
            "request_id": request_id, "result": None}


def control_metadata(request_id: str, action: str, region: str) -> dict:
    return {"RequestId": request_id, "Action": action, "Version": "2025-06-09",
            "Service": "vikingdb", "Region": region}


def control_ok(request_id: str, action: str, region: str, result) -> dict:
    return {"ResponseMetadata": control_metadata(request_id, action, region),
            "Result": result}


def control_error(request_id: str, action: str, region: str, err: ApiError) -> dict:
    meta = control_metadata(request_id, action, region)
    meta["Error"] = {"Code": err.code, "Message": err.message}
    return {"ResponseMetadata": meta}
