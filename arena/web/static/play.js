/* arena: a person's seat in a match (/play/TOKEN).
 *
 * Asks the server for this seat's view (long polling /api/play/TOKEN?since=VERSION): the
 * waiting request — this seat's observation, its legal actions, its clock — or the end.
 * The board is the replay viewer's drawing of a seat's view (board-<game>.js); legal actions
 * become buttons (a list when there are many), and any action can be typed as JSON. An
 * action the engine refuses comes back with its reason; the person tries again.
 */
"use strict";
(function () {
  const A = window.Arena;
  const h = A.h;
  const BUTTONS_UP_TO = 40; // more legal actions than this: a list to choose from
  const data = A.readJSON("play-data");
  const about = data.about;
  const token = data.token;
  const root = document.getElementById("play");
  const el = (id) => document.getElementById(id);
  const draw = (data.drawn && A.boards[about.game]) || A.boards.json;
  const names = {};
  about.names.forEach((name, seat) => { names[seat] = name + (seat === about.seat ? " (you)" : ""); });

  let version = null;
  let deadline = null; // performance.now() when the time runs out
  let shownStep = null;
  let sending = false;
  let storing = false; // the match is over, its result not yet stored: look again soon

  function message(text, kind) {
    const box = el("p-message");
    box.hidden = !text;
    box.textContent = A.visible(text || "");
    box.className = "play-message" + (kind ? " " + kind : "");
  }

  function post(path, body) {
    return fetch("/api/play/" + token + path, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body || {}),
    }).then((r) => r.json().then((answer) => ({ status: r.status, answer })));
  }

  function drawBoard(observation, final) {
    const ctx = { view: "seat-" + about.seat, seat: about.seat, names, players: about.players, final };
    A.clear(el("p-board")).appendChild(draw(observation, ctx));
  }

  function seats(end) {
    const rows = [h("tr", null, h("th", null, "seat"), h("th", null, "player"),
      end ? [h("th", null, "score"), h("th", null, "rank"), h("th", null, "status")] : null)];
    about.names.forEach((name, seat) => {
      rows.push(h("tr", { class: seat === about.seat ? "me" : null, "data-seat": seat },
        h("td", null, h("span", { class: "seat-dot seat-" + seat }), String(seat)), h("td", null, names[seat]),
        end ? [h("td", { "data-testid": "final-score-" + seat }, A.fmt(end.scores[seat])),
          h("td", { "data-testid": "final-rank-" + seat }, String(end.ranks[seat])),
          h("td", null, end.statuses[seat])] : null));
    });
    A.clear(el("p-seats")).appendChild(h("tbody", null, rows));
  }

  function send(action) {
    if (sending) return;
    sending = true;
    const forStep = shownStep; // the next request may be drawn before this answer arrives
    root.dataset.sending = "1";
    for (const b of el("p-actions").querySelectorAll("button, select")) b.disabled = true;
    post("/action", { action }).then(({ status, answer }) => {
      sending = false;
      delete root.dataset.sending;
      if (status === 200 && answer.ok) {
        message("");
        if (shownStep === forStep) A.clear(el("p-actions")).appendChild(h("p", { class: "muted" }, "Sent: " + A.actionText(action)));
        return;
      }
      if (shownStep !== forStep) return;
      message((answer.refused || answer.error || "refused") + " — try again.", "bad");
      root.dataset.refused = String((Number(root.dataset.refused) || 0) + 1);
      for (const b of el("p-actions").querySelectorAll("button, select")) b.disabled = false;
    }, (error) => {
      sending = false;
      delete root.dataset.sending;
      message("Could not send the action: " + error.message, "bad");
    });
  }

  function controls(request) {
    const box = A.clear(el("p-actions"));
    const legal = request.legal;
    el("p-typed").open = !Array.isArray(legal);
    if (!Array.isArray(legal)) {
      box.appendChild(h("p", { class: "muted" }, "This decision's actions are not listed: type one below."));
      return;
    }
    if (legal.length <= BUTTONS_UP_TO) {
      legal.forEach((action, index) => {
        const button = h("button", { type: "button", class: "play-action", "data-index": index }, A.actionText(action));
        button.addEventListener("click", () => send(action));
        box.appendChild(button);
      });
      return;
    }
    const select = h("select", { id: "p-choice", "aria-label": "legal actions" },
      legal.map((action, index) => h("option", { value: index }, A.actionText(action))));
    const go = h("button", { type: "button", class: "play-action", id: "p-choose" }, "Play this");
    go.addEventListener("click", () => send(legal[Number(select.value)]));
    box.appendChild(h("p", { class: "muted" }, legal.length + " legal actions:"));
    box.appendChild(select);
    box.appendChild(go);
  }

  function tick() {
    if (deadline === null) { el("p-clock").textContent = "–"; return; }
    const left = Math.max(0, deadline - performance.now());
    const s = Math.ceil(left / 1000);
    el("p-clock").textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    el("p-clock").classList.toggle("low", left < 15000);
  }
  setInterval(tick, 250);

  function showEnd(view) {
    const end = view.end;
    root.dataset.state = "over";
    deadline = null;
    tick();
    A.clear(el("p-actions")).appendChild(h("p", { class: "muted" }, "The match is over."));
    drawBoard(end.observation, true);
    seats(end);
    const mine = end.ranks[about.seat];
    el("p-turn").textContent = "Game over: you ranked " + mine + " of " + about.players +
      (end.statuses[about.seat] !== "ok" ? " (" + end.statuses[about.seat] + ")" : "");
    const box = el("p-end");
    box.hidden = false;
    A.clear(box).appendChild(h("p", null,
      view.done ? h("span", null, "Stored and rated as match ",
        h("a", { href: "/matches/" + view.match_id, id: "p-replay" }, String(view.match_id)), ".")
        : "Storing the result…"));
    el("p-leave").hidden = true;
  }

  function render(view) {
    root.dataset.version = String(view.version);
    if (view.problem) {
      root.dataset.state = "failed";
      message(view.problem, "bad");
      return;
    }
    if (view.end) { showEnd(view); return; }
    const request = view.request;
    if (!request) {
      root.dataset.state = "waiting";
      deadline = null;
      el("p-turn").textContent = "The bots are playing…";
      A.clear(el("p-actions")).appendChild(h("p", { class: "muted" }, "Waiting for your turn."));
      return;
    }
    root.dataset.state = "deciding";
    root.dataset.step = String(request.step);
    deadline = performance.now() + view.time_left_ms;
    tick();
    el("p-turn").textContent = "Your turn (step " + request.step + ")";
    if (shownStep !== request.step) {
      shownStep = request.step;
      drawBoard(request.observation, false);
      seats(null);
      controls(request);
    }
  }

  function poll() {
    const url = "/api/play/" + token + (version === null || storing ? "" : "?since=" + version);
    fetch(url).then((r) => r.json()).then((view) => {
      if (view.error) throw new Error(view.error);
      version = view.version;
      render(view);
      storing = Boolean(view.end && !view.done);
      if (storing) setTimeout(poll, 300);
      else if (!view.end && !view.problem) poll();
    }).catch((error) => {
      message("Lost the server: " + error.message + " (retrying)", "bad");
      setTimeout(poll, 2000);
    });
  }

  el("p-typed-form").addEventListener("submit", (event) => {
    event.preventDefault();
    let action;
    try { action = JSON.parse(el("p-typed-text").value); } catch (e) { message("That is not JSON: " + e.message, "bad"); return; }
    send(action);
  });
  el("p-leave").addEventListener("click", () => {
    if (window.confirm("Leave? Your seat is then played by random moves and counts as a timeout.")) post("/leave");
  });
  seats(null);
  poll();
})();
