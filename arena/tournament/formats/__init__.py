"""Tournament formats: which matches are played, in which seats, in which order."""
