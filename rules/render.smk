rule render_pages:
    """PDF pages to PNG (pypdfium2), thumbnails and numbered overview grids; unreadable
    documents go to failures.jsonl and are skipped."""
    input:
        documents="results/data/{dataset}/documents.jsonl",
        docs="results/data/{dataset}/docs",
    output:
        pages="results/pages/{dataset}/pages.jsonl",
        overviews="results/pages/{dataset}/overviews.jsonl",
        failures="results/pages/{dataset}/failures.jsonl",
    log:
        "results/logs/render/{dataset}.log",
    conda:
        "../envs/cpu.yaml"
    params:
        render=config["render"],
    script:
        "scripts/render_pages.py"
