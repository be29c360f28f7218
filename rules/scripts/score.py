from pathlib import Path

from docqa.backends import create_backend
from docqa.runtime.logs import setup_job_logging
from docqa.stages.score import score_run, write_scores

setup_job_logging(snakemake.log[0])
wildcards = snakemake.wildcards
metric = snakemake.params.metric
# a judge or answer-extraction model, when the metric's options name one
backend = None
if "metric_model" in snakemake.input.keys():  # noqa: SIM118 - a Namedlist: `in` looks at values
    backend = create_backend(snakemake.params.metric_model, Path(snakemake.input.metric_model))
try:
    scores = score_run(
        Path(snakemake.input.questions),
        Path(snakemake.input.predictions),
        metric["name"],
        metric["options"],
        {"dataset": wildcards.dataset, "method": wildcards.method, "model": wildcards.model},
        backend=backend,
        cache=Path(snakemake.params.cache) if backend else None,
    )
finally:
    if backend is not None:
        backend.close()
write_scores(scores, Path(snakemake.output[0]))
