"""Scheduled incremental refresh: one Prefect deployment per site."""
