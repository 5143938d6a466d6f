"""MNS request signature (HMAC-SHA1), vendor-apis.md §2.2.

CanonicalizedResource is the raw request-target (path + '?' + query exactly as sent): the
python SDK does not URL-encode ReceiptHandle, so re-encoding would break verification.
"""
import base64
import hashlib
import hmac
from typing import Mapping


def string_to_sign(method: str, headers: Mapping[str, str], raw_target: str) -> str:
    """`headers` must be keyed by lower-case names."""
    date = headers.get("date") or headers.get("x-mns-date", "")
    mns_headers = sorted((k, v) for k, v in headers.items() if k.startswith("x-mns-"))
    canonical_headers = "".join(f"{k}:{v}\n" for k, v in mns_headers)
    return "\n".join([method.upper(), headers.get("content-md5", ""),
                      headers.get("content-type", ""), date]) + "\n" + canonical_headers + raw_target


def sign(secret: str, to_sign: str) -> str:
    digest = hmac.new(secret.encode("utf-8"), to_sign.encode("utf-8"), hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


def parse_authorization(value: str) -> tuple[str, str] | None:
    """'MNS <ak>:<signature>' -> (ak, signature); None when malformed."""
    if not value.startswith("MNS "):
        return None
    ak, sep, sig = value[4:].strip().partition(":")
    if not sep or not ak or not sig:
        return None
    return ak, sig
