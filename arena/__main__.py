"""`python -m arena`: the same as the `arena` command."""

from arena.entry import main

main()
