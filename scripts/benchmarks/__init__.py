"""Benchmarks behind ``docs/benchmarks.md`` (``python -m whist_catalogue.scripts.benchmarks.<name>``)."""
