"""In-memory model of one DingTalk tenant set: apps, tokens, operators, wiki workspaces,
nodes (folders, online docs, other files), per-operator permissions and document blocks.

Everything the vendor handlers and the control API touch lives here so that `reset` is a
single object swap. Methods are plain synchronous code: aiohttp runs handlers on one event
loop, so no locking is needed.
"""
from __future__ import annotations

import random
import re
import secrets
import string
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

import blocks as block_fixtures

DEFAULT_CORP_ID = "dingcorp0000000000000001"
DEFAULT_TOKEN_LIFETIME_S = 7200
ALL_SCOPES = ("Wiki.Workspace.Read", "Wiki.Node.Read", "Storage.File.Read")

# Highest first; "nearest explicit grant wins" when resolving inheritance.
ROLES = ("NONE", "READER", "DOWNLOADER", "EDITOR", "MANAGER", "OWNER")
ROLE_RANK = {r: i for i, r in enumerate(ROLES)}

# A docKey/nodeId outside this shape is "doc key is illegal" rather than "not found".
LEGAL_ID = re.compile(r"^[A-Za-z0-9]{8,64}$")

FILE_KINDS = {  # category -> default extension, for non-ALIDOC files
    "ALIDOC": "adoc",
    "DOCUMENT": "pdf",
    "IMAGE": "png",
    "VIDEO": "mp4",
    "AUDIO": "mp3",
    "ARCHIVE": "zip",
    "OTHER": "bin",
}
_ID_ALPHABET = string.ascii_letters + string.digits


class StoreError(Exception):
    """Raised by control-API operations on bad input; becomes a 400/404 control response."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def now_ms() -> int:
    return int(time.time() * 1000)


def format_minute(ms: int) -> str:
    """DingTalk's documented time string: ISO-8601 UTC, minute precision (2023-05-15T11:29Z)."""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%MZ")


@dataclass
class App:
    app_key: str
    app_secret: str
    corp_id: str
    scopes: set
    org_auth_level_ok: bool = True


@dataclass
class Token:
    value: str
    app_key: str
    expires_at: float  # time.time() seconds


@dataclass
class Operator:
    union_id: str
    corp_id: str
    name: str


@dataclass
class Workspace:
    workspace_id: str
    corp_id: str
    name: str
    root_node_id: str
    type: str
    team_id: str
    description: str
    creator_id: str
    create_ms: int
    modified_ms: int


@dataclass
class Node:
    node_id: str
    workspace_id: str
    parent_id: str | None  # None only for a workspace root
    name: str
    type: str  # FILE | FOLDER
    category: str | None  # None for folders
    extension: str | None
    size: int
    creator_id: str
    modifier_id: str
    create_ms: int
    modified_ms: int
    blocks: list | None = None  # only ALIDOC documents carry blocks
    children: list = field(default_factory=list)
    # endpoint name -> {"status", "code", "message"}: a permanent error for this node.
    sticky_errors: dict = field(default_factory=dict)

    @property
    def is_alidoc(self) -> bool:
        return self.type == "FILE" and self.category == "ALIDOC"


