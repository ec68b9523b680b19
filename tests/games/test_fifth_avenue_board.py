"""Fifth Avenue board: districts, arrows, rings, plots and the one-plot-per-district rule."""

from __future__ import annotations

import pytest

from arena.games.base import IllegalAction
from arena.games.fifth_avenue import board as B
from test_fifth_avenue_support import (PASS, after_setup, at_turn, empty_board, empty_hands, hand,
                                       put, start_round)


def test_seven_districts_in_three_columns_from_city_hall():
    assert B.COLUMNS == (("34w", "34e"), ("42w", "ts", "42e"), ("52w", "52e"))
    assert B.DISTRICTS == tuple(d for column in B.COLUMNS for d in column)


def test_commissioner_arrows_are_those_of_the_rules():
    assert B.ARROWS == {
        "city_hall": ("34w", "34e"), "34w": ("42w", "ts"), "34e": ("ts", "42e"),
        "42w": ("52w",), "ts": ("52w", "52e"), "42e": ("52e",),
        "52w": ("central_park",), "52e": ("central_park",), "central_park": ("city_hall",),
    }


def test_rings_follow_the_colour_table():
    assert B.RINGS["34w"] == ("orange", "green", "gray", "brown", "violet")
    assert B.RINGS["34e"] == ("orange", "gray", "violet", "green", "brown")
    assert B.RINGS["42w"] == ("green", "orange", "brown", "violet", "gray")
    assert B.RINGS["ts"] == ("orange", "brown", "gray", "green", "violet")
    assert B.RINGS["42e"] == ("gray", "orange", "violet", "brown", "green")
    assert B.RINGS["52w"] == ("violet", "orange", "green", "brown", "gray")
    assert B.RINGS["52e"] == ("brown", "orange", "gray", "violet", "green")


def test_every_district_has_one_plot_of_each_colour():
    for ring in B.RINGS.values():
        assert sorted(ring) == sorted(B.COLOURS)


def test_each_plot_touches_exactly_its_two_ring_neighbours():
    assert B.ring_neighbours(5) == ((4, 1), (0, 2), (1, 3), (2, 4), (3, 0))


def test_adjacency_never_crosses_a_district_border():
    # Scoring a skyscraper looks only at its own district's neighbours.
    state = empty_board()
    put(state, "34w", "orange", owner=0, towers=1)
    put(state, "34e", "orange", businesses=["boutique", "jeweler"])  # same colour, other district
    put(state, "42w", "orange", businesses=["gallery"])
    assert state.district_points(B.DISTRICT_INDEX["34w"])[0] == 1


def test_closed_district_is_skipped_to_any_of_its_successors():
    assert B.destinations("34e", {"ts"}) == ["52w", "52e", "42e"]
    assert B.destinations("42w", {"52w"}) == ["central_park"]
    assert B.destinations("city_hall", set()) == ["34w", "34e"]


def test_second_start_skyscraper_must_go_to_another_district():
    state = after_setup(players=2)
    for d in range(len(B.DISTRICTS)):
        owners = [o for o in state.owner[d] if o >= 0]
        assert len(owners) == len(set(owners))


def test_start_skyscraper_only_on_an_empty_plot():
    state = after_setup(players=4)
    for d in range(len(B.DISTRICTS)):
        for p in range(5):
            assert not (state.owner[d][p] >= 0 and state.businesses[d][p])


def test_business_may_not_go_on_a_skyscraper_plot():
    state = empty_board()
    put(state, "ts", "gray", owner=1, towers=1)
    at_turn(state, 0)
    targets = {(a["district"], a["plot"]) for a in state.legal_actions() if a["type"] == "place_business"}
    assert ("ts", "gray") not in targets
    assert ("ts", "brown") in targets


def test_player_with_a_plot_must_bid_its_colour_so_never_owns_two():
    state = empty_board()
    empty_hands(state)
    put(state, "ts", "gray", owner=0, towers=1)
    hand(state, 0, {"green": [4], "gray": [4]})
    start_round(state, 0, markers=["ts"])
    adds = [a for a in state.legal_actions() if a["type"] == "add"]
    assert {a["colour"] for a in adds} == {"gray"}
    with pytest.raises(IllegalAction, match="gray"):
        state.apply({"type": "add", "colour": "green", "value": 4})


def test_skyscrapers_are_never_built_on_a_business_plot_when_plots_are_empty():
    state = empty_board()
    empty_hands(state)
    put(state, "ts", "gray", businesses=["boutique"])
    hand(state, 0, {"gray": [4], "green": [4]})
    start_round(state, 0, markers=["ts"])
    assert {a["colour"] for a in state.legal_actions() if a["type"] == "add"} == {"green"}
    assert PASS in state.legal_actions()
