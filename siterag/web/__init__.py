"""`siterag web`: read, search and browse the archive in a browser (siterag.web.app); read-only, local."""
