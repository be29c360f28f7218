"""The report stage: results tables (CSV, Markdown), paper tables (also LaTeX and HTML) and
paper figures (PDF, PNG) from the score, retrieval-recall and failure files that the pipeline
hands over. ``build`` runs the job; ``plan`` decides from the config which figures exist."""

from docqa.report.figures import plot_retrieval_recall, plot_score_by_kind
from docqa.report.tables import results_table, write_tables

__all__ = ["plot_retrieval_recall", "plot_score_by_kind", "results_table", "write_tables"]
