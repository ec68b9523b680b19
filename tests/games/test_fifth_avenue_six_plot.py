"""Fifth Avenue 6-plot board variant: the colourless plain plot in every ring."""

from __future__ import annotations

import pytest

from arena.games.base import OptionError
from arena.games.fifth_avenue import board as B
from test_fifth_avenue_support import (GAME, after_setup, at_turn, empty_board, empty_hands, hand, new_state,
                                       put, start_round)


def test_plain_plot_sits_between_the_last_and_first_coloured_plots():
    neighbours = B.ring_neighbours(6)
    assert neighbours[B.PLAIN_PLOT] == (4, 0)
    assert neighbours[0] == (5, 1) and neighbours[4] == (3, 5)


def test_board_option_is_validated():
    assert GAME.validate(4, {"board": "6-plot"}) == {"board": "6-plot"}
    with pytest.raises(OptionError):
        GAME.validate(4, {"board": "7-plot"})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_six_plot_board_is_allowed_for_every_player_count(players):
    state = new_state(players=players, board="6-plot")
    assert state.plots == 6


def test_starting_businesses_go_on_the_plain_plots():
    state = new_state(board="6-plot")
    for d in range(len(B.DISTRICTS)):
        assert len(state.businesses[d][B.PLAIN_PLOT]) == 1
        assert all(not state.businesses[d][p] for p in range(5))


def test_plain_plot_never_takes_a_start_skyscraper():
    state = new_state(players=4, board="6-plot")
    while state.decision() == "place_skyscraper":
        assert all(a["plot"] != B.PLAIN for a in state.legal_actions())
        state.apply(state.legal_actions()[0])


def test_plain_plot_takes_a_second_business():
    state = after_setup(board="6-plot")
    at_turn(state, 0)
    kind = B.BUSINESSES[state.supply_row[0][0]]
    state.apply({"type": "place_business", "business": kind, "district": "34w", "plot": "plain"})
    assert len(state.businesses[0][B.PLAIN_PLOT]) == 2
    at_turn(state, 1)
    assert not any(a.get("plot") == "plain" and a.get("district") == "34w" for a in state.legal_actions())


def test_plain_plot_is_never_a_bid_colour_and_not_an_empty_plot():
    state = empty_board(board="6-plot")
    empty_hands(state)
    ring = B.RINGS["ts"]
    put(state, "ts", ring[0], owner=1, towers=1)
    for colour in ring[1:]:
        put(state, "ts", colour, businesses=["boutique"])
    hand(state, 0, {ring[1]: [4]})
    start_round(state, 0, markers=["ts"])
    assert state.auction.had_empty is False  # the empty plain plot does not count
    assert {B.COLOURS[c] for c in state.auction.allowed[0]} == set(ring[1:])


def test_plain_plot_businesses_count_for_both_neighbours():
    state = empty_board(board="6-plot")
    d = B.DISTRICT_INDEX["34w"]
    state.businesses[d][B.PLAIN_PLOT] = [B.BUSINESS_INDEX["boutique"], B.BUSINESS_INDEX["gallery"]]
    put(state, "34w", "orange", owner=0, towers=1)  # ring position 0
    put(state, "34w", "violet", owner=1, towers=1)  # ring position 4
    assert state.district_points(d)[:2] == [3, 3]
