import sys
from pathlib import Path

# the training tests reuse the DocPilot tests' 'acme' PDF fixture (tests/methods)
sys.path.insert(0, str(Path(__file__).parents[1] / "methods"))
# ... and the tiny random VLMs of the backend tests (tests/backends)
sys.path.insert(0, str(Path(__file__).parents[1] / "backends"))
