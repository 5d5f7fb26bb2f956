"""Stage 3: decode each page by its real encoding and make it safe for libxml2, losing no text."""
