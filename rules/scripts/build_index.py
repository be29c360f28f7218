from pathlib import Path

from docqa.indexing import build_indexes, evaluate_recall, write_recall
from docqa.logs import setup_job_logging

setup_job_logging(snakemake.log[0])
options = dict(snakemake.params.retriever)
retriever = options.pop("type")
docs = Path(snakemake.output.docs)
build_indexes(retriever, options, Path(snakemake.input.pages), Path(snakemake.input.elements), docs)
result = evaluate_recall(retriever, options, Path(snakemake.input.questions), docs)
write_recall(result, snakemake.wildcards.dataset, Path(snakemake.output.recall))
