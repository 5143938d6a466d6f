"""JSON control API of the MNS emulator, under /_emulator/ (never reachable as a vendor path)."""
from aiohttp import web

import emu_faults
from emulator_server import add_guarded_routes, json_body as _body
from mns_store import MnsError

ATTR_KEYS = ("visibility_timeout", "message_retention_period", "delay_seconds",
             "polling_wait_seconds", "maximum_message_size", "logging_enabled")


def add_control_routes(app: web.Application, state, prefix: str = "/_emulator") -> None:
    store = state.store
    routes = web.RouteTableDef()

    @routes.get(prefix + "/health")
    async def health(request):
        return web.json_response({"ok": True, "service": "mns"})

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
        if "access_key_id" in body:
            if not body.get("keep_existing", False):
                state.credentials.clear()
            state.credentials[body["access_key_id"]] = (body["access_key_secret"],
                                                        body.get("security_token") or "")
        return web.json_response({"access_key_ids": sorted(state.credentials),
                                  "verify_signatures": state.verify_signatures})

    @routes.put(prefix + "/clock")
    async def clock(request):
        # The server's clock offset_s seconds ahead of the host's: requests look skewed to it.
        state.clock_offset_s = float((await _body(request)).get("offset_s", 0))
        return web.json_response({"offset_s": state.clock_offset_s})

    @routes.post(prefix + "/queues")
    async def create_queue(request):
        body = await _body(request)
        attrs = {k: body[k] for k in ATTR_KEYS if k in body}
        q, created = store.create_queue(body["name"], attrs, strict=False)
        return web.json_response({"name": q.name, "created": created, **q.attrs})

    @routes.get(prefix + "/queues")
    async def list_queues(request):
        return web.json_response({"queues": [
            {"name": name, **q.attrs, **store.counts(name)} for name, q in store.queues.items()]})

    @routes.get(prefix + "/queues/{name}")
    async def get_queue(request):
        name = request.match_info["name"]
        q = store.get_queue(name)
        return web.json_response({"name": name, **q.attrs, **store.counts(name)})

    @routes.patch(prefix + "/queues/{name}")
    async def patch_queue(request):
        body = await _body(request)
        q = store.set_queue_attrs(request.match_info["name"],
                                  {k: body[k] for k in ATTR_KEYS if k in body}, strict=False)
        return web.json_response({"name": q.name, **q.attrs})

    @routes.delete(prefix + "/queues/{name}")
    async def delete_queue(request):
        store.delete_queue(request.match_info["name"])
        return web.json_response({"ok": True})

    @routes.post(prefix + "/queues/{name}/messages")
    async def send(request):
        body = await _body(request)
        items = body["messages"] if "messages" in body else [body]
        out = []
        for item in items:
            msg = store.send(request.match_info["name"], str(item["body"]),
                             int(item.get("priority", 8)), item.get("delay_seconds"))
            out.append({"message_id": msg.message_id, "body_md5": msg.body_md5})
        return web.json_response({"messages": out})

    @routes.get(prefix + "/queues/{name}/messages")
    async def list_messages(request):
        return web.json_response({"messages": store.list_messages(request.match_info["name"])})

    @routes.delete(prefix + "/queues/{name}/messages")
    async def purge(request):
        q = store.get_queue(request.match_info["name"])
        n = len(q.messages)
        q.messages.clear(); q.heap.clear(); q.handles.clear()
        return web.json_response({"purged": n})

    emu_faults.add_control_routes(routes, state.faults, prefix)
    add_guarded_routes(app, routes, MnsError)
