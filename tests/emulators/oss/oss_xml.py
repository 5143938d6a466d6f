"""OSS XML bodies: ListObjects v1/v2, DeleteObjects result, errors (vendor-apis.md §4.2-§4.5).

No xmlns on ListBucketResult: oss2 looks children up without a namespace.
"""
import time
from urllib.parse import quote
from xml.sax.saxutils import escape

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def _el(name: str, value) -> str:
    return f"<{name}>{escape(str(value))}</{name}>"


def iso8601(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ts))


def http_date(ts: float) -> str:
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(ts))


def url_encode(text: str) -> str:
    return quote(text, safe="")


def _contents(obj, owner: tuple[str, str] | None, enc) -> str:
    parts = [_el("Key", enc(obj.key)), _el("LastModified", iso8601(obj.mtime)),
             _el("ETag", f'"{obj.etag}"'), _el("Type", obj.obj_type), _el("Size", obj.size),
             _el("StorageClass", "Standard")]
    if owner:
        parts.append(f"<Owner>{_el('ID', owner[0])}{_el('DisplayName', owner[1])}</Owner>")
    return "<Contents>" + "".join(parts) + "</Contents>"


def list_v1(bucket: str, prefix: str, marker: str, max_keys: int, delimiter: str,
            encoding: str, contents, prefixes, truncated: bool, next_marker: str | None,
            owner: tuple[str, str]) -> str:
    enc = url_encode if encoding == "url" else (lambda s: s)
    out = [HEAD, "<ListBucketResult>", _el("Name", bucket), _el("Prefix", enc(prefix)),
           _el("Marker", enc(marker)), _el("MaxKeys", max_keys), _el("Delimiter", enc(delimiter))]
    if encoding:
        out.append(_el("EncodingType", encoding))
    out.append(_el("IsTruncated", "true" if truncated else "false"))
    if truncated and next_marker is not None:
        out.append(_el("NextMarker", enc(next_marker)))
    out.extend(_contents(o, owner, enc) for o in contents)
    out.extend(f"<CommonPrefixes>{_el('Prefix', enc(p))}</CommonPrefixes>" for p in prefixes)
    out.append("</ListBucketResult>")
    return "".join(out)


def list_v2(bucket: str, prefix: str, continuation_token: str | None, start_after: str | None,
            max_keys: int, delimiter: str, encoding: str, contents, prefixes, truncated: bool,
            next_token: str | None, owner: tuple[str, str] | None) -> str:
    enc = url_encode if encoding == "url" else (lambda s: s)
    out = [HEAD, "<ListBucketResult>", _el("Name", bucket), _el("Prefix", enc(prefix))]
    if continuation_token:
        out.append(_el("ContinuationToken", enc(continuation_token)))
    if start_after:
        out.append(_el("StartAfter", enc(start_after)))
    out += [_el("MaxKeys", max_keys), _el("Delimiter", enc(delimiter))]
    if encoding:
        out.append(_el("EncodingType", encoding))
    out.append(_el("IsTruncated", "true" if truncated else "false"))
    if truncated and next_token:
        out.append(_el("NextContinuationToken", enc(next_token)))
    out.extend(_contents(o, owner, enc) for o in contents)
    out.extend(f"<CommonPrefixes>{_el('Prefix', enc(p))}</CommonPrefixes>" for p in prefixes)
    out.append(_el("KeyCount", len(contents) + len(prefixes)))
    out.append("</ListBucketResult>")
    return "".join(out)


def delete_result(deleted_keys: list[str], encoding: str) -> str:
    enc = url_encode if encoding == "url" else (lambda s: s)
    out = [HEAD, "<DeleteResult>"]
    if encoding:
        out.append(_el("EncodingType", encoding))
    out.extend(f"<Deleted>{_el('Key', enc(k))}</Deleted>" for k in deleted_keys)
    out.append("</DeleteResult>")
    return "".join(out)


def copy_result(obj) -> str:
    return (HEAD + "<CopyObjectResult>" + _el("ETag", f'"{obj.etag}"')
            + _el("LastModified", iso8601(obj.mtime)) + "</CopyObjectResult>")


def error(code: str, message: str, request_id: str, host_id: str, ec: str, extra: dict) -> str:
    parts = [_el("Code", code), _el("Message", message), _el("RequestId", request_id),
             _el("HostId", host_id)]
    parts += [_el(k, v) for k, v in extra.items()]
    if ec:
        parts += [_el("EC", ec), _el("RecommendDoc", f"https://api.aliyun.com/troubleshoot?q={ec}")]
    return HEAD + "<Error>" + "".join(parts) + "</Error>"
