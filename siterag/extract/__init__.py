"""Stage 4: a page's own text: blocks, the site's template, page chrome, and the modes that choose blocks."""
