"""Generators of the reports in ``docs/`` (``python -m whist_catalogue.scripts.reports.<name>``)."""
