from pathlib import Path

from docqa.logs import setup_job_logging
from docqa.report.figures import plot_retrieval_recall, plot_score_by_kind
from docqa.report.retrieval_table import retrieval_table, write_retrieval_table
from docqa.report.tables import results_table, write_tables

setup_job_logging(snakemake.log[0])
scores = [Path(p) for p in snakemake.input.scores]
out = snakemake.output
write_tables(
    results_table(scores, [Path(p) for p in snakemake.input.failures]),
    Path(out.csv),
    Path(out.markdown),
)
recalls = [Path(p) for p in snakemake.input.recalls]
write_retrieval_table(
    retrieval_table(recalls), Path(out.retrieval_csv), Path(out.retrieval_markdown)
)
plot_score_by_kind(scores, Path(out.score_by_kind_png), Path(out.score_by_kind_pdf))
plot_retrieval_recall(
    recalls,
    Path(out.retrieval_recall_png),
    Path(out.retrieval_recall_pdf),
)
