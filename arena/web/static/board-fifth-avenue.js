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

  /* Each owner has a colour (Okabe–Ito, told apart by colour-blind people too: style.css
   * --seat0...) and a shape of its own, so two owners never differ by colour alone. */
  const SHAPES = ["circle", "square", "diamond", "triangle", "hexagon"];
  function shapeOf(who) { return who === "alea" ? "cross" : SHAPES[Number(who) % SHAPES.length]; }
  function ownerMark(who, x, y, r, attrs) {
    const cls = "fa-owner " + owner(who) + " shape-" + shapeOf(who);
    const polygon = (points) => S("polygon", Object.assign({ points: points.map((p) => (x + p[0] * r).toFixed(1) + "," + (y + p[1] * r).toFixed(1)).join(" "), class: cls }, attrs));
    switch (shapeOf(who)) {
      case "circle": return S("circle", Object.assign({ cx: x, cy: y, r, class: cls }, attrs));
      case "square": return polygon([[-0.9, -0.9], [0.9, -0.9], [0.9, 0.9], [-0.9, 0.9]]);
      case "diamond": return polygon([[0, -1.2], [1.2, 0], [0, 1.2], [-1.2, 0]]);
      case "triangle": return polygon([[0, -1.25], [1.2, 0.85], [-1.2, 0.85]]);
      case "hexagon": return polygon([[-0.55, -1], [0.55, -1], [1.1, 0], [0.55, 1], [-0.55, 1], [-1.1, 0]]);
      default: return polygon([[-0.4, -1.1], [0.4, -1.1], [0.4, -0.4], [1.1, -0.4], [1.1, 0.4], [0.4, 0.4], [0.4, 1.1], [-0.4, 1.1], [-0.4, 0.4], [-1.1, 0.4], [-1.1, -0.4], [-0.4, -0.4]]);
    }
  }

  /* The commissioners (white: a circle, beige: a square) and their markers (white: a
   * pennant, beige: a swallowtail flag): their two colours are close, their shapes not. */
  function commissioner(c, x, y) {
    if (c === "white") return S("circle", { cx: x, cy: y, r: 8, class: "fa-comm white", "data-commissioner": c });
    return S("rect", { x: x - 7.5, y: y - 7.5, width: 15, height: 15, rx: 2, class: "fa-comm beige", "data-commissioner": c });
  }
  function marker(c, x, y) {
    const d = c === "white" ? "M" + x + " " + y + " l0 -16 l13 5 l-13 5" : "M" + x + " " + y + " l0 -16 l13 0 l-5 5 l5 5 l-13 0";
    return S("path", { d, class: "fa-marker " + c, "data-marker": c });
  }

  /* Below the map: what each owner's mark and the commissioners' markers look like. */
  function legend(v, ctx) {
    const item = (mark, text) => h("span", { class: "fa-legend-item" }, mark, text);
    const swatch = (who) => {
      const svg = S("svg", { class: "fa-legend-mark", viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true" });
      svg.appendChild(ownerMark(who, 12, 12, 8.5));
      return svg;
    };
    const items = [];
    for (let seat = 0; seat < v.players; seat++) items.push(item(swatch(seat), A.seatName(ctx, seat)));
    if (v.alea) items.push(item(swatch("alea"), "Alea"));
    for (const c of ["white", "beige"]) {
      const svg = S("svg", { class: "fa-legend-mark", viewBox: "0 0 44 24", width: 33, height: 18, "aria-hidden": "true" },
        commissioner(c, 11, 12), marker(c, 26, 20));
      items.push(item(svg, c + " commissioner and markers"));
    }
    items.push(item(h("span", { class: "muted" }, "B J G P"), "businesses · number: skyscrapers"));
    return h("p", { class: "fa-legend", "data-testid": "legend" }, items);
  }

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
        plot.appendChild(ownerMark(p.owner, x, y, 13));
        plot.appendChild(S("text", { x, y: y + 5, "text-anchor": "middle", class: "fa-sky-text" }, String(p.skyscrapers)));
      }
      g.appendChild(plot);
    });
    g.appendChild(S("text", { x: cx, y: cy - 6, "text-anchor": "middle", class: "fa-dname" }, d.district));
    // commissioners in the middle, markers below them
    const here = ["white", "beige"].filter((c) => v.commissioners[c] === d.district);
    here.forEach((c, i) => g.appendChild(commissioner(c, cx - 9 + 18 * i - (here.length === 1 ? -9 : 0), cy + 12)));
    const markers = ["white", "beige"].filter((c) => (v.markers[c] || []).includes(d.district));
    markers.forEach((c, i) => g.appendChild(marker(c, cx - 14 + 18 * i, cy + 40)));
    if (d.closed) g.appendChild(S("text", { x: cx, y: cy + 52, "text-anchor": "middle", class: "fa-closed" }, "building stop"));
    return g;
  }

  function special(name, label, v, extra) {
    const [cx, cy] = PLACES[name];
    // A label of two words takes two lines: "Central Park" on one is wider than its circle.
    const words = label.split(" ");
    const g = S("g", { class: "fa-special", "data-place": name },
      S("circle", { cx, cy, r: name === "central_park" ? 54 : 46, class: name === "central_park" ? "fa-park" : "fa-hall" }),
      ...words.map((word, i) => S("text", { x: cx, y: cy - 10 - 16 * (words.length - 1 - i), "text-anchor": "middle", class: "fa-dname fa-place-name" }, word)));
    const here = ["white", "beige"].filter((c) => v.commissioners[c] === name);
    here.forEach((c, i) => g.appendChild(commissioner(c, cx - 9 + 18 * i - (here.length === 1 ? -9 : 0), cy + 14)));
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
    // The skyscrapers around the park, below its circle: one line per owner, with its mark.
    const park = (v.players_info || []).filter((p) => p.park_skyscrapers).map((p) => [p.seat, "seat " + p.seat + ": " + p.park_skyscrapers]);
    if (v.alea && v.alea.park_skyscrapers) park.push(["alea", "Alea: " + v.alea.park_skyscrapers]);
    const [px, py] = PLACES.central_park;
    const parkText = S("g", { class: "fa-park-list", "data-testid": "park-skyscrapers" });
    if (park.length) parkText.appendChild(S("text", { x: px, y: py + 76, "text-anchor": "middle", class: "fa-park-text" }, "around the park"));
    park.forEach(([who, text], i) => {
      const y = py + 96 + 20 * i;
      parkText.appendChild(ownerMark(who, px - 34, y - 4, 6));
      parkText.appendChild(S("text", { x: px - 24, y, class: "fa-park-text" }, text));
    });
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
      h("div", { class: "fa-map-wrap" }, map(v)), legend(v, ctx),
      h("div", { class: "fa-panels" }, auction(v, ctx), players(v, ctx), supply(v), stacks(v)));
  };
})();
