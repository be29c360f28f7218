from pathlib import Path

from docqa.logs import setup_job_logging
from docqa.scoring import score_run, write_scores

setup_job_logging(snakemake.log[0])
wildcards = snakemake.wildcards
metric = snakemake.params.metric
scores = score_run(
    Path(snakemake.input.questions),
    Path(snakemake.input.predictions),
    metric["name"],
    metric["options"],
    {"dataset": wildcards.dataset, "method": wildcards.method, "model": wildcards.model},
)
write_scores(scores, Path(snakemake.output[0]))
