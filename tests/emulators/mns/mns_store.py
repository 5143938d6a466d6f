"""In-memory MNS queues: visibility timeouts, receipt handles, retention, long polling.

Messages live in an insertion-ordered dict (= enqueue order, so retention purge is a walk
from the front) plus a heap of (visible_at_ms, seq, version) used to find the next visible
message without scanning in-flight ones. A heap entry is stale when the message's version
moved on (received again, visibility changed, deleted).
"""
import asyncio
import base64
import hashlib
import heapq
import itertools
import time
import uuid
from dataclasses import dataclass, field

DEFAULT_ATTRS = {
    "visibility_timeout": 30,
    "message_retention_period": 345600,
    "delay_seconds": 0,
    "polling_wait_seconds": 0,
    "maximum_message_size": 65536,
    "logging_enabled": False,
}
# MNS documented ranges (seconds / bytes) for queue attributes.
ATTR_RANGES = {
    "visibility_timeout": (1, 43200),
    "message_retention_period": (60, 604800),
    "delay_seconds": (0, 604800),
    "polling_wait_seconds": (0, 30),
    "maximum_message_size": (1024, 65536),
}


def now_ms() -> int:
    return int(time.time() * 1000)


class MnsError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def queue_not_exist() -> MnsError:
    return MnsError(404, "QueueNotExist", "The queue name you provided is not exist.")


def body_md5(body: str) -> str:
    return hashlib.md5(body.encode("utf-8")).hexdigest().upper()


@dataclass
class Message:
    seq: int
    message_id: str
    body: str
    body_md5: str
    priority: int
    enqueue_time: int
    visible_at: int
    first_dequeue_time: int = 0
    dequeue_count: int = 0
    receipt_handle: str | None = None
    version: int = 0

    def state(self, now: int) -> str:
        if self.visible_at > now:
            return "inflight" if self.dequeue_count > 0 else "delayed"
        return "visible"

    def to_json(self, now: int) -> dict:
        return {"message_id": self.message_id, "body": self.body, "body_md5": self.body_md5,
                "priority": self.priority, "enqueue_time": self.enqueue_time,
                "first_dequeue_time": self.first_dequeue_time or None,
                "dequeue_count": self.dequeue_count, "next_visible_time": self.visible_at,
                "receipt_handle": self.receipt_handle, "state": self.state(now)}


