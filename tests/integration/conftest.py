import sys
import pathlib

# Let test modules import the shared helpers by name.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
