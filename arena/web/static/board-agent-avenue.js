/* arena: the Agent Avenue board — the 14-space street with both spies and the Black Market
 * corners, the play areas, the cards on offer, hands.
 *
 * The street is drawn as the board's loop: corners 12, 2, 5, 9 at the corners of a
 * rectangle, homes 0 (team 0) and 7 (team 1) in the middle of the long sides, clockwise.
 * The full view shows every hand and the face-down card; a seat's view shows what that
 * seat may see (its own hand; other hands as counts).
 */
"use strict";
(function () {
  const A = window.Arena;
  const h = A.h;
  const S = A.svg;
  // space -> [column, row] on a 5 x 4 grid of the loop
  const CELLS = { 12: [0, 0], 13: [1, 0], 0: [2, 0], 1: [3, 0], 2: [4, 0], 3: [4, 1], 4: [4, 2], 5: [4, 3],
    6: [3, 3], 7: [2, 3], 8: [1, 3], 9: [0, 3], 10: [0, 2], 11: [0, 1] };
  const CORNERS = [2, 5, 9, 12];
  const HOMES = [0, 7];
  const UNIT = 84, PAD = 10, SIZE = 64;
  const VALUES = { double_agent: "−1/+6/−1", enforcer: "+1/+2/+3", codebreaker: "0 (3: win)", saboteur: "−1/−1/−2",
    daredevil: "+2/+3/+3 (3: lose)", sentinel: "0/+2/+6", sidekick: "+4", mole: "−3" };

  function agent(name, extra) {
    if (name === null || name === undefined) return h("span", { class: "aa-card back", title: "hidden" }, "?");
    return h("span", { class: "aa-card a-" + name + (extra ? " " + extra : ""), title: name.replace(/_/g, " ") + ": " + (VALUES[name] || ""), "data-agent": name }, name.replace(/_/g, " "));
  }

  function bm(name) {
    return h("span", { class: "aa-bm", "data-bm": name, title: name.replace(/_/g, " ") }, name.replace(/_/g, " "));
  }

  function teamName(v, team) {
    const seats = (v.teams || [])[team] || [];
    return "team " + team + " (seat" + (seats.length > 1 ? "s " : " ") + seats.join(", ") + ")";
  }

  const LINE = 17;

  function wrapWords(text, width) {
    const lines = [];
    let line = "";
    for (const word of text.split(/\s+/).filter(Boolean)) {
      if (line && (line + " " + word).length > width) { lines.push(line); line = word; } else line = line ? line + " " + word : word;
    }
    if (line) lines.push(line);
    return lines;
  }

  function street(v) {
    const width = 4 * UNIT + SIZE + 2 * PAD, height = 3 * UNIT + SIZE + 2 * PAD;
    const svg = S("svg", { class: "aa-street", viewBox: "0 0 " + width + " " + height, width, height, role: "img", "aria-label": "the street" });
    for (let space = 0; space < 14; space++) {
      const [col, row] = CELLS[space];
      const x = PAD + col * UNIT, y = PAD + row * UNIT;
      let cls = "aa-space";
      if (v.advanced && CORNERS.includes(space)) cls += " corner";
      if (HOMES.includes(space)) cls += " home home-" + HOMES.indexOf(space);
      const g = S("g", { class: cls, "data-space": space },
        S("rect", { x, y, width: SIZE, height: SIZE, rx: 8 }),
        S("text", { x: x + 6, y: y + 15, class: "aa-num" }, String(space)));
      if (HOMES.includes(space)) g.appendChild(S("text", { x: x + SIZE - 6, y: y + 15, class: "aa-label", "text-anchor": "end" }, "home " + HOMES.indexOf(space)));
      else if (v.advanced && CORNERS.includes(space)) g.appendChild(S("text", { x: x + SIZE - 6, y: y + 15, class: "aa-label", "text-anchor": "end" }, "BM"));
      svg.appendChild(g);
    }
    for (const spy of v.spies) {
      const [col, row] = CELLS[spy.position];
      const x = PAD + col * UNIT + (spy.team === 0 ? 20 : 44), y = PAD + row * UNIT + 42;
      svg.appendChild(S("g", { class: "aa-spy team-" + spy.team, "data-spy": spy.team, "data-position": spy.position },
        S("circle", { cx: x, cy: y, r: 13 }),
        S("text", { x, y: y + 4, "text-anchor": "middle" }, String(spy.team)),
        S("title", null, teamName(v, spy.team) + " spy on space " + spy.position + " (moved " + spy.total + ")")));
    }
    // The middle of the loop (inside the spaces) holds the turn, the lead and, at the end, who
    // won and why: the reason wrapped into lines that fit there, the block centred.
    const cx = width / 2, cy = height / 2;
    const lead = v.spies[0].total - v.spies[1].total;
    const lines = [["turn " + v.turn + " · " + v.phase, "aa-centre"],
      ["team 0 " + (lead >= 0 ? "leads by " + lead : "trails by " + -lead) + " (7 catches)", "aa-centre small"]];
    if (v.winner_team !== null && v.winner_team !== undefined) {
      lines.push(["team " + v.winner_team + " wins", "aa-centre win"]);
      for (const line of wrapWords(v.end_reason || "", 34)) lines.push([line, "aa-centre reason"]);
    }
    const top = cy - (lines.length * LINE) / 2 + LINE - 4;
    const banner = S("g", { class: "aa-banner", "data-testid": "street-centre" });
    lines.forEach(([text, cls], i) => banner.appendChild(S("text", { x: cx, y: top + i * LINE, "text-anchor": "middle", class: cls }, text)));
    svg.appendChild(banner);
    return svg;
  }

  function playArea(v, team) {
    const area = v.play_areas[team] || {};
    const chips = Object.entries(area).filter(([, n]) => n > 0).map(([name, n]) =>
      h("span", { class: "aa-chip", "data-area-agent": name, "data-count": n }, agent(name), h("span", { class: "count" }, "×" + n)));
    const owned = v.black_market ? (v.black_market.owned[team] || []) : [];
    return h("div", { class: "aa-area team-" + team, "data-area": team },
      h("h4", null, h("span", { class: "spy-dot team-" + team }), teamName(v, team)),
      chips.length ? h("div", { class: "aa-chips" }, chips) : h("p", { class: "muted" }, "nothing recruited yet"),
      owned.length ? h("p", null, "Black Market: ", owned.map(bm)) : null);
  }

  function hands(v, ctx) {
    const rows = [];
    for (let seat = 0; seat < v.players; seat++) {
      let cards;
      if (v.hands) cards = v.hands[seat].map((c) => agent(c));
      else if (seat === v.seat) cards = v.hand.map((c) => agent(c));
      else cards = Array.from({ length: v.hand_sizes[seat] }, () => agent(null));
      const team = v.teams.findIndex((members) => members.includes(seat));
      rows.push(h("div", { class: "aa-hand" + (seat === v.to_move ? " acting" : "") + (seat === ctx.seat ? " me" : ""), "data-hand": seat },
        h("span", { class: "who" }, h("span", { class: "spy-dot team-" + team }), A.seatName(ctx, seat)),
        h("span", { class: "aa-cards" }, cards),
        h("span", { class: "muted" }, " discards left " + v.discards_left[seat])));
    }
    return A.panel("Hands", "aa-hands", rows);
  }

  function play(v, ctx) {
    const parts = [];
    const cp = v.current_play;
    if (cp) {
      parts.push(h("div", { class: "aa-offer", "data-testid": "current-play" },
        h("div", null, h("span", { class: "muted" }, "face up (seat " + cp.face_up_seat + ")"), agent(cp.face_up)),
        h("div", null, h("span", { class: "muted" }, cp.face_down_played ? "face down (seat " + cp.face_down_seat + ")" : "face down: not played yet"),
          cp.face_down_played ? agent(cp.face_down, cp.face_down ? "revealed" : "") : null)));
    } else {
      parts.push(h("p", { class: "muted" }, "No cards on offer right now."));
    }
    if (v.last_play) {
      const lp = v.last_play;
      parts.push(h("p", { class: "aa-last" }, "last play by team " + lp.team + ": ", agent(lp.face_up), " up, ", agent(lp.face_down),
        " down; chooser seat " + lp.chooser + " took the " + String(lp.taken).replace("_", " ") + " card"));
    }
    return A.panel("Cards on offer", "aa-play", parts);
  }

  function blackMarket(v) {
    const b = v.black_market;
    if (!b) return null;
    return A.panel("Black Market", "aa-market",
      h("p", null, "offer: ", b.offer.length ? b.offer.map(bm) : h("span", { class: "muted" }, "empty")),
      h("p", { class: "muted" }, "pile " + b.pile + (b.pile_cards ? ": " + b.pile_cards.slice().reverse().join(", ").replace(/_/g, " ") : "")),
      b.discarded.length ? h("p", null, "used instants: ", b.discarded.map(bm)) : null,
      b.queue.length ? h("p", { class: "muted" }, "to take this turn: team " + b.queue.join(", then team ")) : null,
      b.effect ? h("p", null, "waiting for a choice: " + b.effect.card.replace(/_/g, " ") + " (team " + b.effect.team + ", seat " + b.effect.seat + ")") : null);
  }

  A.boards["agent-avenue"] = function (v, ctx) {
    const info = h("p", { class: "board-info" },
      "turn " + v.turn + " · phase " + v.phase + " · active " + (v.active_team === null ? "–" : "team " + v.active_team) +
      " · to move: " + (v.to_move === null ? "nobody" : A.seatName(ctx, v.to_move)) +
      " · opener " + A.fmt(v.opener) + (v.partner !== null ? " · partner " + v.partner : "") + " · chooser " + A.fmt(v.chooser) +
      " · draw pile " + v.draw_pile + (v.advanced ? " · advanced" : ""));
    const deck = v.deck ? A.panel("Draw pile, top first (full view)", "aa-deck", h("div", { class: "aa-cards" }, v.deck.slice().reverse().map((c) => agent(c, "small")))) : null;
    return h("div", { class: "aa", "data-game": "agent-avenue" }, info,
      h("div", { class: "aa-top" }, street(v),
        h("div", { class: "aa-areas" }, playArea(v, 0), playArea(v, 1))),
      h("div", { class: "aa-bottom" }, play(v, ctx), blackMarket(v), hands(v, ctx), deck));
  };
})();