@dataclass
class Queue:
    name: str
    attrs: dict
    create_time: int = field(default_factory=lambda: int(time.time()))
    last_modify_time: int = field(default_factory=lambda: int(time.time()))
    messages: dict = field(default_factory=dict)          # seq -> Message, enqueue order
    heap: list = field(default_factory=list)              # (visible_at, seq, version)
    handles: dict = field(default_factory=dict)           # current receipt handle -> seq
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def __getstate__(self) -> dict:
        # Saved for a restart (common/emulator_state_file.py): long-pollers do not survive it.
        state = dict(self.__dict__)
        del state["changed"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.changed = asyncio.Event()

    def notify(self) -> None:
        # Wake every long-poller; each re-arms with a fresh Event.
        self.changed.set()
        self.changed = asyncio.Event()


class MnsStore:
    def __init__(self) -> None:
        self.queues: dict[str, Queue] = {}
        self._seq = itertools.count(1)
        self._host_tag = uuid.uuid4().hex[:16].upper()

    def reset(self) -> None:
        for q in self.queues.values():
            q.notify()
        self.queues.clear()

    # ---- queues -------------------------------------------------------------------------
    @staticmethod
    def validate_attrs(attrs: dict, strict: bool = True) -> dict:
        """strict=False (control API) only requires sane values, so tests can use e.g. a
        2-second retention period that the real service would refuse."""
        clean = {}
        for key, value in attrs.items():
            if key not in DEFAULT_ATTRS:
                raise MnsError(400, "InvalidArgument", f"Unknown queue attribute {key}.")
            if key == "logging_enabled":
                clean[key] = bool(value)
                continue
            value = int(value)
            low, high = ATTR_RANGES[key] if strict else (0 if key.endswith("seconds") else 1, 10**9)
            if not low <= value <= high:
                raise MnsError(400, "InvalidArgument",
                               f"The value of {key} should between {low} and {high} seconds/bytes.")
            clean[key] = value
        return clean

    def create_queue(self, name: str, attrs: dict, strict: bool = True) -> tuple[Queue, bool]:
        """Returns (queue, created). Same attributes again is idempotent, different is 409."""
        clean = self.validate_attrs(attrs, strict)
        existing = self.queues.get(name)
        if existing is not None:
            if all(existing.attrs[k] == v for k, v in clean.items()):
                return existing, False
            raise MnsError(409, "QueueAlreadyExist", "The queue you want to create already exists.")
        q = Queue(name=name, attrs={**DEFAULT_ATTRS, **clean})
        self.queues[name] = q
        return q, True

    def set_queue_attrs(self, name: str, attrs: dict, strict: bool = True) -> Queue:
        q = self.get_queue(name)
        q.attrs.update(self.validate_attrs(attrs, strict))
        q.last_modify_time = int(time.time())
        return q

    def delete_queue(self, name: str) -> None:
        q = self.queues.pop(name, None)
        if q is not None:
            q.notify()

    def get_queue(self, name: str) -> Queue:
        q = self.queues.get(name)
        if q is None:
            raise queue_not_exist()
        return q

    # ---- messages -----------------------------------------------------------------------
    def _purge_expired(self, q: Queue, now: int) -> None:
        cutoff = now - q.attrs["message_retention_period"] * 1000
        # Bounded by the number of messages; stops at the first unexpired one.
        while q.messages:
            seq, msg = next(iter(q.messages.items()))
            if msg.enqueue_time > cutoff:
                break
            self._drop(q, seq)

    def _drop(self, q: Queue, seq: int) -> None:
        msg = q.messages.pop(seq)
        if msg.receipt_handle:
            q.handles.pop(msg.receipt_handle, None)

    def send(self, name: str, body: str, priority: int = 8, delay_seconds: int | None = None) -> Message:
        q = self.get_queue(name)
        if len(body.encode("utf-8")) > q.attrs["maximum_message_size"]:
            raise MnsError(400, "InvalidArgument",
                           f"The value of MessageBody should between 1 and {q.attrs['maximum_message_size']} bytes.")
        if not 1 <= priority <= 16:
            raise MnsError(400, "InvalidArgument", "The value of Priority should between 1 and 16.")
        delay = q.attrs["delay_seconds"] if delay_seconds is None else delay_seconds
        if not 0 <= delay <= 604800:
            raise MnsError(400, "InvalidArgument", "The value of DelaySeconds should between 0 and 604800 seconds.")
        now = now_ms()
        seq = next(self._seq)
        msg = Message(seq=seq, message_id=f"{self._host_tag}-{seq:x}-{now:X}", body=body,
                      body_md5=body_md5(body), priority=priority, enqueue_time=now,
                      visible_at=now + delay * 1000)
        q.messages[seq] = msg
        heapq.heappush(q.heap, (msg.visible_at, seq, msg.version))
        q.notify()
        return msg

    def _new_handle(self, msg: Message) -> str:
        raw = f"{msg.seq}-{msg.version}-{uuid.uuid4().hex[:8]}".encode()
        # urlsafe alphabet: the python SDK puts the handle in the query string unencoded.
        return "1-" + base64.urlsafe_b64encode(raw).decode("ascii")

    def try_receive(self, name: str, max_count: int, visibility: int | None = None) -> list[Message]:
        q = self.get_queue(name)
        now = now_ms()
        self._purge_expired(q, now)
        vt = q.attrs["visibility_timeout"] if visibility is None else visibility
        out: list[Message] = []
        while q.heap and len(out) < max_count and q.heap[0][0] <= now:
            _, seq, version = heapq.heappop(q.heap)
            msg = q.messages.get(seq)
            if msg is None or msg.version != version:
                continue  # stale heap entry
            if msg.receipt_handle:
                q.handles.pop(msg.receipt_handle, None)
            msg.version += 1
            msg.dequeue_count += 1
            if not msg.first_dequeue_time:
                msg.first_dequeue_time = now
            msg.visible_at = now + vt * 1000
            msg.receipt_handle = self._new_handle(msg)
            q.handles[msg.receipt_handle] = seq
            heapq.heappush(q.heap, (msg.visible_at, seq, msg.version))
            out.append(msg)
        return out

    def peek(self, name: str, max_count: int) -> list[Message]:
        q = self.get_queue(name)
        now = now_ms()
        self._purge_expired(q, now)
        visible = [m for m in q.messages.values() if m.visible_at <= now]
        return visible[:max_count]

    def next_visible_in_ms(self, name: str) -> int | None:
        q = self.queues.get(name)
        if q is None or not q.heap:
            return None
        return max(0, q.heap[0][0] - now_ms())

    @staticmethod
    def is_well_formed_handle(handle: str) -> bool:
        if not handle.startswith("1-"):
            return False
        try:
            parts = base64.urlsafe_b64decode(handle[2:].encode("ascii")).decode("ascii").split("-")
        except Exception:
            return False
        return len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit()

    def _resolve_handle(self, q: Queue, handle: str) -> Message:
        """A handle is valid only while it is the message's current one and unexpired."""
        if not self.is_well_formed_handle(handle):
            raise MnsError(400, "ReceiptHandleError", "The receipt handle you provide is not valid.")
        seq = q.handles.get(handle)
        msg = q.messages.get(seq) if seq is not None else None
        if msg is None or msg.visible_at <= now_ms():
            raise MnsError(404, "MessageNotExist", "Message not exist.")
        return msg

    def delete(self, name: str, handle: str) -> None:
        q = self.get_queue(name)
        msg = self._resolve_handle(q, handle)
        self._drop(q, msg.seq)

    def batch_delete(self, name: str, handles: list[str]) -> list[tuple[str, MnsError]]:
        q = self.get_queue(name)
        errors = []
        for handle in handles:
            try:
                msg = self._resolve_handle(q, handle)
                self._drop(q, msg.seq)
            except MnsError as err:
                errors.append((handle, err))
        return errors

    def change_visibility(self, name: str, handle: str, timeout: int) -> Message:
        q = self.get_queue(name)
        if not 1 <= timeout <= 43200:
            raise MnsError(400, "InvalidArgument",
                           "The value of VisibilityTimeout should between 1 and 43200 seconds.")
        msg = self._resolve_handle(q, handle)
        q.handles.pop(handle, None)
        msg.version += 1
        msg.visible_at = now_ms() + timeout * 1000
        msg.receipt_handle = self._new_handle(msg)
        q.handles[msg.receipt_handle] = msg.seq
        heapq.heappush(q.heap, (msg.visible_at, msg.seq, msg.version))
        q.notify()
        return msg

    def counts(self, name: str) -> dict:
        q = self.get_queue(name)
        now = now_ms()
        self._purge_expired(q, now)
        states = [m.state(now) for m in q.messages.values()]
        return {"active": states.count("visible"), "inactive": states.count("inflight"),
                "delayed": states.count("delayed")}

    def list_messages(self, name: str) -> list[dict]:
        q = self.get_queue(name)
        now = now_ms()
        self._purge_expired(q, now)
        return [m.to_json(now) for m in q.messages.values()]

    async def receive(self, name: str, max_count: int, wait_seconds: int) -> list[Message]:
        """Long poll: return as soon as something is visible, else after wait_seconds."""
        deadline = time.monotonic() + wait_seconds
        for _ in range(100000):  # bounded; each round waits for a change or the deadline
            got = self.try_receive(name, max_count)
            remaining = deadline - time.monotonic()
            if got or remaining <= 0:
                return got
            q = self.get_queue(name)
            nxt = self.next_visible_in_ms(name)
            timeout = remaining if nxt is None else min(remaining, nxt / 1000.0 + 0.001)
            try:
                await asyncio.wait_for(q.changed.wait(), timeout=max(timeout, 0.001))
            except asyncio.TimeoutError:
                pass
        return []
