"""OSS object/bucket API on top of OssStore: addressing, auth, faults, actions, events."""
import base64
import hashlib
import json
import re
import time
import uuid
from urllib.parse import unquote, unquote_plus

from aiohttp import web

import emu_faults
import oss_auth
import oss_xml
from oss_store import Obj, OssError

_EVENT_OK = base64.b64encode(b'{"Result":"Ok"}').decode()
_RANGE_RE = re.compile(r"^bytes=(\d*)-(\d*)$")
_VHOST_SUFFIXES = (".127.0.0.1", ".localhost")


def parse_target(raw_target: str, host: str) -> tuple[str | None, str, list[tuple[str, str]]]:
    """Returns (bucket, key, params). Virtual-host style when Host is `<bucket>.127.0.0.1[:port]`
    or `<bucket>.localhost[:port]`, else path style `/<bucket>/<key>`."""
    raw_path, _, query = raw_target.partition("?")
    params = []
    for part in query.split("&"):
        if part:
            k, _, v = part.partition("=")
            params.append((unquote_plus(k), unquote_plus(v)))
    path = unquote(raw_path)
    hostname = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    for suffix in _VHOST_SUFFIXES:
        if hostname.endswith(suffix) and len(hostname) > len(suffix):
            return hostname[: -len(suffix)], path[1:], params
    parts = path[1:].split("/", 1)
    bucket = parts[0] or None
    return bucket, (parts[1] if len(parts) > 1 else ""), params


def classify(method: str, bucket: str | None, key: str, q: dict, headers) -> str:
    if bucket is None:
        return "ListBuckets" if method == "GET" else "Unknown"
    if not key:
        if method == "GET":
            return "ListObjectsV2" if q.get("list-type") == "2" else "ListObjects"
        if method == "POST" and "delete" in q:
            return "DeleteObjects"
        return {"PUT": "PutBucket", "DELETE": "DeleteBucket"}.get(method, "Unknown")
    if method == "PUT":
        return "CopyObject" if "x-oss-copy-source" in headers else "PutObject"
    if method == "POST" and "append" in q:
        return "AppendObject"
    return {"GET": "GetObject", "HEAD": "HeadObject", "DELETE": "DeleteObject"}.get(method, "Unknown")


def _int_param(q: dict, name: str, default: int, low: int, high: int) -> int:
    raw = q.get(name, "")
    if raw == "":
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise OssError(400, "InvalidArgument", f"Argument {name} must be an integer between {low} and {high}.",
                       "0015-00000205", ArgumentName=name, ArgumentValue=raw)
    return int(raw)


def _encoding(q: dict) -> str:
    enc = q.get("encoding-type", "")
    if enc not in ("", "url"):
        raise OssError(400, "InvalidArgument", "The Encoding-Type is invalid.", "0015-00000206",
                       ArgumentName="encoding-type", ArgumentValue=enc)
    return enc


def encode_token(item: str) -> str:
    return base64.urlsafe_b64encode(item.encode("utf-8")).decode("ascii")


def decode_token(token: str) -> str:
    try:
        return base64.urlsafe_b64decode(token.encode("ascii")).decode("utf-8")
    except Exception:
        raise OssError(400, "InvalidArgument", "The continuation token provided is incorrect.",
                       "0015-00000207", ArgumentName="continuation-token", ArgumentValue=token)


