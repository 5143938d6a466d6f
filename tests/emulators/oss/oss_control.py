"""JSON control API of the OSS emulator, under /_emulator/ (never a vendor path)."""
import time

from aiohttp import web

import emu_faults
import oss_notify
from emulator_server import add_guarded_routes, json_body as _body
from oss_store import Obj, OssError


def add_control_routes(app: web.Application, state, prefix: str = "/_emulator") -> None:
    store = state.store
    routes = web.RouteTableDef()

    @routes.get(prefix + "/health")
    async def health(request):
        return web.json_response({"ok": True, "service": "oss", "region": state.region,
                                  "mns_url": state.mns_url})

    @routes.post(prefix + "/reset")
    async def reset(request):
        state.reset()
        return web.json_response({"ok": True})

    @routes.put(prefix + "/credentials")
    @routes.post(prefix + "/credentials")
    async def credentials(request):
        body = await _body(request)
        if "verify_signatures" in body:
            state.verify_signatures = bool(body["verify_signatures"])
        if "region" in body:
            state.region = store.region = state.notifier.region = body["region"]
        if "access_key_id" in body:
            if not body.get("keep_existing", False):
                state.credentials.keys.clear()
            state.credentials.keys[body["access_key_id"]] = (body["access_key_secret"],
                                                             body.get("security_token") or "")
        return web.json_response({"access_key_ids": sorted(state.credentials.keys),
                                  "verify_signatures": state.verify_signatures,
                                  "region": state.region})

    @routes.put(prefix + "/clock")
    async def clock(request):
        # The server's clock offset_s seconds ahead of the host's: requests look skewed to it.
        state.clock_offset_s = float((await _body(request)).get("offset_s", 0))
        return web.json_response({"offset_s": state.clock_offset_s})

    @routes.post(prefix + "/buckets")
    async def create_bucket(request):
        body = await _body(request)
        b, created = store.create_bucket(body["name"])
        return web.json_response({"name": b.name, "created": created})

    @routes.get(prefix + "/buckets")
    async def list_buckets(request):
        return web.json_response({"buckets": [{"name": n, "objects": len(b.keys)}
                                              for n, b in store.buckets.items()]})

    @routes.delete(prefix + "/buckets/{bucket}")
    async def delete_bucket(request):
        store.buckets.pop(request.match_info["bucket"], None)
        return web.json_response({"ok": True})

    @routes.post(prefix + "/buckets/{bucket}/seed")
    async def seed(request):
        body = await _body(request)
        t0 = time.monotonic()
        n = store.seed(request.match_info["bucket"], body)
        return web.json_response({"seeded": n, "objects": len(store.bucket(request.match_info["bucket"]).keys),
                                  "seconds": round(time.monotonic() - t0, 3)})

    @routes.put(prefix + "/buckets/{bucket}/objects")
    async def put_objects(request):
        """{"objects": [{"key", "content" (utf-8 text) | "size", "mtime"?, "content_type"?}],
        "notify": false} -- direct writes; with notify=true they fire ObjectCreated:PutObject."""
        body = await _body(request)
        bucket = request.match_info["bucket"]
        b = store.bucket(bucket)
        out = []
        for item in body["objects"]:
            mtime = float(item.get("mtime", time.time()))
            if "content" in item:
                obj = Obj.from_bytes(item["key"], item["content"].encode("utf-8"), mtime,
                                     item.get("content_type", "application/octet-stream"), {})
            else:
                obj = Obj.seeded(item["key"], int(item.get("size", 0)), mtime)
            old = b.put(obj)
            if body.get("notify"):
                await state.notifier.publish(bucket, "ObjectCreated:PutObject",
                                             {"deltaSize": obj.size - (old.size if old else 0),
                                              "eTag": obj.etag, "key": obj.key, "size": obj.size},
                                             "CONTROL", "127.0.0.1")
            out.append({"key": obj.key, "etag": obj.etag, "size": obj.size})
        return web.json_response({"objects": out})

    @routes.get(prefix + "/buckets/{bucket}/objects")
    async def list_objects(request):
        b = store.bucket(request.match_info["bucket"])
        limit = int(request.query.get("limit", "1000"))
        pfx = request.query.get("prefix", "")
        contents, _, truncated, _ = b.list(pfx, "", "", limit)
        return web.json_response({"count": len(b.keys), "truncated": truncated, "objects": [
            {"key": o.key, "size": o.size, "etag": o.etag, "mtime": o.mtime, "type": o.obj_type}
            for o in contents]})

    @routes.delete(prefix + "/buckets/{bucket}/objects")
    async def delete_objects(request):
        """{"keys": [...], "notify": false}"""
        body = await _body(request)
        bucket = request.match_info["bucket"]
        b = store.bucket(bucket)
        deleted = 0
        for k in body["keys"]:
            old = b.delete(k)
            if old is not None:
                deleted += 1
                if body.get("notify"):
                    await state.notifier.publish(bucket, "ObjectRemoved:DeleteObject",
                                                 {"deltaSize": -old.size, "eTag": old.etag,
                                                  "key": k, "size": old.size}, "CONTROL", "127.0.0.1")
        return web.json_response({"deleted": deleted})

    @routes.post(prefix + "/events")
    async def emit_event(request):
        """Publish any §3.3 event for an existing object through the rules:
        {"bucket", "key", "event": "ObjectModified:UpdateObjectMeta"}."""
        body = await _body(request)
        obj = store.get_object(body["bucket"], body["key"])
        sent = await state.notifier.publish(body["bucket"], body["event"],
                                            {"deltaSize": 0, "eTag": obj.etag, "key": obj.key,
                                             "size": obj.size}, "CONTROL", "127.0.0.1")
        return web.json_response({"sent": sent})

    @routes.post(prefix + "/notifications")
    async def add_rule(request):
        body = await _body(request)
        rule = oss_notify.Rule(body)
        state.notifier.rules.append(rule)
        return web.json_response(rule.to_json())

    @routes.get(prefix + "/notifications")
    async def list_rules(request):
        n = state.notifier
        return web.json_response({"rules": [r.to_json() for r in n.rules],
                                  "delivered": n.delivered, "failures": n.failures})

    @routes.delete(prefix + "/notifications")
    async def clear_rules(request):
        state.notifier.rules.clear()
        return web.json_response({"ok": True})

    @routes.delete(prefix + "/notifications/{rule_id}")
    async def delete_rule(request):
        rid = request.match_info["rule_id"]
        state.notifier.rules[:] = [r for r in state.notifier.rules if r.id != rid]
        return web.json_response({"ok": True})

    emu_faults.add_control_routes(routes, state.faults, prefix)
    add_guarded_routes(app, routes, OssError)
