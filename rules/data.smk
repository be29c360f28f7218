rule prepare_dataset:
    """Download or generate a dataset: its documents, and its questions in docqa's data model."""
    output:
        questions="results/data/{dataset}/questions.jsonl",
        documents="results/data/{dataset}/documents.jsonl",
        docs=directory("results/data/{dataset}/docs"),
    params:
        source=dataset_source,
    log:
        "results/logs/data/{dataset}.log",
    conda:
        "../envs/cpu.yaml"
    script:
        "scripts/prepare_dataset.py"
