/* arena: a tournament page keeps itself up to date while the tournament runs.
 *
 * It polls /api/tournaments/ID/progress (small) every 1.5 s; when more matches are done it
 * fetches /api/tournaments/ID (at most every 5 s, and once more at the end) and redraws the
 * standings, head-to-head, seat statuses, failures and recent matches in place. It stops
 * when the tournament is no longer created or running.
 */
"use strict";
(function () {
  const A = window.Arena;
  const h = A.h;
  const S = A.svg;
  const box = document.getElementById("progress");
  if (!box) return;
  const id = box.dataset.tournament;
  const versions = box.dataset.versions || "all";
  const ACTIVE = ["created", "running"];
  const KINDS = ["timeout", "crash", "illegal", "protocol", "limit"];
  const PERIOD_MS = 1500, DETAIL_MS = 5000;
  let done = null, shown = null, lastDetail = 0, detailTimer = null;

  function set(idName, value) {
    const el = document.getElementById(idName);
    if (el) el.textContent = value === null || value === undefined ? "–" : String(value);
  }

  function botLink(botId, name, version) {
    const link = botId === null || botId === undefined ? h("span", { class: "bot" }, name)
      : h("a", { href: "/bots/" + Number(botId), class: "bot" }, name);
    return version === undefined ? link : [link, " ", h("span", { class: "ver" }, "v" + version)];
  }

  function statusChip(value) {
    return h("span", { class: "status status-" + (value || "none") }, value || "–");
  }

  function interval(e, low, high) {
    const span = high > low ? high - low : 1;
    const x = (value) => 2 + (116 * (value - low)) / span;
    const x1 = x(e.mu - 3 * e.sigma), x2 = x(e.mu + 3 * e.sigma);
    return S("svg", { class: "interval", width: 120, height: 14, viewBox: "0 0 120 14", "aria-hidden": "true" },
      S("line", { x1: 2, y1: 7, x2: 118, y2: 7, class: "axis" }),
      S("rect", { x: x1.toFixed(1), y: 3, width: Math.max(x2 - x1, 1).toFixed(1), height: 8, rx: 2, class: "band" }),
      S("line", { x1: x1.toFixed(1), y1: 1, x2: x1.toFixed(1), y2: 13, class: "low" }),
      S("circle", { cx: x(e.mu).toFixed(1), cy: 7, r: 2.5, class: "mu" }));
  }

  function renderStandings(board) {
    const table = document.getElementById("standings");
    if (!table || !table.tBodies[0]) return;
    const body = A.clear(table.tBodies[0]);
    const [low, high] = board.scale;
    for (const e of board.entries) {
      const cells = [
        h("td", { class: "num" }, String(e.rank)),
        h("td", null, botLink(e.bot_id, e.bot, e.version), e.latest && board.versions === "all" ? [" ", h("span", { class: "tag" }, "latest")] : null),
        h("td", { class: "num strong" }, A.fmt(e.conservative)), h("td", { class: "num" }, A.fmt(e.mu)),
        h("td", { class: "num" }, A.fmt(e.sigma)), h("td", null, interval(e, low, high)),
        h("td", { class: "num" }, String(e.matches)), h("td", { class: "num" }, String(e.first_places)),
        h("td", { class: "num" }, A.fmt(e.average_rank)),
        KINDS.map((kind) => h("td", { class: "num fail" + (e.failures[kind] ? " some" : "") }, e.failures[kind] ? String(e.failures[kind]) : "")),
      ];
      body.appendChild(h("tr", { "data-bot": e.bot, "data-version": e.version }, cells));
    }
  }

  function renderHeadToHead(h2h, entries) {
    const target = document.getElementById("h2h-box");
    if (!target || h2h.entries.length < 2) return;
    const head = h("tr", null, h("th", null), h2h.entries.map((e) => h("th", { class: "col" }, e.bot, " ", h("span", { class: "ver" }, "v" + e.version))));
    const rows = h2h.entries.map((a) => h("tr", null, h("th", null, botLink(a.bot_id, a.bot, a.version)),
      h2h.entries.map((b) => {
        if (a.bot_version_id === b.bot_version_id) return h("td", { class: "self" }, "–");
        const cell = (h2h.cells[String(a.bot_version_id)] || {})[String(b.bot_version_id)];
        if (!cell) return h("td", { class: "none" }, "·");
        const cls = cell[0] > cell[2] ? "win" : cell[0] < cell[2] ? "loss" : "even";
        return h("td", { class: cls }, cell[0] + "–" + cell[1] + "–" + cell[2]);
      })));
    A.clear(target).appendChild(h("div", null,
      h("p", { class: "muted" }, "Row against column: wins–draws–losses (ranked above, equal, below in the same match)" +
        (entries > h2h.entries.length ? "; the top " + h2h.entries.length + " of the standings" : "") + "."),
      h("div", { class: "scroll" }, h("table", { class: "h2h", id: "head-to-head" }, h("thead", null, head), h("tbody", null, rows)))));
  }

  function renderStatuses(statuses) {
    const target = document.getElementById("statuses-box");
    if (!target) return;
    A.clear(target).appendChild(h("p", null, Object.entries(statuses).map(([kind, count]) =>
      [h("span", { class: "chip" + (count && kind !== "ok" ? " bad" : "") }, kind + " " + count), " "])));
  }

  function renderFailures(failures) {
    const target = document.getElementById("failures-box");
    if (!target) return;
    A.clear(target);
    if (!failures.length) { target.appendChild(h("p", { class: "empty" }, "No failures.")); return; }
    target.appendChild(h("table", { class: "list", id: "failures" },
      h("thead", null, h("tr", null, ["match", "#", "bot", "seat", "status", "error"].map((t) => h("th", null, t)))),
      h("tbody", null, failures.map((f) => h("tr", null,
        h("td", { class: "num" }, h("a", { href: "/matches/" + Number(f.match_id) }, String(f.match_id))),
        h("td", { class: "num" }, String(f.schedule_index)), h("td", null, botLink(f.bot_id, f.bot, f.version)),
        h("td", { class: "num" }, String(f.seat)), h("td", null, statusChip(f.status)),
        h("td", { class: "error-text" }, f.error || ""))))));
  }

  function renderRecent(matches) {
    const target = document.getElementById("recent-box");
    if (!target) return;
    A.clear(target);
    if (!matches.length) { target.appendChild(h("p", { class: "empty" }, "No match has been played yet.")); return; }
    target.appendChild(h("table", { class: "list" },
      h("thead", null, h("tr", null, ["match", "#", "status", "ended", "seats (rank)"].map((t) => h("th", null, t)))),
      h("tbody", null, matches.map((m) => h("tr", null,
        h("td", { class: "num" }, h("a", { href: "/matches/" + Number(m.id) }, String(m.id))),
        h("td", { class: "num" }, String(m.schedule_index)), h("td", null, m.status), h("td", null, (m.ended_at || "").slice(0, 19)),
        h("td", { class: "seats" }, m.seats.map((s, i) => [i ? ", " : "", botLink(s.bot_id, s.bot, s.version),
          s.rank !== null ? [" ", h("span", { class: "rank" }, "#" + s.rank)] : null,
          s.status && s.status !== "ok" ? [" ", statusChip(s.status)] : null])))))));
  }

  function refreshDetail() {
    detailTimer = null;
    lastDetail = Date.now();
    shown = done;
    return fetch("/api/tournaments/" + id + "?versions=" + encodeURIComponent(versions)).then((r) => r.json()).then((t) => {
      renderStandings(t.standings);
      renderHeadToHead(t.head_to_head, t.entries);
      renderStatuses(t.seat_statuses);
      renderFailures(t.failures);
      renderRecent(t.recent_matches);
      box.dataset.refreshed = String(t.matches_finished + t.matches_error);
    }).catch(() => {});
  }

  function poll() {
    fetch("/api/tournaments/" + id + "/progress").then((r) => r.json()).then((p) => {
      const finished = p.matches_finished + p.matches_error;
      set("t-status", p.status);
      document.getElementById("t-status").className = "tstatus tstatus-" + p.status;
      set("t-done", finished); set("t-total", p.matches_total); set("t-finished", p.matches_finished);
      set("t-errors", p.matches_error); set("t-pending", p.matches_pending); set("t-rated", p.rated_through);
      if (p.started_at) set("t-started-at", p.started_at.slice(0, 19));
      if (p.finished_at) set("t-finished-at", p.finished_at.slice(0, 19));
      const bar = document.getElementById("t-bar");
      bar.max = Math.max(1, p.matches_total); bar.value = finished;
      box.dataset.status = p.status;
      done = finished;
      const active = ACTIVE.includes(p.status);
      if (done !== shown && !detailTimer) {
        const wait = active ? Math.max(0, lastDetail + DETAIL_MS - Date.now()) : 0;
        detailTimer = setTimeout(refreshDetail, wait);
      }
      if (active) setTimeout(poll, PERIOD_MS);
      else document.getElementById("t-live").hidden = true;
    }).catch(() => setTimeout(poll, PERIOD_MS * 4));
  }

  if (ACTIVE.includes(box.dataset.status)) {
    document.getElementById("t-live").hidden = false;
    done = shown = Number(document.getElementById("t-done").textContent);
    lastDetail = Date.now();
    setTimeout(poll, PERIOD_MS);
  }
})();
