"""MNS queue API (XML, version 2015-06-06) on top of MnsStore.

Every vendor request goes through `handle`: classify -> count -> fault -> auth -> action.
"""
import email.utils
import time
import uuid
from urllib.parse import unquote

from aiohttp import web

import emu_faults
import mns_signing
import mns_xml
from mns_store import MnsError

MAX_CLOCK_SKEW_S = 15 * 60
ATTR_XML_NAMES = {"VisibilityTimeout": "visibility_timeout",
                  "MessageRetentionPeriod": "message_retention_period",
                  "DelaySeconds": "delay_seconds", "PollingWaitSeconds": "polling_wait_seconds",
                  "MaximumMessageSize": "maximum_message_size", "LoggingEnabled": "logging_enabled"}


def parse_raw_query(raw_target: str) -> dict:
    """Query keys lower-cased (SDKs disagree on ReceiptHandle/receiptHandle); values
    percent-decoded but '+' kept literally (handles are sent unencoded by the python SDK)."""
    _, _, query = raw_target.partition("?")
    out = {}
    for part in query.split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        out.setdefault(unquote(key).lower(), unquote(value))
    return out


def classify(method: str, path: str, query: dict, has_body: bool) -> tuple[str, str | None]:
    parts = [p for p in path.split("/") if p]
    if len(parts) == 2 and parts[0] == "queues":
        return {"PUT": "CreateQueue", "DELETE": "DeleteQueue", "GET": "GetQueueAttributes",
                "POST": "SetQueueAttributes"}.get(method, "Unknown"), parts[1]
    if len(parts) == 3 and parts[0] == "queues" and parts[2] == "messages":
        q = parts[1]
        if method == "POST":
            return "SendMessage", q  # refined to BatchSendMessage by the body root
        if method == "GET":
            batch = "numofmessages" in query
            if query.get("peekonly", "").lower() == "true":
                return ("BatchPeekMessage" if batch else "PeekMessage"), q
            return ("BatchReceiveMessage" if batch else "ReceiveMessage"), q
        if method == "DELETE":
            return ("DeleteMessage" if "receipthandle" in query else "BatchDeleteMessage"), q
        if method == "PUT":
            return "ChangeMessageVisibility", q
    return "Unknown", None


