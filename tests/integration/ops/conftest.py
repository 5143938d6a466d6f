import pathlib
import sys

# Let the ops tests import opslib by name.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
