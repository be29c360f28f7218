"""Helpers of the tests (and benchmarks): tiny models built offline, scripted backends, the
acme document, workflow copies for Snakemake runs, fake dataset hubs. Imported as
``from helpers.<module> import ...`` (tests/conftest.py puts tests/ on the import path)."""
