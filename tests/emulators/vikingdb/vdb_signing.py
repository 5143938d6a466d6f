"""Volcengine Signature V4 (HMAC-SHA256), server side.

Algorithm from vendor-apis.md §5.1 (volcengine SignerV4 / volcenginesdkcore signv4):
the signing key has no prefix and the scope ends with "request". The server
recomputes the signature over exactly the headers listed in SignedHeaders,
because the data-plane SDK signs only content-type;x-content-sha256;x-date
while the control-plane SDK also signs host.
"""
from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

ALGORITHM = "HMAC-SHA256"
_AUTH_RE = re.compile(
    r"^HMAC-SHA256\s+Credential=([^,\s]+)\s*,\s*SignedHeaders=([^,\s]*)\s*,\s*Signature=([0-9a-fA-F]+)\s*$")


@dataclass
class ParsedAuthorization:
    access_key: str
    date: str        # yyyyMMdd from the credential scope
    region: str
    service: str
    terminator: str
    signed_headers: list[str]
    signature: str


def parse_authorization(value: str) -> ParsedAuthorization | None:
    m = _AUTH_RE.match(value.strip())
    if not m:
        return None
    parts = m.group(1).split("/")
    if len(parts) != 5:
        return None
    headers = [h for h in m.group(2).split(";") if h]
    return ParsedAuthorization(parts[0], parts[1], parts[2], parts[3], parts[4],
                               headers, m.group(3).lower())


def norm_uri(path: str) -> str:
    # Util.norm_uri: quote(path) keeping '/', spaces as %20.
    return quote(unquote(path), safe="/-_.~")


def norm_query(raw_query: str) -> str:
    """Canonical query: keys sorted, repeated keys expanded, RFC3986 escaping."""
    pairs = []
    if raw_query:
        for item in raw_query.split("&"):
            if not item:
                continue
            k, _, v = item.partition("=")
            k = unquote(k.replace("+", " "))
            v = unquote(v.replace("+", " "))
            pairs.append((quote(k, safe="-_.~"), quote(v, safe="-_.~")))
    pairs.sort()
    return "&".join(f"{k}={v}" for k, v in pairs)


def canonical_request(method: str, path: str, raw_query: str,
                      headers: dict[str, str], signed_headers: list[str],
                      payload_hash: str) -> str:
    lines = []
    for name in sorted(signed_headers):
        value = headers.get(name, "")
        if name == "host" and ":" in value:
            host, _, port = value.rpartition(":")
            if port in ("80", "443"):
                value = host
        lines.append(f"{name}:{value}\n")
    return "\n".join([method, norm_uri(path), norm_query(raw_query),
                      "".join(lines), ";".join(sorted(signed_headers)), payload_hash])


def signing_key(secret_key: str, date: str, region: str, service: str) -> bytes:
    k = hmac.new(secret_key.encode(), date.encode(), hashlib.sha256).digest()
    k = hmac.new(k, region.encode(), hashlib.sha256).digest()
    k = hmac.new(k, service.encode(), hashlib.sha256).digest()
    return hmac.new(k, b"request", hashlib.sha256).digest()


def signature(secret_key: str, x_date: str, region: str, service: str,
              canonical: str) -> str:
    scope = "/".join([x_date[:8], region, service, "request"])
    to_sign = "\n".join([ALGORITHM, x_date, scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    key = signing_key(secret_key, x_date[:8], region, service)
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def sign_headers(access_key: str, secret_key: str, region: str, service: str,
                 method: str, path: str, raw_query: str, headers: dict[str, str],
                 body: bytes, x_date: str) -> dict[str, str]:
    """Client-side helper used by the plain-HTTP tests: returns headers to add.

    Signs Content-Type, Host and every X-* header present, like the SDKs do.
    """
    payload_hash = hashlib.sha256(body).hexdigest()
    all_headers = {k.lower(): v for k, v in headers.items()}
    all_headers["x-date"] = x_date
    all_headers["x-content-sha256"] = payload_hash
    signed = sorted(k for k in all_headers
                    if k in ("content-type", "content-md5", "host") or k.startswith("x-"))
    canonical = canonical_request(method, path, raw_query, all_headers, signed, payload_hash)
    sig = signature(secret_key, x_date, region, service, canonical)
    scope = "/".join([x_date[:8], region, service, "request"])
    return {
        "X-Date": x_date,
        "X-Content-Sha256": payload_hash,
        "Authorization": f"{ALGORITHM} Credential={access_key}/{scope}, "
                         f"SignedHeaders={';'.join(signed)}, Signature={sig}",
    }
