rule build_index:
    """One retriever index per document, and the retriever's recall@k on the dataset."""
    input:
        questions="results/data/{dataset}/questions.jsonl",
        pages="results/pages/{dataset}/pages.jsonl",
        elements="results/ocr/{dataset}/elements.jsonl",
    output:
        docs=directory("results/index/{dataset}/{retriever}/docs"),
        recall="results/index/{dataset}/{retriever}/recall.json",
    params:
        retriever=retriever_config,
    log:
        "results/logs/index/{dataset}/{retriever}.log",
    conda:
        "../envs/cpu.yaml"
    script:
        "scripts/build_index.py"
