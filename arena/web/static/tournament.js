/* arena: a tournament page keeps itself up to date while the tournament runs, by polling
 * /api/tournaments/ID/progress and, when more matches are done, the standings. */
"use strict";
(function () {
  const A = window.Arena;
  const h = A.h;
  const box = document.getElementById("progress");
  if (!box) return;
  const id = box.dataset.tournament;
  const versions = box.dataset.versions || "all";
  const ACTIVE = ["created", "running"];
  const PERIOD_MS = 1500;
  let done = null;

  function set(idName, value) {
    const el = document.getElementById(idName);
    if (el) el.textContent = value === null || value === undefined ? "–" : String(value);
  }

  function renderStandings(board) {
    const table = document.getElementById("standings");
    if (!table) return;
    const body = table.tBodies[0];
    if (!body) return;
    const columns = table.tHead.rows[0].cells.length;
    A.clear(body);
    for (const e of board.entries) {
      const name = e.bot_id !== null && e.bot_id !== undefined
        ? h("a", { href: "/bots/" + Number(e.bot_id), class: "bot" }, e.bot) : h("span", { class: "bot" }, e.bot);
      const cells = [
        h("td", { class: "num" }, String(e.rank)),
        h("td", null, name, " ", h("span", { class: "ver" }, "v" + e.version)),
        h("td", { class: "num strong" }, A.fmt(e.conservative)), h("td", { class: "num" }, A.fmt(e.mu)),
        h("td", { class: "num" }, A.fmt(e.sigma)), h("td", null, ""),
        h("td", { class: "num" }, String(e.matches)), h("td", { class: "num" }, String(e.first_places)),
        h("td", { class: "num" }, A.fmt(e.average_rank)),
      ];
      for (const kind of ["timeout", "crash", "illegal", "protocol", "limit"]) {
        const n = e.failures[kind];
        cells.push(h("td", { class: "num fail" + (n ? " some" : "") }, n ? String(n) : ""));
      }
      body.appendChild(h("tr", { "data-bot": e.bot, "data-version": e.version }, cells.slice(0, columns)));
    }
  }

  function poll() {
    fetch("/api/tournaments/" + id + "/progress").then((r) => r.json()).then((p) => {
      const finished = p.matches_finished + p.matches_error;
      set("t-status", p.status);
      document.getElementById("t-status").className = "tstatus tstatus-" + p.status;
      set("t-done", finished); set("t-total", p.matches_total); set("t-finished", p.matches_finished);
      set("t-errors", p.matches_error); set("t-pending", p.matches_pending); set("t-rated", p.rated_through);
      if (p.finished_at) set("t-finished-at", p.finished_at.slice(0, 19));
      const bar = document.getElementById("t-bar");
      bar.max = Math.max(1, p.matches_total); bar.value = finished;
      box.dataset.status = p.status;
      const changed = finished !== done;
      done = finished;
      const next = () => {
        if (ACTIVE.includes(p.status)) setTimeout(poll, PERIOD_MS);
        else document.getElementById("t-live").hidden = true;
      };
      if (changed) {
        fetch("/api/tournaments/" + id + "/leaderboard?versions=" + versions).then((r) => r.json())
          .then(renderStandings).finally(next);
      } else next();
    }).catch(() => setTimeout(poll, PERIOD_MS * 4));
  }

  if (ACTIVE.includes(box.dataset.status)) {
    document.getElementById("t-live").hidden = false;
    done = Number(document.getElementById("t-done").textContent);
    setTimeout(poll, PERIOD_MS);
  }
})();
