from pathlib import Path

from docqa.report.traces_cli import render_traces
from docqa.runtime.logs import setup_job_logging

setup_job_logging(snakemake.log[0])
# a run without predictions still gets its (empty) index
Path(snakemake.output[0]).mkdir(parents=True, exist_ok=True)
render_traces(
    Path(snakemake.input.predictions),
    Path(snakemake.input.questions),
    Path(snakemake.input.pages),
    Path(snakemake.output[0]),
)
