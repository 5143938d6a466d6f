"""OSS event notifications (vendor-apis.md §3): rules set through the control API turn
object changes into the §3.2 JSON and deliver it to an MNS queue in one of the §3.1 forms:
  simplified: MessageBody = base64(json)                      (default; what OSS emits)
  xml:        MessageBody = <Notification>..<Message>base64(json)</Message>..</Notification>
  json:       MessageBody = {"TopicOwner":..,"Message":"base64(json)",..}
  raw:        MessageBody = json text (not an OSS form; for consumer negative tests)
Delivery goes to the MNS store in this process, or over HTTP to an MNS emulator's control API.
"""
import base64
import fnmatch
import hashlib
import json
import time
import uuid
from xml.sax.saxutils import escape

FORMATS = ("simplified", "xml", "json", "raw")


def event_time(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + ".000Z"


def build_event(event_name: str, bucket: str, region: str, owner_id: str, obj: dict,
                rule_id: str, request_id: str, source_ip: str, ts: float) -> dict:
    return {
        "eventName": event_name, "eventSource": "acs:oss", "eventTime": event_time(ts),
        "eventVersion": "1.0",
        "oss": {
            "bucket": {"arn": f"acs:oss:{region}:{owner_id}:{bucket}", "name": bucket,
                       "ownerIdentity": owner_id, "virtualBucket": ""},
            "object": obj, "ossSchemaVersion": "1.0", "ruleId": rule_id},
        "region": region,
        "requestParameters": {"sourceIPAddress": source_ip},
        "responseElements": {"requestId": request_id},
        "userIdentity": {"principalId": owner_id},
    }


def render_body(payload: dict, fmt: str, queue: str, owner_id: str) -> str:
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    if fmt == "raw":
        return text
    b64 = base64.b64encode(text.encode("utf-8")).decode("ascii")
    if fmt == "simplified":
        return b64
    envelope = {"TopicOwner": owner_id, "TopicName": f"oss-notify-{queue}",
                "Subscriber": owner_id, "SubscriptionName": f"sub-{queue}",
                "MessageId": uuid.uuid4().hex.upper(), "Message": b64,
                "MessageMD5": hashlib.md5(b64.encode()).hexdigest().upper(),
                "MessageTag": "", "PublishTime": str(int(time.time() * 1000))}
    if fmt == "json":
        return json.dumps(envelope, separators=(",", ":"))
    inner = "".join(f"<{k}>{escape(v)}</{k}>" for k, v in envelope.items())
    return ('<?xml version="1.0" encoding="utf-8"?>'
            f'<Notification xmlns="http://mns.aliyuncs.com/doc/v1/">{inner}</Notification>')


class Rule:
    def __init__(self, spec: dict):
        self.id = spec.get("id") or hashlib.sha1(uuid.uuid4().bytes).hexdigest()
        self.bucket = spec["bucket"]
        self.queue = spec["queue"]
        self.events = list(spec.get("events") or ["ObjectCreated:*", "ObjectRemoved:*",
                                                   "ObjectModified:*"])
        self.prefix = spec.get("prefix", "")
        self.suffix = spec.get("suffix", "")
        self.format = spec.get("format", "simplified")
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}")
        self.mns_url = spec.get("mns_url")  # None => the MNS emulator in this process

    def matches(self, bucket: str, event_name: str, key: str) -> bool:
        return (bucket == self.bucket and key.startswith(self.prefix) and key.endswith(self.suffix)
                and any(fnmatch.fnmatchcase(event_name, pat) for pat in self.events))

    def to_json(self) -> dict:
        return {"id": self.id, "bucket": self.bucket, "queue": self.queue, "events": self.events,
                "prefix": self.prefix, "suffix": self.suffix, "format": self.format,
                "mns_url": self.mns_url}


class Notifier:
    def __init__(self, region: str, owner_id: str, mns_store=None, http_session_factory=None):
        self.region, self.owner_id = region, owner_id
        self.mns_store = mns_store          # in-process MnsStore, when running combined
        self.default_mns_url = None         # --mns-url: an MNS emulator in another process
        self.http_session_factory = http_session_factory
        self.rules: list[Rule] = []
        self.delivered = 0
        self.failures: list[str] = []

    def reset(self) -> None:
        self.rules.clear()
        self.delivered = 0
        self.failures.clear()

    async def publish(self, bucket: str, event_name: str, obj: dict, request_id: str,
                      source_ip: str) -> int:
        """Delivers to every matching rule; returns the number of messages sent."""
        sent = 0
        for rule in [r for r in self.rules if r.matches(bucket, event_name, obj["key"])]:
            event = build_event(event_name, bucket, self.region, self.owner_id, obj, rule.id,
                                request_id, source_ip, time.time())
            body = render_body({"events": [event]}, rule.format, rule.queue, self.owner_id)
            try:
                await self._deliver(rule, body)
                sent += 1
            except Exception as exc:  # recorded, visible through the control API
                self.failures.append(f"{rule.id}: {type(exc).__name__}: {exc}")
        self.delivered += sent
        return sent

    async def _deliver(self, rule: Rule, body: str) -> None:
        url = rule.mns_url or self.default_mns_url
        if url is None:
            if self.mns_store is None:
                raise RuntimeError("no MNS target: start with --mns-port/--mns-url or set mns_url")
            self.mns_store.send(rule.queue, body)
            return
        session = self.http_session_factory()
        async with session.post(f"{url}/_emulator/queues/{rule.queue}/messages",
                                json={"body": body}) as resp:
            if resp.status != 200:
                raise RuntimeError(f"MNS control answered {resp.status}: {await resp.text()}")
