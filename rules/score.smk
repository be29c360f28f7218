rule score:
    """Score one run with its dataset's metric: per question and aggregated."""
    input:
        unpack(metric_model_input),
        questions=RESULTS.questions(),
        predictions=RESULTS.predictions(),
    output:
        RESULTS.scores(),
    log:
        RESULTS.log("score", RUN),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("score", gpus=metric_model_gpus),
    params:
        metric=dataset_metric,
        metric_model=metric_model_config,
        cache=config["cache"],
    script:
        "scripts/score.py"
