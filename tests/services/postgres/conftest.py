# Makes `server` importable for the tests in this folder and exposes the session fixture.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import postgres_server, postgres_tls_server  # noqa: E402,F401  (session fixtures)
