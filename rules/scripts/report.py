from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.stages.report import build_report

setup_job_logging(snakemake.log[0])
build_report(
    scores=[Path(p) for p in snakemake.input.scores],
    recalls=[Path(p) for p in snakemake.input.recalls],
    failures=[Path(p) for p in snakemake.input.failures],
    reported=Path(snakemake.input.reported),
    outputs={name: Path(path) for name, path in snakemake.output.items()},
    params=dict(snakemake.params.items()),
)
