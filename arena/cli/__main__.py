"""`python -m arena.cli`: the command group itself (tests run it so; `arena` goes through arena.entry)."""

from arena.cli import main

main()
