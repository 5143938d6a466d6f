"""An emulator's data kept across a restart of its process: `--state-file PATH` makes a server.py
load its data (buckets and objects, queues and messages, workspaces and documents, collections
and rows, credentials) from PATH when it starts and write it back there when it stops (SIGTERM or
SIGINT), so that a test can stop the server and start it again on the same port, as a real
service restarts with its data on disk. Fault rules, throttles and request counters are the
test's, not the service's data: they start empty again.

Each emulator says what its data is with two functions: `export(state)` returns a picklable
object and `restore(state, data)` puts it back into a fresh state.
"""
from __future__ import annotations

import os
import pathlib
import pickle
from typing import Any, Callable


def load(path: str | None) -> Any:
    """The data saved at `path`; None when there is no path or no file yet (a first start)."""
    if not path or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return pickle.load(f)


def save(path: str | None, data: Any) -> None:
    """Writes `data` to `path` through a temporary file, so that a crash never leaves half a file."""
    if not path:
        return
    target = pathlib.Path(path)
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "wb") as f:
        pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, target)


def restore_in_place(target: Any, saved: Any) -> None:
    """Makes `target` hold what `saved` holds, keeping its identity: handlers and control routes
    that captured the object when the application was built see the restored data."""
    target.__dict__.clear()
    target.__dict__.update(saved.__dict__)


class Persistence:
    """What a server.py needs to keep its data across restarts: `export`/`restore` of its state."""

    def __init__(self, export: Callable[[Any], Any], restore: Callable[[Any, Any], None]):
        self.export, self.restore = export, restore

    def load_into(self, path: str | None, state: Any) -> None:
        data = load(path)
        if data is not None:
            self.restore(state, data)

    def save_from(self, path: str | None, state: Any) -> None:
        save(path, self.export(state))
