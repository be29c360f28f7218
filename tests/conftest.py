import sys
from pathlib import Path

# tests/ holds shared helpers (workflow.py) next to the tests
sys.path.insert(0, str(Path(__file__).parent))
