from pathlib import Path

from docqa.backends.model_spec import ModelSpec
from docqa.runtime.logs import setup_job_logging
from docqa.stages.training import synthesize_stage

setup_job_logging(snakemake.log[0])
inputs, params = snakemake.input, snakemake.params
synthesize_stage(
    questions=Path(inputs.questions),
    documents=Path(inputs.documents),
    pages=Path(inputs.pages),
    elements=Path(inputs.elements),
    overviews=Path(inputs.overviews),
    method_config=params.method,
    teacher=ModelSpec(params.teacher, Path(inputs.teacher)),
    out=Path(snakemake.output[0]),
    max_questions=params.max_questions,
)
