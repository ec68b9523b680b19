"""The Fifth Avenue board: districts, commissioner arrows, plot rings, and the components.

Everything here is a constant or a pure function of constants; the mutable board lives in
the state. Districts and plots are addressed by index inside the engine and by name in
observations and actions (``"34w"``, ``"orange"``; ``"plain"`` is the 6-plot board's
colourless plot).
"""

from __future__ import annotations

COLOURS = ("orange", "green", "gray", "brown", "violet")
BLACK = "black"
BUSINESSES = ("boutique", "jeweler", "gallery", "perfumery")
VALUES = (4, 5, 6)  # card values; counts are stored as [fours, fives, sixes]

CITY_HALL = "city_hall"
CENTRAL_PARK = "central_park"

# Column by column from City Hall outwards: the order auctions are held in.
# [decision] Column order: within a column west to east.
# [decision] District name: ``42e`` is 42nd Street East.
DISTRICTS = ("34w", "34e", "42w", "ts", "42e", "52w", "52e")
DISTRICT_INDEX = {name: i for i, name in enumerate(DISTRICTS)}
COLUMNS = (("34w", "34e"), ("42w", "ts", "42e"), ("52w", "52e"))

# Commissioner paths (arrows); a move goes one step along an arrow.
ARROWS = {
    CITY_HALL: ("34w", "34e"),
    "34w": ("42w", "ts"),
    "34e": ("ts", "42e"),
    "42w": ("52w",),
    "ts": ("52w", "52e"),
    "42e": ("52e",),
    "52w": (CENTRAL_PARK,),
    "52e": (CENTRAL_PARK,),
    CENTRAL_PARK: (CITY_HALL,),
}

# Clockwise ring order of the five coloured plots in each district. [decision] Ring order: the
# board art is not available, so the rings were fixed by us.
RINGS = {
    "34w": ("orange", "green", "gray", "brown", "violet"),
    "34e": ("orange", "gray", "violet", "green", "brown"),
    "42w": ("green", "orange", "brown", "violet", "gray"),
    "ts": ("orange", "brown", "gray", "green", "violet"),
    "42e": ("gray", "orange", "violet", "brown", "green"),
    "52w": ("violet", "orange", "green", "brown", "gray"),
    "52e": ("brown", "orange", "gray", "violet", "green"),
}
# [decision] Six-plot board: geometry invented (the board art is not available): the 6-plot
# board's colourless plot lies between the last and first ring plot.
PLAIN = "plain"
PLAIN_PLOT = 5  # its index; coloured plots are 0..4 in ring order

BOARDS = ("5-plot", "6-plot")

# Components.
BUSINESS_COUNT = 9  # of each type
CARD_VALUES_COLOURED = (4,) * 5 + (5,) * 4 + (6,) * 3
CARD_VALUES_BLACK = (4,) * 20 + (5,) * 16 + (6,) * 14
SKYSCRAPERS_GENERAL = 12
SKYSCRAPERS_OWN = 3
ALEA_SKYSCRAPERS = 18
START_BLACK = 4
SET_SIZES = (3, 2, 3, 2, 3, 2, 3, 2)  # the supply row, left to right ([decision] First set of three: a 3-set first)

# Plot colour index per district and ring position; None for the plain plot.
PLOT_COLOUR = {d: tuple(COLOURS.index(c) for c in RINGS[d]) for d in DISTRICTS}
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
BUSINESS_INDEX = {b: i for i, b in enumerate(BUSINESSES)}


def plot_count(board: str) -> int:
    return 6 if board == "6-plot" else 5


def ring_neighbours(plots: int) -> tuple[tuple[int, int], ...]:
    """The two ring neighbours of every plot index; the plain plot (index 5) closes the ring."""
    return tuple(((p - 1) % plots, (p + 1) % plots) for p in range(plots))


def plot_name(district: int, plot: int) -> str:
    if plot == PLAIN_PLOT:
        return PLAIN
    return RINGS[DISTRICTS[district]][plot]


def plot_index(district: int, name: str, plots: int) -> int | None:
    """The ring position of the plot called ``name`` in ``district``, or None if there is none."""
    if name == PLAIN:
        return PLAIN_PLOT if plots == 6 else None
    try:
        return RINGS[DISTRICTS[district]].index(name)
    except ValueError:
        return None


def colour_plot(district: int, colour: int) -> int:
    """The ring position of the plot of colour index ``colour`` in ``district``."""
    return PLOT_COLOUR[DISTRICTS[district]].index(colour)


def destinations(position: str, closed: set[str]) -> list[str]:
    """Where one commissioner step from ``position`` can end: a move into a building-stopped
    district continues to one of its successors (mover's choice)."""
    result: list[str] = []
    for target in ARROWS[position]:
        if target in closed:
            for further in destinations(target, closed):
                if further not in result:
                    result.append(further)
        elif target not in result:
            result.append(target)
    return result

