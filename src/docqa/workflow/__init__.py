"""The workflow layer, the top of the package: what the Snakefile and the rule files read
(:mod:`docqa.workflow.snakefile`), the config checks, provenance and ``docqa doctor``. Nothing
below it imports it."""
