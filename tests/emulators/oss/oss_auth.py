"""Verifies OSS request authentication: V1 header, V1 pre-signed URL, V4 header, V4
pre-signed URL (vendor-apis.md §4.6-§4.9). Raises OssError the way OSS answers."""
import calendar
import email.utils
import time

import oss_signing as sig
from oss_store import OssError

MAX_SKEW_S = 15 * 60
MAX_V4_EXPIRES_S = 7 * 24 * 3600


def _sig_mismatch(ak: str, provided: str, string_to_sign: str, ec: str, canonical: str | None = None):
    extra = {"OSSAccessKeyId": ak, "SignatureProvided": provided, "StringToSign": string_to_sign,
             "StringToSignBytes": " ".join(f"{b:02X}" for b in string_to_sign.encode())}
    if canonical is not None:
        extra["CanonicalRequest"] = canonical
    return OssError(403, "SignatureDoesNotMatch",
                    "The request signature we calculated does not match the signature you "
                    "provided. Check your key and signing method.", ec, **extra)


def _expired() -> OssError:
    return OssError(403, "AccessDenied", "Request has expired.", "0002-00000069")


class Credentials:
    def __init__(self):
        self.keys: dict[str, tuple[str, str]] = {}

    def lookup(self, ak: str) -> tuple[str, str]:
        if ak not in self.keys:
            raise OssError(403, "InvalidAccessKeyId",
                           "The OSS Access Key Id you provided does not exist in our records.",
                           "0002-00000005", OSSAccessKeyId=ak)
        return self.keys[ak]


def _check_token(expected: str, given: str | None) -> None:
    if expected and given != expected:
        raise OssError(403, "InvalidSecurityToken", "The security token you provided is invalid.",
                       "0002-00000011")


def _parse_iso_basic(value: str) -> float:
    try:
        return calendar.timegm(time.strptime(value, "%Y%m%dT%H%M%SZ"))
    except ValueError:
        raise OssError(400, "InvalidArgument", "x-oss-date is not a valid ISO 8601 basic time.",
                       "0002-00000218", ArgumentName="x-oss-date", ArgumentValue=value)


def verify(method: str, headers: dict, params: list[tuple[str, str]], bucket: str | None,
           key: str, creds: Credentials, region: str, now: float | None = None) -> str:
    """Returns the access key id that signed the request."""
    now = time.time() if now is None else now
    qmap = dict(params)
    auth = headers.get("authorization")
    if auth is not None:
        if auth.startswith(sig.V4_ALGORITHM):
            return _verify_v4_header(method, headers, params, bucket, key, creds, region, now, auth)
        if auth.startswith("OSS "):
            return _verify_v1_header(method, headers, params, bucket, key, creds, now, auth)
        raise OssError(400, "InvalidArgument", "Authorization header is invalid.", "0002-00000001",
                       ArgumentName="Authorization", ArgumentValue=auth)
    if "x-oss-signature" in qmap:
        return _verify_v4_query(method, headers, params, bucket, key, creds, region, now)
    if "Signature" in qmap or "OSSAccessKeyId" in qmap:
        return _verify_v1_query(method, headers, params, bucket, key, creds, now)
    raise OssError(403, "AccessDenied",
                   "You have no right to access this object because of bucket acl.", "0003-00000001")


def _verify_v1_header(method, headers, params, bucket, key, creds, now, auth) -> str:
    ak, sep, provided = auth[4:].strip().partition(":")
    if not sep:
        raise OssError(400, "InvalidArgument", "Authorization header is invalid.", "0002-00000001",
                       ArgumentName="Authorization", ArgumentValue=auth)
    secret, token = creds.lookup(ak)
    date = headers.get("x-oss-date") or headers.get("date")
    if not date:
        raise OssError(403, "AccessDenied", "Missing Date header.", "0002-00000012")
    try:
        ts = email.utils.parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError):
        raise OssError(403, "AccessDenied", "Invalid date format.", "0002-00000013")
    if abs(now - ts) > MAX_SKEW_S:
        raise OssError(403, "RequestTimeTooSkewed",
                       "The difference between the request time and the current time is too large.",
                       "0002-00000504", RequestTime=date, ServerTime=email.utils.formatdate(now, usegmt=True))
    sts = sig.v1_string_to_sign(method, headers, sig.v1_canonical_resource(bucket, key, params))
    if sig.v1_sign(secret, sts) != provided:
        raise _sig_mismatch(ak, provided, sts, "0002-00000040")
    _check_token(token, headers.get("x-oss-security-token"))
    return ak


def _verify_v1_query(method, headers, params, bucket, key, creds, now) -> str:
    q = dict(params)
    ak, expires, provided = q.get("OSSAccessKeyId", ""), q.get("Expires", ""), q.get("Signature", "")
    if not (ak and expires and provided):
        raise OssError(403, "AccessDenied",
                       "Pre-signed URL needs OSSAccessKeyId, Expires and Signature.", "0002-00000020")
    secret, token = creds.lookup(ak)
    if not expires.isdigit():
        raise OssError(403, "AccessDenied", "Invalid expires.", "0002-00000068")
    if now > int(expires):
        raise _expired()
    sts = sig.v1_string_to_sign(method, headers, sig.v1_canonical_resource(bucket, key, params),
                                date_override=expires)
    if sig.v1_sign(secret, sts) != provided:
        raise _sig_mismatch(ak, provided, sts, "0002-00000042")
    _check_token(token, q.get("security-token"))
    return ak


