import os
from pathlib import Path

import torch

from docqa.backends.model_spec import ModelSpec
from docqa.runtime.gpu_lock import gpus_for_job
from docqa.runtime.logs import setup_job_logging
from docqa.stages.training import stage_options, train_stage_job

setup_job_logging(snakemake.log[0])
params, inputs = snakemake.params, snakemake.input
torch.set_num_threads(min(snakemake.threads, os.cpu_count() or 1))
out = Path(snakemake.output[0]).parent
with gpus_for_job(snakemake.resources.gpu):
    train_stage_job(
        student=ModelSpec(params.student, Path(inputs.student)),
        data=Path(inputs.data),
        out=out,
        options=stage_options(params.entry, snakemake.wildcards.stage),
        init_from=Path(inputs.start[0]).parent if inputs.start else None,
    )
