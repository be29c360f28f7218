rule score:
    """Score one run with its dataset's metric: per question and aggregated."""
    input:
        unpack(metric_model_input),
        questions="results/data/{dataset}/questions.jsonl",
        predictions="results/runs/{dataset}/{method}/{model}/predictions.jsonl",
    output:
        "results/scores/{dataset}/{method}/{model}.json",
    log:
        "results/logs/score/{dataset}/{method}/{model}.log",
    conda:
        "../envs/cpu.yaml"
    params:
        metric=dataset_metric,
        metric_model=metric_model_config,
        cache=config["cache"],
    script:
        "scripts/score.py"
