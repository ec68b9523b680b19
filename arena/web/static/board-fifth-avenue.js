/* arena: the Fifth Avenue board — the seven districts with their plots (in ring order),
 * skyscrapers, businesses, the two commissioners and their markers, City Hall and Central
 * Park; beside it the auction in progress, the supply row, the stacks and every player's
 * supplies and cards (black card values in the full view and for the viewing seat).
 */
"use strict";
(function () {
  const A = window.Arena;
  const h = A.h;
  const S = A.svg;
  const W = 1000, H = 600;
  const PLACES = {
    city_hall: [62, 300], "34w": [250, 175], "34e": [250, 425], "42w": [500, 100], ts: [500, 300], "42e": [500, 500],
    "52w": [750, 175], "52e": [750, 425], central_park: [940, 300],
  };
  const ARROWS = [["city_hall", "34w"], ["city_hall", "34e"], ["34w", "42w"], ["34w", "ts"], ["34e", "ts"], ["34e", "42e"],
    ["42w", "52w"], ["ts", "52w"], ["ts", "52e"], ["42e", "52e"], ["52w", "central_park"], ["52e", "central_park"]];
  const INITIAL = { boutique: "B", jeweler: "J", gallery: "G", perfumery: "P" };
  const RING = 60, PW = 52, PH = 34;

  function owner(who) { return who === "alea" ? "alea" : "seat-" + who; }

  function business(name) {
    return h("span", { class: "fa-biz b-" + name, title: name, "data-business": name }, INITIAL[name] || "?");
  }

  function colourCard(colour, value, small) {
    return h("span", { class: "fa-cardv k-" + colour + (small ? " small" : ""), title: colour + " " + value }, String(value));
  }

  function district(d, v) {
    const [cx, cy] = PLACES[d.district];
    const n = d.plots.length;
    const g = S("g", { class: "fa-district" + (d.closed ? " closed" : ""), "data-district": d.district });
    g.appendChild(S("circle", { cx, cy, r: RING + 34, class: "fa-ring" }));
    d.plots.forEach((p, i) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * i) / n;
      const x = cx + RING * Math.cos(angle), y = cy + RING * Math.sin(angle);
      const plot = S("g", { class: "fa-plot k-" + p.plot, "data-plot": d.district + ":" + p.plot, "data-owner": p.owner === null ? "" : p.owner,
        "data-skyscrapers": p.skyscrapers, "data-businesses": p.businesses.join(",") },
        S("rect", { x: x - PW / 2, y: y - PH / 2, width: PW, height: PH, rx: 6 }),
        S("title", null, d.district + " " + p.plot + ": " + (p.businesses.length ? p.businesses.join(" + ") : p.owner !== null ? p.skyscrapers + " skyscraper(s) of " + (p.owner === "alea" ? "Alea" : "seat " + p.owner) : "empty")));
      if (p.businesses.length) {
        plot.appendChild(S("text", { x, y: y + 5, "text-anchor": "middle", class: "fa-biz-text" }, p.businesses.map((b) => INITIAL[b] || "?").join(" ")));
      } else if (p.owner !== null) {
        plot.appendChild(S("rect", { x: x - 15, y: y - 11, width: 30, height: 22, rx: 4, class: "fa-owner " + owner(p.owner) }));
        plot.appendChild(S("text", { x, y: y + 5, "text-anchor": "middle", class: "fa-sky-text" }, String(p.skyscrapers)));
      }
      g.appendChild(plot);
    });
    g.appendChild(S("text", { x: cx, y: cy - 6, "text-anchor": "middle", class: "fa-dname" }, d.district));
    // commissioners in the middle, markers below them
    const here = ["white", "beige"].filter((c) => v.commissioners[c] === d.district);
    here.forEach((c, i) => g.appendChild(S("circle", { cx: cx - 9 + 18 * i - (here.length === 1 ? -9 : 0), cy: cy + 12, r: 8, class: "fa-comm " + c, "data-commissioner": c })));
    const markers = ["white", "beige"].filter((c) => (v.markers[c] || []).includes(d.district));
    markers.forEach((c, i) => g.appendChild(S("path", { d: "M" + (cx - 12 + 16 * i) + " " + (cy + 34) + " l0 -12 l10 4 l-10 4", class: "fa-marker " + c, "data-marker": c })));
    if (d.closed) g.appendChild(S("text", { x: cx, y: cy + 52, "text-anchor": "middle", class: "fa-closed" }, "building stop"));
    return g;
  }

  function special(name, label, v, extra) {
    const [cx, cy] = PLACES[name];
    const g = S("g", { class: "fa-special", "data-place": name },
      S("circle", { cx, cy, r: name === "central_park" ? 54 : 46, class: name === "central_park" ? "fa-park" : "fa-hall" }),
      S("text", { x: cx, y: cy - 14, "text-anchor": "middle", class: "fa-dname" }, label));
    const here = ["white", "beige"].filter((c) => v.commissioners[c] === name);
    here.forEach((c, i) => g.appendChild(S("circle", { cx: cx - 9 + 18 * i - (here.length === 1 ? -9 : 0), cy: cy + 6, r: 8, class: "fa-comm " + c, "data-commissioner": c })));
    if (extra) g.appendChild(extra);
    return g;
  }

  function map(v) {
    const svg = S("svg", { class: "fa-map", viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "the board" });
    for (const [a, b] of ARROWS) {
      const [x1, y1] = PLACES[a], [x2, y2] = PLACES[b];
      svg.appendChild(S("line", { x1, y1, x2, y2, class: "fa-arrow" }));
    }
    svg.appendChild(special("city_hall", "City Hall", v));
    const park = (v.players_info || []).map((p) => p.park_skyscrapers ? p.seat + ":" + p.park_skyscrapers : null).filter(Boolean);
    if (v.alea && v.alea.park_skyscrapers) park.push("Alea:" + v.alea.park_skyscrapers);
    const [px, py] = PLACES.central_park;
    const parkText = S("text", { x: px, y: py + 30, "text-anchor": "middle", class: "fa-park-text" }, park.length ? "around: " + park.join(" ") : "");
    svg.appendChild(special("central_park", "Central Park", v, parkText));
    for (const d of v.districts) svg.appendChild(district(d, v));
    return svg;
  }

  function auction(v, ctx) {
    const a = v.auction;
    if (!a) return A.panel("Auction", "fa-auction", h("p", { class: "muted" }, "No auction in progress."));
    const rows = a.bidders.map((b) => {
      const name = b.bidder === "alea" ? "Alea" : A.seatName(ctx, b.bidder);
      const cards = [...b.coloured.map((x) => colourCard(b.colour || "none", x, true)), ...b.black.map((x) => colourCard("black", x, true))];
      return h("tr", { class: (a.to_act === b.bidder ? "acting " : "") + (b.passed ? "passed" : ""), "data-bidder": b.bidder },
        h("td", null, h("span", { class: "seat-dot " + owner(b.bidder) }), name, a.leader === b.bidder ? h("span", { class: "tag" }, "leads") : null),
        h("td", null, b.passed ? "passed" : (a.to_act === b.bidder ? "to act" : "")),
        h("td", null, b.allowed_colours.map((c) => h("span", { class: "fa-swatch k-" + c, title: c }))),
        h("td", null, cards),
        h("td", { class: "num", "data-testid": "bid-total" }, String(b.total)));
    });
    return A.panel("Auction: " + (a.district === "central_park" ? "Central Park" + (a.park_colour ? " (" + a.park_colour + ")" : "") : a.district), "fa-auction",
      h("p", { class: "muted" }, "highest finished bid " + a.high + (a.leader !== null ? " by " + (a.leader === "alea" ? "Alea" : "seat " + a.leader) : "") +
        (a.had_empty_plot ? "" : " · no empty plot: a building stop is possible") +
        (a.alea_cards && a.alea_cards.length ? " · Alea turned " + a.alea_cards.join(", ") : "")),
      h("table", { class: "fa-bidders" }, h("tr", null, h("th", null, "bidder"), h("th", null, ""), h("th", null, "may open"), h("th", null, "cards"), h("th", { class: "num" }, "total")), rows),
      v.build_choice ? h("p", null, "build or stop: " + v.build_choice.skyscrapers + " skyscraper(s) on " + v.build_choice.district + " " + v.build_choice.plot) : null);
  }

  function supply(v) {
    let leftmost = true;
    const sets = v.supply_row.map((set, i) => {
      const cls = "fa-set" + (set.length && leftmost ? " next" : "") + (set.length ? "" : " used");
      if (set.length) leftmost = false;
      return h("span", { class: cls, "data-set": i }, set.length ? set.map(business) : "·");
    });
    return A.panel("Supply row", "fa-supply", h("div", { class: "fa-sets" }, sets),
      h("p", { class: "muted" }, "B boutique · J jeweler · G gallery · P perfumery; the framed set is next"),
      h("p", { class: "muted" }, "below Central Park: ", v.below_park.length ? v.below_park.map(business) : "nothing",
        v.removed ? h("span", null, " · out of the game (hidden): ", v.removed.map(business)) : null));
  }

  function stacks(v) {
    const colours = ["orange", "green", "gray", "brown", "violet"];
    const rows = colours.map((c) => {
      const s = v.stacks[c];
      return h("div", { class: "fa-stack", "data-stack": c }, h("span", { class: "fa-swatch k-" + c }), c + ": top " + A.fmt(s.top) + " · " + s.size + " cards",
        s.cards ? h("span", { class: "muted" }, " (top first: " + s.cards.slice().reverse().join(" ") + ")") : null);
    });
    const black = v.stacks.black;
    rows.push(h("div", { class: "fa-stack", "data-stack": "black" }, h("span", { class: "fa-swatch k-black" }), "black: " + black.size + " cards",
      black.cards ? h("span", { class: "muted" }, " (top first: " + black.cards.slice().reverse().join(" ") + ")") : null));
    return A.panel("Stacks", "fa-stacks", rows);
  }

  function players(v, ctx) {
    const rows = v.players_info.map((p) => {
      const coloured = Object.entries(p.coloured_cards).flatMap(([c, values]) => values.map((x) => colourCard(c, x, true)));
      let black;
      if (p.black_cards) black = p.black_cards.map((x) => colourCard("black", x, true));
      else if (p.seat === v.seat && v.your_black_cards) black = v.your_black_cards.map((x) => colourCard("black", x, true));
      else black = [h("span", { class: "muted" }, p.black_count + " black (hidden)")];
      return h("tr", { class: (p.seat === v.current_seat ? "acting " : "") + (p.seat === ctx.seat ? "me" : ""), "data-player": p.seat },
        h("td", null, h("span", { class: "seat-dot seat-" + p.seat }), A.seatName(ctx, p.seat)),
        h("td", { class: "num", "data-testid": "score-" + p.seat }, String(p.score)),
        h("td", { class: "num" }, p.own_supply + " / " + p.general_supply),
        h("td", { class: "num" }, String(p.park_skyscrapers)),
        h("td", null, coloured, " ", black));
    });
    if (v.alea) rows.push(h("tr", { "data-player": "alea" }, h("td", null, h("span", { class: "seat-dot alea" }), "Alea"), h("td", { class: "num" }, "–"),
      h("td", { class: "num" }, String(v.alea.own_supply)), h("td", { class: "num" }, String(v.alea.park_skyscrapers)), h("td", { class: "muted" }, "bids from the black stack")));
    return A.panel("Players", "fa-players", h("table", { class: "fa-player-table" },
      h("tr", null, h("th", null, "player"), h("th", { class: "num" }, "score"), h("th", { class: "num", title: "own supply / general supply" }, "supply"),
        h("th", { class: "num" }, "park"), h("th", null, "cards in hand")), rows));
  }

  A.boards["fifth-avenue"] = function (v, ctx) {
    const pending = (v.pending || []).join(" → ");
    const info = h("p", { class: "board-info" },
      "turn " + v.turn + " · active " + A.seatName(ctx, v.active_seat) + (v.turn_option ? " · option " + v.turn_option : "") +
      " · decision " + (v.decision || "–") + " by " + (v.current_seat === null ? "nobody" : A.seatName(ctx, v.current_seat)) +
      " · businesses placed " + v.businesses_placed + " · building stops " + v.building_stops + " · board " + v.board);
    const end = v.over && v.end ? h("p", { class: "fa-end" }, "Game over: " + v.end.reason + (v.end.revealed && v.end.revealed.length ? "; revealed below the park: " + v.end.revealed.join(", ") : "")) : null;
    return h("div", { class: "fa", "data-game": "fifth-avenue" }, info,
      pending ? h("p", { class: "muted" }, "still to come this turn: " + pending) : null, end,
      h("div", { class: "fa-map-wrap" }, map(v)),
      h("div", { class: "fa-panels" }, auction(v, ctx), players(v, ctx), supply(v), stacks(v)));
  };
})();
