"""Infrastructure: the SAM template and the local stack that emulates it on a laptop."""
