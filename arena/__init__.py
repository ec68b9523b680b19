"""arena: a tournament harness for bot competitions in three tabletop games."""

__version__ = "0.1.0"