def _check_scope(scope_ak, scope_date, scope_region, product, datetime_iso, region, creds):
    secret, token = creds.lookup(scope_ak)
    if scope_region != region:
        raise OssError(400, "InvalidArgument",
                       f"Invalid signing region in Authorization header; expected {region}.",
                       "0002-00000233", ArgumentName="region", ArgumentValue=scope_region)
    if product != "oss":
        raise OssError(400, "InvalidArgument", "Invalid signing product in Authorization header.",
                       "0002-00000234", ArgumentName="product", ArgumentValue=product)
    if scope_date != datetime_iso[:8]:
        raise OssError(400, "InvalidArgument", "Invalid signing date in Authorization header.",
                       "0002-00000230", ArgumentName="date", ArgumentValue=scope_date)
    return secret, token


def _verify_v4_header(method, headers, params, bucket, key, creds, region, now, auth) -> str:
    parsed = sig.parse_v4_authorization(auth)
    if parsed is None:
        raise OssError(400, "InvalidArgument", "Authorization header is invalid.", "0002-00000001",
                       ArgumentName="Authorization", ArgumentValue=auth)
    datetime_iso = headers.get("x-oss-date")
    if not datetime_iso:
        raise OssError(400, "InvalidArgument", "Missing x-oss-date header.", "0002-00000215",
                       ArgumentName="x-oss-date", ArgumentValue="")
    if "x-oss-content-sha256" not in headers:
        raise OssError(400, "InvalidArgument", "Missing x-oss-content-sha256 header.", "0002-00000214",
                       ArgumentName="x-oss-content-sha256", ArgumentValue="")
    if abs(now - _parse_iso_basic(datetime_iso)) > MAX_SKEW_S:
        raise OssError(403, "RequestTimeTooSkewed",
                       "The difference between the request time and the current time is too large.",
                       "0002-00000504")
    secret, token = _check_scope(parsed["access_key_id"], parsed["date"], parsed["region"],
                                 parsed["product"], datetime_iso, region, creds)
    canonical = sig.v4_canonical_request(method, bucket, key, params, headers, parsed["additional"])
    sts = sig.v4_string_to_sign(datetime_iso, sig.v4_scope(parsed["date"], parsed["region"]), canonical)
    if sig.v4_sign(secret, parsed["date"], parsed["region"], sts) != parsed["signature"]:
        raise _sig_mismatch(parsed["access_key_id"], parsed["signature"], sts, "0002-00000228", canonical)
    _check_token(token, headers.get("x-oss-security-token"))
    return parsed["access_key_id"]


def _verify_v4_query(method, headers, params, bucket, key, creds, region, now) -> str:
    q = dict(params)
    if q.get("x-oss-signature-version") != sig.V4_ALGORITHM:
        raise OssError(400, "InvalidArgument", "Unsupported x-oss-signature-version.",
                       "0002-00000223", ArgumentName="x-oss-signature-version",
                       ArgumentValue=q.get("x-oss-signature-version", ""))
    cred = q.get("x-oss-credential", "").split("/")
    datetime_iso, expires = q.get("x-oss-date", ""), q.get("x-oss-expires", "")
    if len(cred) != 5 or cred[4] != "aliyun_v4_request" or not datetime_iso or not expires.isdigit():
        raise OssError(400, "InvalidArgument", "Invalid pre-signed V4 query parameters.",
                       "0002-00000224", ArgumentName="x-oss-credential",
                       ArgumentValue=q.get("x-oss-credential", ""))
    if int(expires) > MAX_V4_EXPIRES_S:
        raise OssError(400, "InvalidArgument", "x-oss-expires must be at most 604800 seconds.",
                       "0002-00000225", ArgumentName="x-oss-expires", ArgumentValue=expires)
    if now > _parse_iso_basic(datetime_iso) + int(expires):
        raise _expired()
    secret, token = _check_scope(cred[0], cred[1], cred[2], cred[3], datetime_iso, region, creds)
    additional = [h for h in q.get("x-oss-additional-headers", "").split(";") if h]
    signed_params = [(k, v) for k, v in params if k != "x-oss-signature"]
    canonical = sig.v4_canonical_request(method, bucket, key, signed_params, headers, additional)
    sts = sig.v4_string_to_sign(datetime_iso, sig.v4_scope(cred[1], cred[2]), canonical)
    provided = q["x-oss-signature"]
    if sig.v4_sign(secret, cred[1], cred[2], sts) != provided:
        raise _sig_mismatch(cred[0], provided, sts, "0002-00000228", canonical)
    _check_token(token, q.get("x-oss-security-token"))
    return cred[0]