class Store:
    def __init__(self, seed: int = 1):
        self.rng = random.Random(seed)
        self.apps: dict[str, App] = {}
        self.tokens: dict[str, Token] = {}
        self.token_by_app: dict[str, str] = {}
        self.token_lifetime_s: float = DEFAULT_TOKEN_LIFETIME_S
        self.operators: dict[str, Operator] = {}
        self.workspaces: dict[str, Workspace] = {}
        self.nodes: dict[str, Node] = {}
        self.deleted_node_ids: set[str] = set()
        # target id (workspaceId or nodeId) -> {unionId: role}
        self.grants: dict[str, dict[str, str]] = {}
        self._last_ms = 0

    # ---- ids and clock -------------------------------------------------------------
    def new_id(self, length: int = 32) -> str:
        for _ in range(10):  # collisions are astronomically unlikely; bounded anyway
            candidate = "".join(self.rng.choices(_ID_ALPHABET, k=length))
            if candidate not in self.nodes and candidate not in self.workspaces:
                return candidate
        raise StoreError("could not allocate a unique id", 500)

    def tick_ms(self, explicit: int | None = None) -> int:
        """A strictly increasing modification clock so every edit is observable by timestamp."""
        if explicit is not None:
            return int(explicit)
        self._last_ms = max(now_ms(), self._last_ms + 1)
        return self._last_ms

    # ---- apps and tokens -----------------------------------------------------------
    def create_app(self, app_key: str, app_secret: str, corp_id: str | None = None,
                   scopes=None, org_auth_level_ok: bool = True) -> App:
        if not app_key or not app_secret:
            raise StoreError("appKey and appSecret are required")
        app = App(app_key, app_secret, corp_id or DEFAULT_CORP_ID,
                  set(ALL_SCOPES if scopes is None else scopes), bool(org_auth_level_ok))
        self.apps[app_key] = app
        return app

    def issue_token(self, app_key: str, app_secret: str) -> Token | None:
        app = self.apps.get(app_key)
        if app is None or app.app_secret != app_secret:
            return None
        now = time.time()
        current = self.tokens.get(self.token_by_app.get(app_key, ""))
        if current is not None and current.expires_at > now:
            # Documented: re-requesting inside the validity window returns the same token
            # and extends it.
            current.expires_at = now + self.token_lifetime_s
            return current
        token = Token(secrets.token_hex(16), app_key, now + self.token_lifetime_s)
        self.tokens[token.value] = token
        self.token_by_app[app_key] = token.value
        return token

    def resolve_token(self, value: str | None) -> App | None:
        token = self.tokens.get(value or "")
        if token is None or token.expires_at <= time.time():
            return None
        return self.apps.get(token.app_key)

    def expire_tokens(self, app_key: str | None = None) -> int:
        count = 0
        for token in self.tokens.values():
            if app_key is None or token.app_key == app_key:
                token.expires_at = 0
                count += 1
        return count

    # ---- operators -----------------------------------------------------------------
    def create_operator(self, union_id: str | None = None, name: str | None = None,
                        corp_id: str | None = None) -> Operator:
        union_id = union_id or self.new_id(26)
        op = Operator(union_id, corp_id or DEFAULT_CORP_ID, name or union_id)
        self.operators[union_id] = op
        return op

    # ---- workspaces and nodes ------------------------------------------------------
    def create_workspace(self, name: str, owner_id: str | None = None, corp_id: str | None = None,
                         members: dict | None = None, workspace_id: str | None = None,
                         type: str = "TEAM", team_id: str = "", description: str = "") -> Workspace:
        if type not in ("TEAM", "PERSONAL"):
            raise StoreError("type must be TEAM or PERSONAL")
        workspace_id = workspace_id or self.new_id(16)
        if workspace_id in self.workspaces:
            raise StoreError(f"workspace {workspace_id} exists")
        ms = self.tick_ms()
        owner_id = owner_id or ""
        root = Node(self.new_id(), workspace_id, None, name, "FOLDER", None, None, 0,
                    owner_id, owner_id, ms, ms)
        self.nodes[root.node_id] = root
        ws = Workspace(workspace_id, corp_id or DEFAULT_CORP_ID, name, root.node_id, type, team_id,
                       description, owner_id, ms, ms)
        self.workspaces[workspace_id] = ws
        if owner_id:
            self.set_permission(workspace_id, owner_id, "OWNER")
        for union_id, role in (members or {}).items():
            self.set_permission(workspace_id, union_id, role)
        return ws

    def create_node(self, parent_id: str, kind: str, name: str, *, blocks=None,
                    category: str | None = None, extension: str | None = None,
                    size: int | None = None, node_id: str | None = None,
                    creator_id: str = "", modified_ms: int | None = None) -> Node:
        parent = self.nodes.get(parent_id)
        if parent is None:
            raise StoreError(f"parent {parent_id} does not exist", 404)
        if parent.type == "FILE" and not parent.is_alidoc:
            raise StoreError("only folders and online documents can have children")
        if node_id is not None:
            if not LEGAL_ID.match(node_id) or node_id in self.nodes:
                raise StoreError(f"nodeId {node_id!r} is malformed or taken")
        else:
            node_id = self.new_id()
        ms = self.tick_ms(modified_ms)
        if kind == "folder":
            node = Node(node_id, parent.workspace_id, parent_id, name, "FOLDER", None, None, 0,
                        creator_id, creator_id, ms, ms)
        elif kind == "document":
            block_list = block_fixtures.normalize(
                block_fixtures.sample_blocks() if blocks == "sample" else (blocks or []), node_id)
            node = Node(node_id, parent.workspace_id, parent_id, name, "FILE", "ALIDOC",
                        extension or "adoc", 0, creator_id, creator_id, ms, ms, block_list)
            node.size = size if size is not None else block_fixtures.byte_size(block_list)
        elif kind == "file":
            category = category or "OTHER"
            if category not in FILE_KINDS:
                raise StoreError(f"unknown category {category}")
            node = Node(node_id, parent.workspace_id, parent_id, name, "FILE", category,
                        extension or FILE_KINDS[category], size or 1024, creator_id, creator_id,
                        ms, ms, [] if category == "ALIDOC" else None)
        else:
            raise StoreError("kind must be folder, document or file")
        self.nodes[node_id] = node
        parent.children.append(node_id)
        return node

    def get_live_node(self, node_id: str) -> Node:
        node = self.nodes.get(node_id)
        if node is None:
            raise StoreError(f"node {node_id} does not exist", 404)
        return node

    def edit_node(self, node_id: str, name: str | None = None, blocks=None,
                  modified_ms: int | None = None, modifier_id: str | None = None) -> Node:
        node = self.get_live_node(node_id)
        if name is not None:
            node.name = name
        if blocks is not None:
            if not node.is_alidoc:
                raise StoreError("only ALIDOC documents have blocks")
            blocks = block_fixtures.sample_blocks() if blocks == "sample" else blocks
            node.blocks = block_fixtures.normalize(blocks, node.node_id)
            node.size = block_fixtures.byte_size(node.blocks)
        if modifier_id is not None:
            node.modifier_id = modifier_id
        node.modified_ms = self.tick_ms(modified_ms)
        return node

    def move_node(self, node_id: str, new_parent_id: str) -> Node:
        node = self.get_live_node(node_id)
        parent = self.get_live_node(new_parent_id)
        if node.parent_id is None:
            raise StoreError("cannot move a workspace root")
        cursor: Node | None = parent
        for _ in range(10_000):  # refuse cycles; bounded walk up the tree
            if cursor is None:
                break
            if cursor.node_id == node_id:
                raise StoreError("cannot move a node under itself")
            cursor = self.nodes.get(cursor.parent_id) if cursor.parent_id else None
        self.nodes[node.parent_id].children.remove(node_id)
        parent.children.append(node_id)
        node.parent_id = parent.node_id
        if parent.workspace_id != node.workspace_id:
            for sub in self.subtree(node_id):
                sub.workspace_id = parent.workspace_id
        node.modified_ms = self.tick_ms()
        return node

    def subtree(self, node_id: str) -> list[Node]:
        out, stack = [], [node_id]
        while stack:
            node = self.nodes[stack.pop()]
            out.append(node)
            stack.extend(node.children)
        return out

    def delete_node(self, node_id: str) -> int:
        node = self.get_live_node(node_id)
        if node.parent_id is None:
            raise StoreError("cannot delete a workspace root")
        self.nodes[node.parent_id].children.remove(node_id)
        removed = self.subtree(node_id)
        for sub in removed:
            del self.nodes[sub.node_id]
            self.deleted_node_ids.add(sub.node_id)
            self.grants.pop(sub.node_id, None)
        return len(removed)

    # ---- permissions ---------------------------------------------------------------
    def set_permission(self, target_id: str, union_id: str, role: str | None) -> None:
        if target_id not in self.workspaces and target_id not in self.nodes:
            raise StoreError(f"target {target_id} does not exist", 404)
        if role is None:
            self.grants.get(target_id, {}).pop(union_id, None)
            return
        if role not in ROLE_RANK:
            raise StoreError(f"role must be one of {ROLES}")
        self.grants.setdefault(target_id, {})[union_id] = role

    def role_of(self, union_id: str, node: Node) -> str:
        """Nearest explicit grant on the node, its ancestors, then the workspace; else NONE."""
        cursor: Node | None = node
        for _ in range(10_000):
            if cursor is None:
                break
            role = self.grants.get(cursor.node_id, {}).get(union_id)
            if role is not None:
                return role
            cursor = self.nodes.get(cursor.parent_id) if cursor.parent_id else None
        return self.grants.get(node.workspace_id, {}).get(union_id, "NONE")

    def workspace_role(self, union_id: str, ws: Workspace) -> str:
        return self.role_of(union_id, self.nodes[ws.root_node_id])