class MnsApi:
    def __init__(self, state) -> None:
        self.state = state  # MnsState: store, faults, credentials, host_id

    # ---- plumbing -----------------------------------------------------------------------
    def _xml(self, status: int, body: str, request_id: str, extra: dict | None = None) -> web.Response:
        headers = {"x-mns-request-id": request_id, "x-mns-version": "2015-06-06",
                   "Server": "AliyunMNS"}
        if extra:
            headers.update(extra)
        if status == 204:
            return web.Response(status=204, headers=headers)
        return web.Response(status=status, body=body.encode("utf-8"),
                            content_type="text/xml", charset="utf-8", headers=headers)

    def _error(self, err: MnsError, request_id: str) -> web.Response:
        return self._xml(err.status, mns_xml.error(err.code, err.message, request_id,
                                                   self.state.host_id), request_id)

    def _check_auth(self, request: web.Request, raw_target: str) -> None:
        creds = self.state.credentials
        if not self.state.verify_signatures:
            return
        auth = request.headers.get("Authorization")
        if auth is None:
            raise MnsError(400, "MissingAuthorizationHeader", "Authorization header is required.")
        parsed = mns_signing.parse_authorization(auth)
        if parsed is None:
            raise MnsError(400, "InvalidAuthorizationHeader", "The Authorization header format is invalid.")
        ak, sig = parsed
        headers = {k.lower(): v for k, v in request.headers.items()}
        date_value = headers.get("date") or headers.get("x-mns-date")
        if not date_value:
            raise MnsError(400, "MissingDateHeader", "Date header is required.")
        try:
            date_ts = email.utils.parsedate_to_datetime(date_value).timestamp()
        except (TypeError, ValueError):
            raise MnsError(400, "InvalidDateHeader", "The Date header format is invalid.")
        if abs(time.time() + self.state.clock_offset_s - date_ts) > MAX_CLOCK_SKEW_S:
            raise MnsError(408, "TimeExpired", "The http request you sent is expired.")
        if ak not in creds:
            raise MnsError(403, "InvalidAccessKeyId", "The AccessKey Id you provided is not exist.")
        secret, token = creds[ak]
        if token and headers.get("security-token") != token:
            raise MnsError(403, "AccessDenied", "The security token you provided is invalid.")
        expected = mns_signing.sign(secret, mns_signing.string_to_sign(request.method, headers, raw_target))
        if expected != sig:
            raise MnsError(403, "SignatureDoesNotMatch",
                           "The request signature we calculated does not match the signature you provided.")

    async def handle(self, request: web.Request) -> web.StreamResponse:
        request_id = uuid.uuid4().hex[:24].upper()
        raw_target = request.raw_path
        query = parse_raw_query(raw_target)
        body = await request.read()
        action, queue = classify(request.method, request.path, query, bool(body))
        root = None
        try:
            if body and action in ("SendMessage", "BatchDeleteMessage", "CreateQueue", "SetQueueAttributes"):
                try:
                    root = mns_xml.parse(body)
                except mns_xml.MalformedXml:
                    raise MnsError(400, "MalformedXML", "The XML you provided was not well-formed.")
                if action == "SendMessage" and mns_xml.root_name(root) == "Messages":
                    action = "BatchSendMessage"
            sent = await emu_faults.play(
                self.state.faults, action, request,
                throttled=lambda rule: MnsError(
                    rule.status or 429, rule.code or "TooManyRequests", rule.message or
                    "The request is denied by cluster flow limiter for too many requests."),
                failed=lambda rule: MnsError(rule.status or 500, rule.code or "InternalError",
                                             rule.message or "Interal error."))
            if sent is not None:
                return sent
            self._check_auth(request, raw_target)
            if action == "Unknown":
                raise MnsError(400, "InvalidRequestURL", "Http request URL format invalid.")
            return await getattr(self, "_" + action)(request, queue, query, root, request_id)
        except MnsError as err:
            return self._error(err, request_id)

    @staticmethod
    def _int_arg(query: dict, key: str, name: str, low: int, high: int, default: int | None) -> int | None:
        if key not in query:
            return default
        try:
            value = int(query[key])
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise MnsError(400, "InvalidArgument", f"The value of {name} should between {low} and {high}.")
        return value

    # ---- queues -------------------------------------------------------------------------
    def _attrs_from_xml(self, root) -> dict:
        attrs = {}
        if root is None:
            return attrs
        for xml_name, value in mns_xml.children(root).items():
            key = ATTR_XML_NAMES.get(xml_name)
            if key == "logging_enabled":
                attrs[key] = value.strip().lower() == "true"
            elif key:
                try:
                    attrs[key] = int(value)
                except ValueError:
                    raise MnsError(400, "InvalidArgument", f"The value of {xml_name} is invalid.")
        return attrs

    async def _CreateQueue(self, request, queue, query, root, rid):
        q, created = self.state.store.create_queue(queue, self._attrs_from_xml(root))
        location = f"http://{request.host}/queues/{q.name}"
        return self._xml(201 if created else 204, "", rid, {"Location": location})

    async def _SetQueueAttributes(self, request, queue, query, root, rid):
        self.state.store.set_queue_attrs(queue, self._attrs_from_xml(root))
        return self._xml(204, "", rid)

    async def _DeleteQueue(self, request, queue, query, root, rid):
        self.state.store.delete_queue(queue)
        return self._xml(204, "", rid)

    async def _GetQueueAttributes(self, request, queue, query, root, rid):
        store = self.state.store
        q = store.get_queue(queue)
        return self._xml(200, mns_xml.queue_attributes(q, store.counts(queue)), rid)

    # ---- messages -----------------------------------------------------------------------
    def _parse_message(self, elem) -> dict:
        fields = mns_xml.children(elem)
        if not fields.get("MessageBody"):
            raise MnsError(400, "InvalidArgument", "The value of MessageBody should between 1 and 65536 bytes.")
        try:
            priority = int(fields.get("Priority", 8))
            delay = int(fields["DelaySeconds"]) if "DelaySeconds" in fields else None
        except ValueError:
            raise MnsError(400, "InvalidArgument", "Priority and DelaySeconds must be integers.")
        return {"body": fields["MessageBody"], "priority": priority, "delay_seconds": delay}

    async def _SendMessage(self, request, queue, query, root, rid):
        if root is None or mns_xml.root_name(root) != "Message":
            raise MnsError(400, "MalformedXML", "The XML you provided was not well-formed.")
        msg = self.state.store.send(queue, **self._parse_message(root))
        return self._xml(201, mns_xml.sent(msg), rid)

    async def _BatchSendMessage(self, request, queue, query, root, rid):
        elems = mns_xml.list_of(root, "Message")
        if not 1 <= len(elems) <= 16:
            raise MnsError(400, "InvalidArgument", "The count of message should between 1 and 16.")
        parsed = [self._parse_message(e) for e in elems]
        self.state.store.get_queue(queue)
        msgs = [self.state.store.send(queue, **p) for p in parsed]
        return self._xml(201, mns_xml.batch_sent(msgs), rid)

    def _wait_seconds(self, queue: str, query: dict) -> int:
        default = self.state.store.get_queue(queue).attrs["polling_wait_seconds"]
        return self._int_arg(query, "waitseconds", "waitseconds", 0, 30, default)

    async def _ReceiveMessage(self, request, queue, query, root, rid):
        msgs = await self.state.store.receive(queue, 1, self._wait_seconds(queue, query))
        if not msgs:
            raise MnsError(404, "MessageNotExist", "Message not exist.")
        return self._xml(200, mns_xml.message(msgs[0]), rid)

    async def _BatchReceiveMessage(self, request, queue, query, root, rid):
        n = self._int_arg(query, "numofmessages", "numOfMessages", 1, 16, 16)
        msgs = await self.state.store.receive(queue, n, self._wait_seconds(queue, query))
        if not msgs:
            raise MnsError(404, "MessageNotExist", "Message not exist.")
        return self._xml(200, mns_xml.messages(msgs), rid)

    async def _PeekMessage(self, request, queue, query, root, rid):
        msgs = self.state.store.peek(queue, 1)
        if not msgs:
            raise MnsError(404, "MessageNotExist", "Message not exist.")
        return self._xml(200, mns_xml.message(msgs[0], peek=True), rid)

    async def _BatchPeekMessage(self, request, queue, query, root, rid):
        n = self._int_arg(query, "numofmessages", "numOfMessages", 1, 16, 16)
        msgs = self.state.store.peek(queue, n)
        if not msgs:
            raise MnsError(404, "MessageNotExist", "Message not exist.")
        return self._xml(200, mns_xml.messages(msgs, peek=True), rid)

    async def _DeleteMessage(self, request, queue, query, root, rid):
        handle = query.get("receipthandle", "")
        if not handle:
            raise MnsError(400, "MissingReceiptHandle", "ReceiptHandle is required.")
        self.state.store.delete(queue, handle)
        return self._xml(204, "", rid)

    async def _BatchDeleteMessage(self, request, queue, query, root, rid):
        if root is None or mns_xml.root_name(root) != "ReceiptHandles":
            raise MnsError(400, "MalformedXML", "The XML you provided was not well-formed.")
        handles = [(e.text or "").strip() for e in mns_xml.list_of(root, "ReceiptHandle")]
        if not 1 <= len(handles) <= 16:
            raise MnsError(400, "InvalidArgument", "The count of receipt handle should between 1 and 16.")
        errors = self.state.store.batch_delete(queue, handles)
        if not errors:
            return self._xml(204, "", rid)
        # Partial failure: 404 with an <Errors> list (what both SDK decoders parse).
        return self._xml(404, mns_xml.batch_delete_errors(errors), rid)

    async def _ChangeMessageVisibility(self, request, queue, query, root, rid):
        handle = query.get("receipthandle", "")
        if not handle:
            raise MnsError(400, "MissingReceiptHandle", "ReceiptHandle is required.")
        if "visibilitytimeout" not in query:
            raise MnsError(400, "MissingVisibilityTimeout", "VisibilityTimeout is required.")
        timeout = self._int_arg(query, "visibilitytimeout", "VisibilityTimeout", 1, 43200, None)
        msg = self.state.store.change_visibility(queue, handle, timeout)
        return self._xml(200, mns_xml.change_visibility(msg), rid)
