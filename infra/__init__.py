"""Infrastructure: the SAM template (the release) and, in local/, its emulation on a laptop."""
