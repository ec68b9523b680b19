/* arena: the Five Towers board — market, bids, every seat's towers and teardowns.
 *
 * Draws an observation (a seat's view) or the full view (the snapshot: also the draw
 * pile's order and the torn-down cards). Towers are listed bottom first in the data and
 * drawn with the top card on top.
 */
"use strict";
(function () {
  const A = window.Arena;
  const h = A.h;
  const COLOURS = ["candy", "scary", "tree", "scrap", "sand"];

  function card(c, small) {
    const [colour, value] = c;
    return h("span", { class: "ft-card c-" + colour + (small ? " small" : ""), title: colour + " " + value, "data-card": colour + ":" + value }, String(value));
  }

  function seatLabel(ctx, seat) {
    return A.seatName(ctx, seat);
  }

  function bids(v, ctx) {
    const rows = [];
    for (let seat = 0; seat < v.players; seat++) {
      let text = "–", cls = "";
      if (v.bids[seat] !== null && v.bids[seat] !== undefined) { text = "bid " + v.bids[seat]; cls = "bid"; }
      else if (v.passed[seat]) { text = "passed"; cls = "passed"; }
      else if ((v.to_bid || []).includes(seat)) { text = "to bid"; }
      if (v.high_bidder === seat) cls += " high";
      rows.push(h("tr", { class: (seat === v.current_seat ? "acting " : "") + cls, "data-bid-seat": seat },
        h("td", null, h("span", { class: "seat-dot seat-" + seat }), seatLabel(ctx, seat), seat === v.start_player ? h("span", { class: "tag" }, "start") : null),
        h("td", { "data-testid": "bid-" + seat }, text)));
    }
    const history = (v.history || []).map((e) => {
      let text = e.type;
      if (e.type === "bid") text = "bid " + e.amount;
      else if (e.type === "rollback") text = "rollback of " + e.bid + (e.automatic ? " (automatic)" : "");
      else if (e.type === "build") text = "build " + (e.cards || []).map((c) => c[0] + " " + c[1]).join(", ") + (e.teardown ? "; tore down " + e.teardown : "");
      return h("li", null, h("span", { class: "seat-dot seat-" + e.seat }), "seat " + e.seat + ": " + text);
    });
    return A.panel("Bids", "ft-bids",
      h("p", { class: "muted" }, "high bid " + (v.high_bid === null ? "–" : v.high_bid) + (v.high_bidder === null ? "" : " by seat " + v.high_bidder) +
        " · max " + v.max_bid + (v.take !== null && v.take !== undefined ? " · take " + v.take : "") +
        (v.failed_bid !== null && v.failed_bid !== undefined ? " · failed bid " + v.failed_bid : "")),
      h("table", { class: "ft-bid-table" }, rows),
      history.length ? h("ol", { class: "ft-history" }, history) : null);
  }

  function towers(v, ctx, seat) {
    const columns = COLOURS.map((colour) => {
      const values = (v.towers[seat] || {})[colour] || [];
      const top = values.length ? values[values.length - 1] : null;
      const stack = values.slice().reverse().map((value) => card([colour, value]));
      return h("div", { class: "ft-tower" + (top === 0 ? " capped" : ""), "data-tower": seat + ":" + colour, "data-values": values.join(",") },
        h("div", { class: "ft-stack" }, stack.length ? stack : h("span", { class: "ft-empty" }, "·")),
        h("div", { class: "ft-tower-name c-" + colour }, colour + " " + values.length));
    });
    const torn = v.torn_down ? v.torn_down[seat] : 0;
    const tornCards = v.torn_down_cards ? v.torn_down_cards[seat] : null;
    const score = v.scores ? v.scores[seat] : null;
    const cls = "ft-seat" + (seat === v.current_seat ? " acting" : "") + (seat === ctx.seat ? " me" : "");
    return h("section", { class: cls, "data-seat": seat },
      h("h3", null, h("span", { class: "seat-dot seat-" + seat }), seatLabel(ctx, seat), seat === ctx.seat ? h("span", { class: "tag" }, "this view") : null,
        h("span", { class: "score", "data-testid": "score-" + seat }, "score " + A.fmt(score))),
      h("div", { class: "ft-towers" }, columns),
      h("p", { class: "muted ft-torn", "data-torn": torn }, "torn down: " + torn + (torn ? " (−" + (torn * (torn + 1)) / 2 + ")" : ""),
        tornCards && tornCards.length ? h("span", { class: "ft-cards-inline" }, " ", tornCards.map((c) => card(c, true))) : null));
  }

  A.boards["five-towers"] = function (v, ctx) {
    const info = h("p", { class: "board-info" },
      "round " + v.round + " · pass " + v.pass + (v.last_round ? " · last round" : "") + " · phase " + v.phase +
      " · to act: " + (v.current_seat === null ? "nobody" : seatLabel(ctx, v.current_seat)) +
      " · draw pile " + v.draw_pile_size + " of " + v.deck_size);
    const market = A.panel("Market", "ft-market",
      h("div", { class: "ft-cards", "data-testid": "market" }, v.market.length ? v.market.map((c) => card(c)) : h("span", { class: "muted" }, "empty")));
    const seats = [];
    for (let seat = 0; seat < v.players; seat++) seats.push(towers(v, ctx, seat));
    const piles = [A.panel("Discard pile (" + v.discard_pile.length + ")", "ft-discard",
      h("div", { class: "ft-cards" }, v.discard_pile.map((c) => card(c, true))))];
    if (v.draw_pile) {
      piles.push(A.panel("Draw pile, next card first (full view)", "ft-draw",
        h("div", { class: "ft-cards" }, v.draw_pile.slice().reverse().map((c) => card(c, true)))));
    }
    return h("div", { class: "ft", "data-game": "five-towers" }, info,
      h("div", { class: "ft-top" }, market, bids(v, ctx)),
      h("div", { class: "ft-seats" }, seats),
      h("div", { class: "ft-piles" }, piles));
  };
})();
