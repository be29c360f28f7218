rule render_pages:
    """PDF pages to PNG (pypdfium2), thumbnails and numbered overview grids; unreadable
    documents go to failures.jsonl and are skipped."""
    input:
        documents=RESULTS.documents(),
        docs=RESULTS.docs(),
    output:
        pages=RESULTS.pages(),
        overviews=RESULTS.overviews(),
        failures=RESULTS.render_failures(),
    log:
        RESULTS.log("render", "{dataset}"),
    conda:
        "../envs/cpu.yaml"
    resources:
        **job_resources("render_pages"),
    params:
        render=config["render"],
    script:
        "scripts/render_pages.py"
