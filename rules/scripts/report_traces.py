from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.report import write_traces

setup_job_logging(snakemake.log[0])
write_traces(
    Path(snakemake.input.predictions),
    Path(snakemake.input.questions),
    Path(snakemake.input.pages),
    Path(snakemake.input.scores),
    Path(snakemake.output[0]),
)
