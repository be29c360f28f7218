"""MDocAgent (Han et al., 2025): five cooperating agents over text and image retrieval (see
``method``).

Importing the package registers the ``mdocagent`` method.
"""

from docqa.methods.mdocagent.method import MDocAgent, MDocAgentOptions

__all__ = ["MDocAgent", "MDocAgentOptions"]
