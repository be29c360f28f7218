from pathlib import Path

from docqa.backends.model_spec import ModelSpec
from docqa.runtime.logs import setup_job_logging
from docqa.stages.training import filter_stage

setup_job_logging(snakemake.log[0])
inputs, params, output = snakemake.input, snakemake.params, snakemake.output
filter_stage(
    trajectories=dict(zip(params.datasets, map(Path, inputs.trajectories), strict=True)),
    student=ModelSpec(params.student, Path(inputs.student)),
    metrics=params.metrics,
    settings=params.settings,
    multi_out=Path(output.multi),
    single_out=Path(output.single),
    report_out=Path(output.report),
)
