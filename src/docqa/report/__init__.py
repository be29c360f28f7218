"""The report stage: results tables (CSV, Markdown) and paper figures (PDF, PNG) from the
score, retrieval-recall and failure files that the pipeline hands over."""

from docqa.report.figures import plot_retrieval_recall, plot_score_by_kind
from docqa.report.tables import results_table, write_tables

__all__ = ["plot_retrieval_recall", "plot_score_by_kind", "results_table", "write_tables"]
