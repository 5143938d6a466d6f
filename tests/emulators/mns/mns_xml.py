"""MNS XML bodies (vendor-apis.md §2.3-§2.8), rendered as the python/Node SDKs parse them."""
from xml.etree import ElementTree
from xml.sax.saxutils import escape

NS = "http://mns.aliyuncs.com/doc/v1/"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def _elems(pairs) -> str:
    return "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in pairs)


def error(code: str, message: str, request_id: str, host_id: str) -> str:
    return (f'{HEAD}<Error xmlns="{NS}">'
            + _elems([("Code", code), ("Message", message), ("RequestId", request_id),
                      ("HostId", host_id)]) + "</Error>")


def _message_fields(msg) -> list:
    return [("MessageId", msg.message_id), ("ReceiptHandle", msg.receipt_handle),
            ("MessageBodyMD5", msg.body_md5), ("MessageBody", msg.body),
            ("EnqueueTime", msg.enqueue_time), ("NextVisibleTime", msg.visible_at),
            ("FirstDequeueTime", msg.first_dequeue_time or msg.enqueue_time),
            ("DequeueCount", msg.dequeue_count), ("Priority", msg.priority)]


def _peek_fields(msg) -> list:
    return [("MessageId", msg.message_id), ("MessageBodyMD5", msg.body_md5),
            ("MessageBody", msg.body), ("EnqueueTime", msg.enqueue_time),
            ("FirstDequeueTime", msg.first_dequeue_time or msg.enqueue_time),
            ("DequeueCount", msg.dequeue_count), ("Priority", msg.priority)]


def message(msg, peek: bool = False) -> str:
    fields = _peek_fields(msg) if peek else _message_fields(msg)
    return f'{HEAD}<Message xmlns="{NS}">{_elems(fields)}</Message>'


def messages(msgs, peek: bool = False) -> str:
    inner = "".join("<Message>" + _elems(_peek_fields(m) if peek else _message_fields(m))
                    + "</Message>" for m in msgs)
    return f'{HEAD}<Messages xmlns="{NS}">{inner}</Messages>'


def sent(msg) -> str:
    return (f'{HEAD}<Message xmlns="{NS}">'
            + _elems([("MessageId", msg.message_id), ("MessageBodyMD5", msg.body_md5)])
            + "</Message>")


def batch_sent(msgs) -> str:
    inner = "".join("<Message>" + _elems([("MessageId", m.message_id),
                                          ("MessageBodyMD5", m.body_md5)]) + "</Message>"
                    for m in msgs)
    return f'{HEAD}<Messages xmlns="{NS}">{inner}</Messages>'


def batch_delete_errors(errors) -> str:
    inner = "".join("<Error>" + _elems([("ErrorCode", err.code), ("ErrorMessage", err.message),
                                        ("ReceiptHandle", handle)]) + "</Error>"
                    for handle, err in errors)
    return f'{HEAD}<Errors xmlns="{NS}">{inner}</Errors>'


def change_visibility(msg) -> str:
    return (f'{HEAD}<ChangeVisibility xmlns="{NS}">'
            + _elems([("ReceiptHandle", msg.receipt_handle), ("NextVisibleTime", msg.visible_at)])
            + "</ChangeVisibility>")


def queue_attributes(q, counts: dict) -> str:
    a = q.attrs
    return (f'{HEAD}<Queue xmlns="{NS}">' + _elems([
        ("QueueName", q.name), ("CreateTime", q.create_time), ("LastModifyTime", q.last_modify_time),
        ("VisibilityTimeout", a["visibility_timeout"]),
        ("MaximumMessageSize", a["maximum_message_size"]),
        ("MessageRetentionPeriod", a["message_retention_period"]),
        ("DelaySeconds", a["delay_seconds"]), ("PollingWaitSeconds", a["polling_wait_seconds"]),
        ("ActiveMessages", counts["active"]), ("InactiveMessages", counts["inactive"]),
        ("DelayMessages", counts["delayed"]),
        ("LoggingEnabled", "True" if a["logging_enabled"] else "False")]) + "</Queue>")


# ---- request parsing --------------------------------------------------------------------
class MalformedXml(Exception):
    pass


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse(body: bytes) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(body)
    except ElementTree.ParseError as exc:
        raise MalformedXml(str(exc)) from exc


def children(elem) -> dict:
    """Direct children as {local-name: text} (first occurrence wins)."""
    out = {}
    for child in elem:
        out.setdefault(_local(child.tag), child.text or "")
    return out


def root_name(elem) -> str:
    return _local(elem.tag)


def list_of(elem, name: str) -> list:
    return [c for c in elem if _local(c.tag) == name]
