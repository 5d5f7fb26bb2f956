"""Prefect flows: one per site, and one over every site of a config file."""

from flows.site import all_sites_flow, site_flow

__all__ = ["site_flow", "all_sites_flow"]
