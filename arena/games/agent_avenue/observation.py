"""What a seat may see of an Agent Avenue match, and the complete snapshot.

Public: spies, play areas, the Black Market offer and owned cards, discard-and-redraw counts,
hand sizes, the draw pile size, the face-up card of the current play, the last finished play.
Private: your own hand; the face-down card, to the seat that played it only. Never shown: any
other hand (a teammate's included), the face-down card to anyone else, the order of the draw
pile and of the Black Market pile, face-down discards.
"""

from __future__ import annotations

from arena.games.agent_avenue.cards import HOMES, STREET


def observe(state, seat: int) -> dict:
    side = state.side_of[seat]
    other = 1 - side
    return {
        "game": "agent-avenue",
        "seat": seat,
        "players": state.players,
        "advanced": state.advanced,
        "team": side,
        "teams": [list(members) for members in state.sides],
        "phase": state.phase,
        "to_move": state.to_move,
        "turn": state.turn_number,
        "active_team": state.active,
        "opener": state.opener,
        "partner": state.partner,
        "chooser": state.chooser,
        "spies": [spy(state, s) for s in (0, 1)],
        "lead": state.totals[side] - state.totals[other],
        "play_areas": [dict(area) for area in state.areas],
        "hand": sorted(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "discards_left": list(state.discards_left),
        "draw_pile": len(state.deck),
        "current_play": current_play(state, seat),
        "last_play": dict(state.last_play) if state.last_play else None,
        "black_market": black_market(state) if state.advanced else None,
        "winner_team": state.winner,
        "end_reason": state.end_reason,
    }


def spy(state, side: int) -> dict:
    total = state.totals[side]
    return {"team": side, "home": HOMES[side], "position": (HOMES[side] + total) % STREET, "total": total}


def current_play(state, seat: int) -> dict | None:
    if state.face_up is None:
        return None
    return {
        "face_up": state.face_up,
        "face_up_seat": state.face_up_seat,
        "face_down_played": state.face_down is not None,
        "face_down_seat": state.face_down_seat,
        # [decision] Face-down card: only the seat that played it sees it (not a teammate)
        "face_down": state.face_down if seat == state.face_down_seat else None,
    }


def black_market(state) -> dict:
    pending = None
    if state.pending is not None:
        card, side, taker = state.pending
        pending = {"card": card, "team": side, "seat": taker}
    return {
        "offer": list(state.bm_offer),
        "pile": len(state.bm_pile),
        "discarded": list(state.bm_discard),
        "owned": [list(cards) for cards in state.owned],
        "queue": list(state.queue),
        "effect": pending,
    }


def snapshot(state) -> dict:
    """Everything, hidden parts included (tests, replays)."""
    return {
        "players": state.players,
        "seed": state.seed,
        "advanced": state.advanced,
        "teams": [list(members) for members in state.sides],
        "phase": state.phase,
        "to_move": state.to_move,
        "turn": state.turn_number,
        "turns": list(state.turns),
        "active_team": state.active,
        "opener": state.opener,
        "partner": state.partner,
        "chooser": state.chooser,
        "totals": list(state.totals),
        "positions": [(HOMES[s] + state.totals[s]) % STREET for s in (0, 1)],
        "play_areas": [dict(area) for area in state.areas],
        "hands": [list(hand) for hand in state.hands],
        "deck": list(state.deck),
        "discarded": [list(cards) for cards in state.discarded],
        "discards_left": list(state.discards_left),
        "face_up": state.face_up,
        "face_down": state.face_down,
        "face_up_seat": state.face_up_seat,
        "face_down_seat": state.face_down_seat,
        "last_play": dict(state.last_play) if state.last_play else None,
        "bm_offer": list(state.bm_offer),
        "bm_pile": list(state.bm_pile),
        "bm_discard": list(state.bm_discard),
        "owned": [list(cards) for cards in state.owned],
        "queue": list(state.queue),
        "pending": list(state.pending) if state.pending else None,
        "winner_team": state.winner,
        "end_reason": state.end_reason,
    }
