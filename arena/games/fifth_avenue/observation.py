"""What a Fifth Avenue seat may see (``observe``) and the complete state (``snapshot``).

Public: the board, commissioners and markers, the supply row, the tiles below Central Park,
scores, supplies, the top card and size of every colour stack, the black stack's size, every
player's coloured cards, every player's black card count, the current auction, and the
auctions that ended since the seat's previous decision (with Alea's turned cards). Private:
the seat's own black cards. Never shown: other players' black cards, the black stack order,
the removed businesses, the order of cards below the top of a colour stack.
"""

from __future__ import annotations

from arena.games.fifth_avenue import board as B
from arena.games.fifth_avenue.auction import counts_to_values

COMMISSIONERS = ("white", "beige")
PENDING_NAMES = {"cards": "take_cards", "move": "move", "auction_round": "auction_round",
                 "auction": "auction", "round_end": "auction_round_end", "end_turn": "end_turn",
                 "stop_choice": "build_or_stop", "option": "option", "place_start": "place_skyscraper"}


def owner_name(state, who: int):
    if who < 0:
        return None
    if who == state.alea:
        return "alea"
    return who


def board_view(state) -> list[dict]:
    districts = []
    for d, name in enumerate(B.DISTRICTS):
        plots = []
        for p in range(state.plots):
            plots.append({
                "plot": B.plot_name(d, p),
                "businesses": [B.BUSINESSES[b] for b in state.businesses[d][p]],
                "owner": owner_name(state, state.owner[d][p]),
                "skyscrapers": state.towers[d][p],
            })
        districts.append({"district": name, "closed": state.closed[d], "plots": plots})
    return districts


def bidders_view(state, auction) -> list[dict]:
    """Every bidder of ``auction`` in bidding order, with the cards in front of it now."""
    bidders = []
    for who in auction.bidders:
        bid = auction.bids.get(who)
        bidders.append({
            "bidder": owner_name(state, who),
            "passed": auction.passed[who],
            "allowed_colours": [B.COLOURS[c] for c in auction.allowed.get(who, ())],
            "colour": None if bid is None or bid.colour < 0 else B.COLOURS[bid.colour],
            "coloured": [] if bid is None else counts_to_values(bid.coloured),
            "black": [] if bid is None else counts_to_values(bid.black),
            "total": 0 if bid is None else bid.total(),
        })
    return bidders


def auction_place(auction) -> str:
    return B.CENTRAL_PARK if auction.district is None else B.DISTRICTS[auction.district]


def auction_view(state, seat: int) -> dict | None:
    auction = state.auction
    if auction is None:
        return None
    return {
        "district": auction_place(auction),
        "park_colour": None if auction.park_colour is None else B.COLOURS[auction.park_colour],
        "had_empty_plot": auction.had_empty,
        "bidders": bidders_view(state, auction),
        "to_act": owner_name(state, auction.to_act()) if auction.turn >= 0 else None,
        "high": auction.high,
        "leader": None if auction.leader is None else owner_name(state, auction.leader),
        "alea_cards": list(auction.alea_cards),
    }


def auction_summary(state, auction, number: int) -> dict:
    """The public record of a finished auction (``number`` counts them from 1). The bidders
    are as they were when it ended: a bidder that passed took its cards back and shows none;
    the winner shows its winning bid (discarded face up). ``result`` is what the winner did,
    completed by the build-or-stop choice if there is one."""
    return {
        "number": number,
        "district": auction_place(auction),
        "park_colour": None if auction.park_colour is None else B.COLOURS[auction.park_colour],
        "had_empty_plot": auction.had_empty,
        "bidders": bidders_view(state, auction),
        "high": auction.high,
        "winner": None if auction.leader is None else owner_name(state, auction.leader),
        "alea_cards": list(auction.alea_cards),
        "result": "nobody" if auction.leader is None else None,
        "plot": None,
        "skyscrapers": 0,
    }


def players_view(state) -> list[dict]:
    result = []
    for seat in range(state.players):
        result.append({
            "seat": seat,
            "score": state.scores_[seat],
            "own_supply": state.own_supply[seat],
            "general_supply": state.general[seat],
            "park_skyscrapers": state.park[seat],
            "coloured_cards": {B.COLOURS[c]: counts_to_values(state.coloured[seat][c])
                               for c in range(len(B.COLOURS))},
            "black_count": sum(state.black[seat]),
        })
    return result


