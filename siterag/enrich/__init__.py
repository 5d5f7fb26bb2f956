"""Stages 5-6: dates, tags, summary, category, the Markdown corpus with front matter, and the quality gate."""
