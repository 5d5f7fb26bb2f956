"""Hybrid search over the index and `ask`, an answer that cites its pages."""
