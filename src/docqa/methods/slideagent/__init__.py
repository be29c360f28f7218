"""SlideAgent (Jin et al., 2025): hierarchical knowledge over slide decks; see README.md here
for every design decision."""

from docqa.methods.slideagent.method import SlideAgent, SlideAgentOptions

__all__ = ["SlideAgent", "SlideAgentOptions"]
