from pathlib import Path

from docqa.runtime.gpu_lock import gpus_for_job
from docqa.runtime.logs import setup_job_logging
from docqa.stages.index import evaluate_recall, write_recall
from docqa.workflow.jobs import build_index, index_entry

setup_job_logging(snakemake.log[0])
fused = snakemake.params.fused  # a hybrid's: the retrievers it fuses, their indexes built first
entry = index_entry(
    snakemake.params.retriever,
    {
        name: (config, Path(docs))
        for (name, config), docs in zip(fused.items(), snakemake.input.fused, strict=True)
    },
)
docs = Path(snakemake.output.docs)
# a page-image retriever's own GPU, taken before anything initialises CUDA (docqa.runtime.gpu_lock)
with gpus_for_job(snakemake.resources.gpu):
    build_index(entry, Path(snakemake.input.pages), Path(snakemake.input.elements), docs)
    result = evaluate_recall(
        snakemake.wildcards.retriever, entry, Path(snakemake.input.questions), docs
    )
write_recall(result, snakemake.wildcards.dataset, Path(snakemake.output.recall))
