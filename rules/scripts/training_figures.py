from pathlib import Path

from docqa.runtime.logs import setup_job_logging
from docqa.training.figures import plot_losses

setup_job_logging(snakemake.log[0])
stages = dict(zip(snakemake.params.stages, map(Path, snakemake.input.stages), strict=True))
plot_losses(stages, Path(snakemake.output.png), Path(snakemake.output.pdf))
