"""Request authentication for both planes.

Data plane: `Authorization: Bearer <api_key>` or a V4 signature (service vikingdb).
Control plane: V4 signature only (the API key is a data-plane credential, §5.1b).
Error codes for signature problems are the Volcengine OpenAPI gateway's common ones.
"""
from __future__ import annotations

import calendar
import hashlib
import hmac
import time
from dataclasses import dataclass, field

from vdb_errors import ApiError
import vdb_signing as signing

DEFAULT_API_KEYS = ["test-api-key"]
DEFAULT_ACCESS_KEYS = {"AKTEST": "SKTEST"}
SERVICE = "vikingdb"


@dataclass
class Credentials:
    api_keys: set[str] = field(default_factory=lambda: set(DEFAULT_API_KEYS))
    access_keys: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ACCESS_KEYS))
    # None disables the X-Date freshness check (needed to replay fixed test vectors).
    max_clock_skew_seconds: float | None = 900.0
    # The server's clock this far ahead of the host's (negative: behind): a client with a skewed
    # clock, as the server sees it.
    clock_offset_seconds: float = 0.0


@dataclass
class AuthResult:
    method: str           # "api_key" or "ak_sk"
    principal: str        # the key or AK
    region: str = "cn-beijing"


def _unauthorized(code: str, message: str) -> ApiError:
    return ApiError(401, code, message)


def _parse_x_date(value: str) -> float | None:
    try:
        return calendar.timegm(time.strptime(value, "%Y%m%dT%H%M%SZ"))
    except ValueError:
        return None


def verify_signature(creds: Credentials, method: str, path: str, raw_query: str,
                     headers, body: bytes) -> AuthResult:
    """headers: a case-insensitive mapping (aiohttp CIMultiDictProxy)."""
    parsed = signing.parse_authorization(headers.get("Authorization", ""))
    if parsed is None:
        raise _unauthorized("InvalidAuthorization", "The Authorization header is malformed.")
    secret = creds.access_keys.get(parsed.access_key)
    if secret is None:
        raise _unauthorized("InvalidAccessKey",
                            f"The accesskey [{parsed.access_key}] included in the request is invalid.")
    if parsed.service != SERVICE or parsed.terminator != "request":
        raise _unauthorized("SignatureDoesNotMatch",
                            f"Credential scope must be <date>/<region>/{SERVICE}/request.")
    x_date = headers.get("X-Date", "")
    ts = _parse_x_date(x_date)
    if ts is None or x_date[:8] != parsed.date:
        raise ApiError(400, "InvalidTimestamp", "The X-Date header is missing or does not match the credential scope.")
    if creds.max_clock_skew_seconds is not None and abs(time.time() + creds.clock_offset_seconds - ts) > creds.max_clock_skew_seconds:
        raise ApiError(400, "InvalidTimestamp", "The signature of the request is expired.")
    # The signed payload hash must be the hash of the body actually received.
    body_hash = hashlib.sha256(body).hexdigest()
    claimed = headers.get("X-Content-Sha256")
    if claimed is not None and claimed.lower() != body_hash:
        raise _unauthorized("SignatureDoesNotMatch", "X-Content-Sha256 does not match the request body.")
    lower_headers = {}
    for name in parsed.signed_headers:
        if name not in headers:
            raise _unauthorized("SignatureDoesNotMatch", f"Signed header '{name}' is absent from the request.")
        lower_headers[name] = headers.get(name)
    canonical = signing.canonical_request(method, path, raw_query, lower_headers,
                                          parsed.signed_headers, claimed or body_hash)
    expected = signing.signature(secret, x_date, parsed.region, parsed.service, canonical)
    if not hmac.compare_digest(expected, parsed.signature):
        raise _unauthorized(
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided. "
            "Check your Secret Access Key and signing method.")
    return AuthResult("ak_sk", parsed.access_key, parsed.region)


def authenticate_data(creds: Credentials, method: str, path: str, raw_query: str,
                      headers, body: bytes) -> AuthResult:
    value = headers.get("Authorization")
    if not value:
        raise _unauthorized("Unauthorized", "The request is missing the Authorization header (API key or AK/SK signature).")
    if value.startswith("Bearer "):
        key = value[len("Bearer "):].strip()
        if key not in creds.api_keys:
            raise _unauthorized("Unauthorized", "The API key is invalid.")
        return AuthResult("api_key", key)
    return verify_signature(creds, method, path, raw_query, headers, body)


def authenticate_control(creds: Credentials, method: str, path: str, raw_query: str,
                         headers, body: bytes) -> AuthResult:
    value = headers.get("Authorization")
    if not value:
        raise _unauthorized("MissingAuthenticationToken", "Request is missing Authentication Token.")
    if value.startswith("Bearer "):
        raise _unauthorized("MissingAuthenticationToken",
                            "The control plane accepts only AK/SK (Volcengine V4) signatures, not API keys.")
    return verify_signature(creds, method, path, raw_query, headers, body)
