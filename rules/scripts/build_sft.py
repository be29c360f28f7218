from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.training import build_stage

setup_job_logging(snakemake.log[0])
build_stage(
    Path(snakemake.input.single),
    Path(snakemake.input.multi),
    Path(snakemake.output.single).parent,
)
