"""OSS request signatures: V1 (HMAC-SHA1, header and pre-signed URL) and V4
(OSS4-HMAC-SHA256, header and pre-signed URL), vendor-apis.md §4.6-§4.9.

All functions take already-decoded values (query params as a list of (key, value) pairs,
header names lower-cased) and rebuild the canonical form exactly as the SDKs do.
"""
import base64
import hashlib
import hmac
from typing import Iterable, Mapping

# oss2 ProviderAuth._subresource_key_set: only these query params enter the V1 resource.
V1_SUBRESOURCES = frozenset("""
response-content-type response-content-language response-cache-control logging
response-content-encoding acl uploadId uploads partNumber group link delete website location
objectInfo objectMeta response-expires response-content-disposition cors lifecycle restore qos
referer stat bucketInfo append position security-token live comp status vod startTime endTime
x-oss-process symlink callback callback-var tagging encryption versions versioning versionId
policy requestPayment x-oss-traffic-limit qosInfo asyncFetch x-oss-request-payer sequential
inventory inventoryId continuation-token worm wormId wormExtend replication replicationLocation
replicationProgress transferAcceleration cname metaQuery x-oss-ac-source-ip x-oss-ac-subnet-mask
x-oss-ac-vpc-id x-oss-ac-forward-allow resourceGroup style styleName x-oss-async-process
regionList x-oss-write-get-object-response bucketArchiveDirectRead httpsConfig
redundancyTransition x-oss-target-redundancy-type x-oss-redundancy-transition-taskid accessPoint
accessPointPolicy publicAccessBlock x-oss-access-point-name requesterQosInfo qosRequester
resourcePoolInfo resourcePool resourcePoolBuckets
""".split())

V4_ALGORITHM = "OSS4-HMAC-SHA256"
V4_DEFAULT_SIGNED = ("content-type", "content-md5")


# ---- V1 ---------------------------------------------------------------------------------
def v1_canonical_resource(bucket: str | None, key: str, params: Iterable[tuple[str, str]]) -> str:
    sub = sorted((k, v) for k, v in params if k in V1_SUBRESOURCES)
    base = f"/{bucket}/{key}" if bucket else "/"
    if not sub:
        return base
    return base + "?" + "&".join(f"{k}={v}" if v else k for k, v in sub)


def v1_canonical_headers(headers: Mapping[str, str]) -> str:
    oss = sorted((k, v.strip()) for k, v in headers.items() if k.startswith("x-oss-"))
    return "".join(f"{k}:{v}\n" for k, v in oss)


def v1_string_to_sign(method: str, headers: Mapping[str, str], resource: str,
                      date_override: str | None = None) -> str:
    """date_override: the Expires value for pre-signed URLs (it replaces Date)."""
    date = date_override if date_override is not None else (
        headers.get("x-oss-date") or headers.get("date", ""))
    return "\n".join([method.upper(), headers.get("content-md5", ""),
                      headers.get("content-type", ""), date]) + "\n" \
        + v1_canonical_headers(headers) + resource


def v1_sign(secret: str, string_to_sign: str) -> str:
    digest = hmac.new(secret.encode(), string_to_sign.encode("utf-8"), hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


# ---- V4 ---------------------------------------------------------------------------------
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def v4_uri_encode(text: str, keep_slash: bool) -> str:
    out = []
    for b in text.encode("utf-8"):
        if b in _UNRESERVED or (keep_slash and b == 0x2F):
            out.append(chr(b))
        else:
            out.append(f"%{b:02X}")
    return "".join(out)


def v4_canonical_uri(bucket: str | None, key: str) -> str:
    return v4_uri_encode(f"/{bucket}/{key}", True) if bucket else "/"


def v4_canonical_query(params: Iterable[tuple[str, str]]) -> str:
    enc = sorted((v4_uri_encode(k, False), v4_uri_encode(v, False)) for k, v in params)
    return "&".join(f"{k}={v}" if v else k for k, v in enc)


def v4_canonical_headers(headers: Mapping[str, str], additional: Iterable[str]) -> str:
    extra = set(additional)
    signed = sorted((k, v.strip()) for k, v in headers.items()
                    if k.startswith("x-oss-") or k in V4_DEFAULT_SIGNED or k in extra)
    return "".join(f"{k}:{v}\n" for k, v in signed)


def v4_canonical_request(method: str, bucket: str | None, key: str,
                         params: Iterable[tuple[str, str]], headers: Mapping[str, str],
                         additional: list[str]) -> str:
    payload = headers.get("x-oss-content-sha256", "UNSIGNED-PAYLOAD")
    return "\n".join([method.upper(), v4_canonical_uri(bucket, key), v4_canonical_query(params),
                      v4_canonical_headers(headers, additional), ";".join(sorted(additional)),
                      payload])


def v4_scope(date: str, region: str, product: str = "oss") -> str:
    return f"{date}/{region}/{product}/aliyun_v4_request"


def v4_string_to_sign(datetime_iso: str, scope: str, canonical_request: str) -> str:
    digest = hashlib.sha256(canonical_request.encode("utf-8")).hexdigest()
    return f"{V4_ALGORITHM}\n{datetime_iso}\n{scope}\n{digest}"


def v4_signing_key(secret: str, date: str, region: str, product: str = "oss") -> bytes:
    k = hmac.new(("aliyun_v4" + secret).encode(), date.encode(), hashlib.sha256).digest()
    k = hmac.new(k, region.encode(), hashlib.sha256).digest()
    k = hmac.new(k, product.encode(), hashlib.sha256).digest()
    return hmac.new(k, b"aliyun_v4_request", hashlib.sha256).digest()


def v4_sign(secret: str, date: str, region: str, string_to_sign: str, product: str = "oss") -> str:
    key = v4_signing_key(secret, date, region, product)
    return hmac.new(key, string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()


def parse_v4_authorization(value: str) -> dict | None:
    """'OSS4-HMAC-SHA256 Credential=..,[ ]AdditionalHeaders=..,[ ]Signature=..' -> dict."""
    if not value.startswith(V4_ALGORITHM + " "):
        return None
    fields = {}
    for part in value[len(V4_ALGORITHM) + 1:].split(","):
        name, sep, val = part.strip().partition("=")
        if not sep:
            return None
        fields[name] = val
    if "Credential" not in fields or "Signature" not in fields:
        return None
    cred = fields["Credential"].split("/")
    if len(cred) != 5 or cred[4] != "aliyun_v4_request":
        return None
    return {"access_key_id": cred[0], "date": cred[1], "region": cred[2], "product": cred[3],
            "signature": fields["Signature"],
            "additional": [h for h in fields.get("AdditionalHeaders", "").split(";") if h]}
