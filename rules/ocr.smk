rule ocr_pages:
    """tesseract on every page, one process per thread, OMP_THREAD_LIMIT=1."""
    input:
        pages="results/pages/{dataset}/pages.jsonl",
    output:
        elements="results/ocr/{dataset}/elements.jsonl",
        failures="results/ocr/{dataset}/failures.jsonl",
    params:
        ocr=config["ocr"],
    threads: workflow.cores
    log:
        "results/logs/ocr/{dataset}.log",
    conda:
        "../envs/cpu.yaml"
    script:
        "scripts/ocr_pages.py"
