"""The Agent Avenue cards: the 38-card agent deck with its movement tables, the street, and
the 15 Black Market cards of the advanced game. Pure constants and one lookup."""

from __future__ import annotations

# --- Agents -------------------------------------------------------------------------------

DOUBLE_AGENT = "double_agent"
ENFORCER = "enforcer"
CODEBREAKER = "codebreaker"
SABOTEUR = "saboteur"
DAREDEVIL = "daredevil"
SENTINEL = "sentinel"  # the Dutch text calls it "detective"
SIDEKICK = "sidekick"  # Dutch: "handlanger"
MOLE = "mole"

AGENTS = (DOUBLE_AGENT, ENFORCER, CODEBREAKER, SABOTEUR, DAREDEVIL, SENTINEL, SIDEKICK, MOLE)

COPIES = {DOUBLE_AGENT: 6, ENFORCER: 6, CODEBREAKER: 6, SABOTEUR: 6, DAREDEVIL: 6,
          SENTINEL: 6, SIDEKICK: 1, MOLE: 1}

# Movement for the 1st / 2nd / 3rd-and-later copy of that name in the recruiting side's play
# area (the new one included). Positive = clockwise (forward). Sidekick and mole exist once,
# but a card can come back into play (spycation, mind control), so their row is full too.
MOVES = {
    DOUBLE_AGENT: (-1, 6, -1),
    ENFORCER: (1, 2, 3),
    CODEBREAKER: (0, 0, 0),
    SABOTEUR: (-1, -1, -2),
    DAREDEVIL: (2, 3, 3),
    SENTINEL: (0, 2, 6),
    SIDEKICK: (4, 4, 4),
    MOLE: (-3, -3, -3),
}

AGENT_DECK = tuple(name for name in AGENTS for _ in range(COPIES[name]))  # 38 cards

WINNING_CODEBREAKERS = 3  # 3rd codebreaker in play: you win (check phase)
LOSING_DAREDEVILS = 3  # 3rd daredevil in play: you lose (check phase)


def movement(name: str, copies_in_play: int) -> int:
    """The printed value for the ``copies_in_play``-th copy (4th, 5th, 6th use the 3rd)."""
    return MOVES[name][min(copies_in_play, 3) - 1]


# --- The street ---------------------------------------------------------------------------

STREET = 14  # a loop of spaces 0..13, clockwise
HOMES = (0, 7)  # team 0's home, team 1's home
CATCH_DISTANCE = 7  # the homes are 7 apart, so a net gain of 7 reaches the other spy
CORNERS = frozenset((2, 5, 9, 12))  # Black Market spaces (advanced side of the board)

HAND_SIZE = 4
DISCARDS_PER_PLAYER = 4  # 2-player game, and a player alone in the 3-player team game
DISCARDS_PER_TEAMMATE = 2

# --- The Black Market (advanced game) -----------------------------------------------------

GETAWAY_CAR = "getaway_car"
SECURITY_SYSTEM = "security_system"
MASTERPLAN = "masterplan"
LEADER_OF_THE_PACK = "leader_of_the_pack"
SUPERCOMPUTER = "supercomputer"
WATCHTOWER = "watchtower"
DISTRACTION_DEVICE = "distraction_device"
SINISTER_TWIN = "sinister_twin"
SURVEILLANCE_TRUCK = "surveillance_truck"
SMOKE_SCREEN = "smoke_screen"
OUTPOST = "outpost"
SECRET_RECRUIT = "secret_recruit"
DOUBLE_TROUBLE = "double_trouble"
SPYCATION = "spycation"
MIND_CONTROL = "mind_control"

ONGOING = (GETAWAY_CAR, SECURITY_SYSTEM, MASTERPLAN, LEADER_OF_THE_PACK, SUPERCOMPUTER,
           WATCHTOWER, DISTRACTION_DEVICE, SINISTER_TWIN)
INSTANT = (SURVEILLANCE_TRUCK, SMOKE_SCREEN, OUTPOST, SECRET_RECRUIT, DOUBLE_TROUBLE,
           SPYCATION, MIND_CONTROL)
BLACK_MARKET = ONGOING + INSTANT  # 15 cards, one copy each
OFFER_SIZE = 3

GETAWAY_STEPS = 3
SUPERCOMPUTER_STEPS = 3
WATCHTOWER_STEPS = 2
SURVEILLANCE_STEPS = 1
MASTERPLAN_NAMES = 7