class OssApi:
    def __init__(self, state) -> None:
        self.state = state  # OssState: store, faults, credentials, notifier, verify flag, region

    # ---- plumbing -----------------------------------------------------------------------
    def _headers(self, rid: str, extra: dict | None = None) -> dict:
        h = {"x-oss-request-id": rid, "Server": "AliyunOSS", "Date": oss_xml.http_date(time.time())}
        if extra:
            h.update(extra)
        return h

    def _xml(self, status: int, body: str, rid: str, extra: dict | None = None) -> web.Response:
        return web.Response(status=status, body=body.encode("utf-8"), content_type="application/xml",
                            headers=self._headers(rid, extra))

    def _error(self, request: web.Request, err: OssError, rid: str) -> web.Response:
        body = oss_xml.error(err.code, err.message, rid, request.host, err.ec, err.extra)
        extra = {"x-oss-ec": err.ec} if err.ec else {}
        if request.method == "HEAD":  # no body: OSS puts the XML base64-encoded in x-oss-err
            extra["x-oss-err"] = base64.b64encode(body.encode()).decode()
            return web.Response(status=err.status, headers=self._headers(rid, extra))
        return self._xml(err.status, body, rid, extra)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        rid = uuid.uuid4().hex[:24].upper()
        bucket, key, params = parse_target(request.raw_path, request.host)
        q = dict(params)
        headers = {k.lower(): v for k, v in request.headers.items()}
        action = classify(request.method, bucket, key, q, headers)
        try:
            st = self.state
            sent = await emu_faults.play(
                st.faults, action, request,
                throttled=lambda rule: OssError(
                    rule.status or 503, rule.code or "TotalQpsLimitExceeded",
                    rule.message or "Max total qps limit is exceeded", "0016-00000502"),
                failed=lambda rule: OssError(
                    rule.status or 500, rule.code or "InternalError",
                    rule.message or "We encountered an internal error. Please try again.",
                    "0016-00000001"))
            if sent is not None:
                return sent
            if st.verify_signatures:
                oss_auth.verify(request.method, headers, params, bucket, key, st.credentials, st.region,
                                now=time.time() + st.clock_offset_s)
            if action == "Unknown":
                raise OssError(400, "InvalidArgument", "Unsupported operation.", "0016-00000100",
                               ArgumentName="method", ArgumentValue=request.method)
            return await getattr(self, "_" + action)(request, bucket, key, q, headers, rid)
        except OssError as err:
            return self._error(request, err, rid)

    async def _notify(self, request, bucket: str, event: str, obj: dict, rid: str) -> int:
        return await self.state.notifier.publish(bucket, event, obj, rid, request.remote or "127.0.0.1")

    def _object_headers(self, obj: Obj, rid: str) -> dict:
        h = {"ETag": f'"{obj.etag}"', "Last-Modified": oss_xml.http_date(obj.mtime),
             "x-oss-object-type": obj.obj_type, "x-oss-storage-class": "Standard",
             "Accept-Ranges": "bytes", "Content-Type": obj.content_type}
        if obj.obj_type == "Normal":
            h["Content-MD5"] = obj.content_md5
        if obj.crc64 is not None:
            h["x-oss-hash-crc64ecma"] = str(obj.crc64)
        if obj.obj_type == "Appendable":
            h["x-oss-next-append-position"] = str(obj.size)
        h.update(obj.meta)
        return self._headers(rid, h)

    # ---- buckets ------------------------------------------------------------------------
    async def _ListBuckets(self, request, bucket, key, q, headers, rid):
        owner = self.state.owner_id
        items = "".join(
            f"<Bucket><CreationDate>{oss_xml.iso8601(b.created)}</CreationDate>"
            f"<ExtranetEndpoint>oss-{b.region}.aliyuncs.com</ExtranetEndpoint>"
            f"<IntranetEndpoint>oss-{b.region}-internal.aliyuncs.com</IntranetEndpoint>"
            f"<Location>oss-{b.region}</Location><Name>{b.name}</Name><Region>{b.region}</Region>"
            f"<StorageClass>Standard</StorageClass></Bucket>"
            for b in sorted(self.state.store.buckets.values(), key=lambda b: b.name))
        body = (f"{oss_xml.HEAD}<ListAllMyBucketsResult><Owner><ID>{owner}</ID>"
                f"<DisplayName>{owner}</DisplayName></Owner><Buckets>{items}</Buckets>"
                f"</ListAllMyBucketsResult>")
        return self._xml(200, body, rid)

    async def _PutBucket(self, request, bucket, key, q, headers, rid):
        self.state.store.create_bucket(bucket)
        return web.Response(status=200, headers=self._headers(rid, {"Location": f"/{bucket}"}))

    async def _DeleteBucket(self, request, bucket, key, q, headers, rid):
        self.state.store.delete_bucket(bucket)
        return web.Response(status=204, headers=self._headers(rid))

    async def _ListObjects(self, request, bucket, key, q, headers, rid):
        b = self.state.store.bucket(bucket)
        max_keys = _int_param(q, "max-keys", 100, 0, 1000)
        enc = _encoding(q)
        prefix, delimiter, marker = q.get("prefix", ""), q.get("delimiter", ""), q.get("marker", "")
        contents, prefixes, truncated, last = b.list(prefix, delimiter, marker, max_keys)
        body = oss_xml.list_v1(bucket, prefix, marker, max_keys, delimiter, enc, contents,
                               prefixes, truncated, last, self.state.owner_pair())
        return self._xml(200, body, rid)

    async def _ListObjectsV2(self, request, bucket, key, q, headers, rid):
        b = self.state.store.bucket(bucket)
        max_keys = _int_param(q, "max-keys", 100, 0, 1000)
        enc = _encoding(q)
        prefix, delimiter = q.get("prefix", ""), q.get("delimiter", "")
        token, start_after = q.get("continuation-token", ""), q.get("start-after", "")
        after = decode_token(token) if token else start_after
        fetch_owner = q.get("fetch-owner", "false").lower() == "true"
        contents, prefixes, truncated, last = b.list(prefix, delimiter, after, max_keys)
        body = oss_xml.list_v2(bucket, prefix, token or None, start_after or None, max_keys,
                               delimiter, enc, contents, prefixes, truncated,
                               encode_token(last) if truncated and last else None,
                               self.state.owner_pair() if fetch_owner else None)
        return self._xml(200, body, rid)

    async def _DeleteObjects(self, request, bucket, key, q, headers, rid):
        from xml.etree import ElementTree
        b = self.state.store.bucket(bucket)
        body = await request.read()
        if "content-md5" in headers and \
                base64.b64encode(hashlib.md5(body).digest()).decode() != headers["content-md5"]:
            raise OssError(400, "InvalidDigest", "The Content-MD5 you specified was invalid.", "0016-00000401")
        try:
            root = ElementTree.fromstring(body)
        except ElementTree.ParseError:
            raise OssError(400, "MalformedXML", "The XML you provided was not well-formed.", "0016-00000608")
        keys = [(o.findtext("Key") or "") for o in root.findall("Object")]
        if not 1 <= len(keys) <= 1000 or any(k == "" for k in keys):
            raise OssError(400, "MalformedXML", "The XML you provided was not well-formed.", "0016-00000608")
        quiet = (root.findtext("Quiet") or "false").strip().lower() == "true"
        enc = _encoding(q)
        for k in keys:
            old = b.delete(k)
            if old is not None:
                await self._notify(request, bucket, "ObjectRemoved:DeleteObjects",
                                   {"deltaSize": -old.size, "eTag": old.etag, "key": k, "size": old.size}, rid)
        return self._xml(200, oss_xml.delete_result([] if quiet else keys, enc), rid)

    # ---- objects ------------------------------------------------------------------------
    def _user_meta(self, headers: dict) -> dict:
        return {k: v for k, v in headers.items() if k.startswith("x-oss-meta-")}

    async def _store_and_notify(self, request, bucket, obj: Obj, event: str, rid: str, extra_obj=None):
        old = self.state.store.bucket(bucket).put(obj)
        info = {"deltaSize": obj.size - (old.size if old else 0), "eTag": obj.etag,
                "key": obj.key, "size": obj.size}
        info.update(extra_obj or {})
        sent = await self._notify(request, bucket, event, info, rid)
        h = {"ETag": f'"{obj.etag}"', "Content-MD5": obj.content_md5}
        if obj.crc64 is not None:
            h["x-oss-hash-crc64ecma"] = str(obj.crc64)
        if sent:
            h["x-oss-event-status"] = _EVENT_OK
        return h

    async def _PutObject(self, request, bucket, key, q, headers, rid):
        self.state.store.bucket(bucket)
        data = await request.read()
        if "content-md5" in headers and \
                base64.b64encode(hashlib.md5(data).digest()).decode() != headers["content-md5"]:
            raise OssError(400, "InvalidDigest", "The Content-MD5 you specified was invalid.", "0016-00000401")
        obj = Obj.from_bytes(key, data, time.time(), headers.get("content-type", "application/octet-stream"),
                             self._user_meta(headers))
        h = await self._store_and_notify(request, bucket, obj, "ObjectCreated:PutObject", rid)
        return web.Response(status=200, headers=self._headers(rid, h))

    async def _CopyObject(self, request, bucket, key, q, headers, rid):
        src = unquote(headers["x-oss-copy-source"])
        src_bucket, _, src_key = src.lstrip("/").partition("/")
        src_obj = self.state.store.get_object(src_bucket, src_key)
        replace = headers.get("x-oss-metadata-directive", "COPY").upper() == "REPLACE"
        meta = self._user_meta(headers) if replace else dict(src_obj.meta)
        ctype = headers.get("content-type", src_obj.content_type) if replace else src_obj.content_type
        obj = Obj.from_bytes(key, src_obj.content(), time.time(), ctype, meta)
        h = await self._store_and_notify(request, bucket, obj, "ObjectCreated:CopyObject", rid)
        return self._xml(200, oss_xml.copy_result(obj), rid, {k: v for k, v in h.items() if k != "ETag"})

    async def _AppendObject(self, request, bucket, key, q, headers, rid):
        b = self.state.store.bucket(bucket)
        position = _int_param(q, "position", 0, 0, 5 * 1024 ** 3)
        old = b.objects.get(key)
        if old is not None and old.obj_type != "Appendable":
            raise OssError(409, "ObjectNotAppendable", "The object is not appendable.", "0026-00000211")
        current = old.size if old else 0
        if position != current:
            raise OssError(409, "PositionNotEqualToLength",
                           "Position is not equal to file length.", "0026-00000212",
                           **{"x-oss-next-append-position": current})
        data = (old.content() if old else b"") + await request.read()
        obj = Obj.from_bytes(key, data, time.time(),
                             old.content_type if old else headers.get("content-type", "application/octet-stream"),
                             old.meta if old else self._user_meta(headers), obj_type="Appendable")
        h = await self._store_and_notify(request, bucket, obj, "ObjectCreated:AppendObject", rid,
                                         {"position": position})
        h.pop("Content-MD5", None)
        h["x-oss-next-append-position"] = str(obj.size)
        return web.Response(status=200, headers=self._headers(rid, h))

    async def _HeadObject(self, request, bucket, key, q, headers, rid):
        obj = self.state.store.get_object(bucket, key)
        h = self._object_headers(obj, rid)
        h["Content-Length"] = str(obj.size)
        return web.Response(status=200, headers=h)

    async def _GetObject(self, request, bucket, key, q, headers, rid):
        obj = self.state.store.get_object(bucket, key)
        data = obj.content()
        h = self._object_headers(obj, rid)
        status, start, end = 200, 0, obj.size  # end exclusive
        m = _RANGE_RE.match(headers.get("range", "").replace(" ", ""))
        if m and (m.group(1) or m.group(2)):
            first, last = m.group(1), m.group(2)
            if first:
                s, e = int(first), (int(last) + 1 if last else obj.size)
            else:
                s, e = max(0, obj.size - int(last)), obj.size
            # OSS ignores an invalid/unsatisfiable range and answers 200 with the whole object.
            if s < obj.size and s < e:
                status, start, end = 206, s, min(e, obj.size)
                h["Content-Range"] = f"bytes {start}-{end - 1}/{obj.size}"
                h.pop("Content-MD5", None)
                h.pop("x-oss-hash-crc64ecma", None)
        ctype = h.pop("Content-Type")
        await self._notify(request, bucket, "ObjectDownloaded:GetObject",
                           {"deltaSize": 0, "eTag": obj.etag, "key": key, "size": obj.size,
                            "readFrom": start, "readTo": end}, rid)
        return web.Response(status=status, body=data[start:end], headers=h, content_type=ctype)

    async def _DeleteObject(self, request, bucket, key, q, headers, rid):
        old = self.state.store.bucket(bucket).delete(key)
        extra = {}
        if old is not None:
            sent = await self._notify(request, bucket, "ObjectRemoved:DeleteObject",
                                      {"deltaSize": -old.size, "eTag": old.etag, "key": key,
                                       "size": old.size}, rid)
            if sent:
                extra["x-oss-event-status"] = _EVENT_OK
        return web.Response(status=204, headers=self._headers(rid, extra))
