"""Stages 1-2: get a site's bytes (wget mirror or a local folder) and tell its pages from its binaries."""
