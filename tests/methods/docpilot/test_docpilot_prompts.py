"""DocPilot's role prompts are docqa's own (docs/fidelity.md, "Role prompts and stop strings"):
the stop strings that row states are the ones each role's request carries."""

from __future__ import annotations

from docqa.methods.docpilot import prompts


def test_the_stop_strings_the_fidelity_table_states() -> None:
    assert "\n\n" in prompts.FACTS_STOP
    assert "\n\n" in prompts.NAVIGATOR_STOP
    assert "\n\n" in prompts.ANALYZER_STOP
    assert prompts.ANSWER_STOP == ("\n",)
    assert "\nStep " in prompts.ORCHESTRATOR_STOP
