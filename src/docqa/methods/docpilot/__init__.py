"""DocPilot: an agent that navigates, inspects, computes and verifies (see ``method``).

Importing the package registers the ``docpilot`` method.
"""

from docqa.methods.docpilot.method import DocPilot, DocPilotOptions

__all__ = ["DocPilot", "DocPilotOptions"]