def pending_view(state) -> list[str]:
    """The rest of the current turn, e.g. ["take_cards", "move", "end_turn"]."""
    names = []
    for step in state.steps[1:]:
        if step[0] == "auction":
            names.append("auction:" + (B.CENTRAL_PARK if step[1] is None else B.DISTRICTS[step[1]]))
        else:
            names.append(PENDING_NAMES[step[0]])
    return names


def copy_json(value):
    """A deep copy of a JSON value (observations never share lists with the state)."""
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def finished_auctions(state, seat: int) -> list[dict]:
    """The auctions that ended since ``seat``'s previous decision, oldest first.

    [decision] Alea's cards are public: also when the auction ends right after Alea turned
    them, and so is the rest of an auction's outcome. An auction can end (and even
    a second one after it) without any request in between: forced passes and Alea's draw
    need no decision. So every seat is shown every finished auction once, in its first
    request after the auction ended."""
    start = state.decided_at[seat] if 0 <= seat < state.players else len(state.auction_log)
    return copy_json(state.auction_log[start:])


def observe(state, seat: int) -> dict:
    observation = {
        "game": "fifth-avenue",
        "board": state.board,
        "players": state.players,
        "seat": seat,
        "current_seat": state.current_seat(),
        "decision": state.decision(),
        "active_seat": state.active,
        "turn": state.turn_number,
        "turn_option": state.option,
        "pending": pending_view(state),
        "districts": board_view(state),
        "commissioners": {COMMISSIONERS[c]: state.commissioners[c] for c in (0, 1)},
        "markers": {COMMISSIONERS[c]: [B.DISTRICTS[d] for d in sorted(state.markers[c])] for c in (0, 1)},
        "supply_row": [[B.BUSINESSES[b] for b in row] for row in state.supply_row],
        "below_park": [B.BUSINESSES[b] for b in state.below_park],
        "businesses_placed": state.businesses_placed,
        "building_stops": state.stops,
        "scores": list(state.scores_),
        "players_info": players_view(state),
        "your_black_cards": counts_to_values(state.black[seat]) if 0 <= seat < state.players else [],
        "stacks": {
            **{B.COLOURS[c]: {"top": state.stacks[c][-1] if state.stacks[c] else None,
                              "size": len(state.stacks[c])} for c in range(len(B.COLOURS))},
            B.BLACK: {"size": len(state.black_stack)},
        },
        "auction": auction_view(state, seat),
        "finished_auctions": finished_auctions(state, seat),
        "over": state.over,
    }
    if not state.over and state.steps[0][0] == "stop_choice":
        _, winner, d, p, count = state.steps[0]
        observation["build_choice"] = {"district": B.DISTRICTS[d], "plot": B.plot_name(d, p),
                                       "skyscrapers": min(count, state.own_supply[winner])}
    if state.alea is not None:
        observation["alea"] = {"own_supply": state.own_supply[state.alea],
                               "park_skyscrapers": state.park[state.alea]}
    if state.over:
        observation["end"] = {"reason": state.end_reason,
                              "revealed": [B.BUSINESSES[b] for b in state.revealed or []]}
    return observation


def snapshot(state) -> dict:
    """Everything, hidden parts included (tests, replays)."""
    return {
        "players": state.players,
        "board": state.board,
        "businesses": [[list(p) for p in d] for d in state.businesses],
        "owner": [list(d) for d in state.owner],
        "towers": [list(d) for d in state.towers],
        "closed": list(state.closed),
        "commissioners": list(state.commissioners),
        "markers": [sorted(m) for m in state.markers],
        "supply_row": [list(r) for r in state.supply_row],
        "below_park": list(state.below_park),
        "removed": list(state.removed),
        "park": list(state.park),
        "scores": list(state.scores_),
        "own_supply": list(state.own_supply),
        "general": list(state.general),
        "gone": list(state.gone),
        "stopped_businesses": list(state.stopped_businesses),
        "coloured": [[list(c) for c in s] for s in state.coloured],
        "black": [list(b) for b in state.black],
        "stacks": [list(s) for s in state.stacks],
        "black_stack": list(state.black_stack),
        "businesses_placed": state.businesses_placed,
        "stops": state.stops,
        "turn": state.turn_number,
        "active": state.active,
        "option": state.option,
        "steps": [list(step) for step in state.steps],
        "auction": auction_view(state, -1),
        "auction_log": copy_json(state.auction_log),
        "decided_at": list(state.decided_at),
        "over": state.over,
        "end_reason": state.end_reason,
        "revealed": state.revealed,
    }
