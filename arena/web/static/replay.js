/* arena: the replay viewer (the match page and the self-contained file).
 *
 * Frames come in chunks (arena/web/replay.py): a full first frame and, for each later
 * frame, the changes from the one before. A chunk is fetched when a frame in it is shown
 * (and the next one is fetched ahead), and frames are decoded on demand; unchanged parts
 * are shared between frames, which are never modified.
 */
"use strict";
(function () {
  const A = window.Arena;
  const h = A.h;

  function setPath(node, path, op, depth) {
    if (depth === path.length) {
      if (op.length === 3) return node.concat(op[1]);
      return op[1];
    }
    const copy = Array.isArray(node) ? node.slice() : Object.assign({}, node);
    const key = path[depth];
    if (depth === path.length - 1 && op.length === 1) delete copy[key];
    else if (depth === path.length - 1 && op.length === 2) copy[key] = op[1]; // also a new key
    else copy[key] = setPath(node[key], path, op, depth + 1);
    return copy;
  }

  A.applyOps = function (frame, ops) {
    for (const op of ops) frame = setPath(frame, op[0], op, 0);
    return frame;
  };

  /* Where chunks come from: the server's API, or data inlined in the page. */
  function getJSON(url) {
    return fetch(url).then((r) => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); });
  }
  /* get(view, index) -> {data: chunk, verification?}; check() -> the finished log check */
  A.apiSource = function (matchId) {
    return {
      get(view, index) {
        return getJSON("/api/matches/" + matchId + "/frames?view=" + encodeURIComponent(view) + "&chunk=" + index);
      },
      check() { return getJSON("/api/matches/" + matchId + "/check").then((body) => body.verification); },
    };
  };
  A.inlineSource = function (chunks) {
    return {
      get(view, index) { return Promise.resolve({ data: chunks[view][index] }); },
      check() { return Promise.resolve(null); },
    };
  };

  class Viewer {
    constructor(root, data, source, firstChunk) {
      this.root = root;
      this.match = data.match;
      this.replay = data.replay;
      this.steps = data.replay.steps;
      this.total = data.replay.frame_count;
      this.chunkSize = data.replay.chunk_size;
      this.source = source;
      this.draw = (data.drawn && A.boards[this.match.game]) || A.boards.json;
      this.names = {};
      for (const seat of this.match.seats) this.names[seat.seat] = seat.bot + " v" + seat.version;
      this.chunks = new Map(); // "view:index" -> {start, base, ops, frames: []} or a Promise
      // The first view served: "full", or the first one allowed (the contest server may offer seat views only).
      this.view = data.replay.views.includes("full") ? "full" : data.replay.views[0];
      this.index = 0;
      this.playing = false;
      this.timer = null;
      this.el = (id) => root.querySelector("#" + id);
      if (firstChunk) this.chunks.set(this.view + ":0", this.decoder(firstChunk));
      this.prepareSeats();
      this.build();
      this.readHash();
      this.show(this.index);
    }

    decoder(chunk) {
      return { start: chunk.start, count: chunk.count, base: chunk.base, ops: chunk.ops, frames: [chunk.base] };
    }

    /* A chunk with all its frames: the match page carries only the first frame of chunk 0
     * (its first board needs no more), the rest of that chunk comes from the server. */
    wholeChunk(view, index) {
      const key = view + ":" + index, known = this.chunks.get(key);
      if (known && !(known instanceof Promise) && known.count < Math.min(this.chunkSize, this.total - known.start)) this.chunks.delete(key);
      return this.chunk(view, index);
    }

    /* Per step: each seat's status, decisions made and time used before it. */
    prepareSeats() {
      const players = this.match.players;
      const failedAt = new Array(players).fill(null);
      for (const f of this.replay.start_failures || []) failedAt[f.seat] = { step: -1, status: f.status, error: f.error };
      this.steps.forEach((s, i) => { if (s.failure && failedAt[s.seat] === null) failedAt[s.seat] = { step: i, status: s.failure.status, error: s.failure.error }; });
      this.failedAt = failedAt;
      const decisions = new Array(players).fill(0), time = new Array(players).fill(0);
      const cpu = new Array(players).fill(0);
      this.hasCpu = this.steps.some((s) => typeof s.cpu_ms === "number");
      this.before = [];
      for (let i = 0; i <= this.steps.length; i++) {
        this.before.push({ decisions: decisions.slice(), time: time.slice(), cpu: cpu.slice() });
        const s = this.steps[i];
        if (!s) break;
        if (s.by === "bot") decisions[s.seat] += 1;
        if (typeof s.ms === "number") time[s.seat] += s.ms;
        if (typeof s.cpu_ms === "number") cpu[s.seat] += s.cpu_ms;
      }
    }

    build() {
      const slider = this.el("v-slider");
      slider.max = String(Math.max(0, this.total - 1));
      slider.addEventListener("input", () => this.show(Number(slider.value)));
      this.el("v-first").addEventListener("click", () => this.show(0));
      this.el("v-prev").addEventListener("click", () => this.step(-1));
      this.el("v-next").addEventListener("click", () => this.step(1));
      this.el("v-last").addEventListener("click", () => this.show(this.total - 1));
      this.el("v-play").addEventListener("click", () => this.toggle());
      this.el("v-speed").addEventListener("change", () => { if (this.playing) { this.pause(); this.play(); } });
      const select = this.el("v-view");
      for (const view of this.replay.views) {
        let label = view;
        if (view === "full") label = "Full view (everything)";
        else if (view === "snapshot") label = "Engine snapshot (raw JSON)";
        else if (view.startsWith("seat-")) {
          const seat = Number(view.slice(5));
          label = "Seat " + seat + " sees · " + (this.names[seat] || "");
        }
        select.appendChild(h("option", { value: view }, label));
      }
      select.addEventListener("change", () => this.setView(select.value));
      document.addEventListener("keydown", (event) => this.key(event));
      this.el("v-json").addEventListener("toggle", () => this.renderJSON());
      this.renderCheck();
    }

    key(event) {
      const target = event.target;
      const tag = target && target.tagName;
      if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && target.type !== "range")) return;
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const native = tag === "INPUT" && target.type === "range"; // the slider moves itself on arrows
      let handled = true;
      if (event.key === "ArrowRight" || event.key === "ArrowDown") { if (!native) this.step(event.shiftKey ? 10 : 1); else handled = false; }
      else if (event.key === "ArrowLeft" || event.key === "ArrowUp") { if (!native) this.step(event.shiftKey ? -10 : -1); else handled = false; }
      else if (event.key === "Home") this.show(0);
      else if (event.key === "End") this.show(this.total - 1);
      else if (event.key === " " || event.key === "k") this.toggle();
      else handled = false;
      if (handled) event.preventDefault();
    }

    step(delta) { this.pause(); this.show(Math.min(this.total - 1, Math.max(0, this.index + delta))); }

    toggle() { if (this.playing) this.pause(); else this.play(); }

    play() {
      if (this.index >= this.total - 1) this.index = 0;
      this.playing = true;
      this.el("v-play").textContent = "⏸ pause";
      this.root.dataset.playing = "true";
      const tick = () => {
        if (!this.playing) return;
        if (this.index >= this.total - 1) { this.pause(); return; }
        this.show(this.index + 1).then(() => {
          if (this.playing) this.timer = setTimeout(tick, 1000 / Number(this.el("v-speed").value));
        });
      };
      this.timer = setTimeout(tick, 1000 / Number(this.el("v-speed").value));
    }

    pause() {
      this.playing = false;
      clearTimeout(this.timer);
      this.el("v-play").textContent = "▶ play";
      this.root.dataset.playing = "false";
    }

    setView(view) {
      this.view = view;
      this.el("v-view").value = view;
      this.show(this.index);
    }

    readHash() {
      const params = new URLSearchParams(location.hash.slice(1));
      const step = Number(params.get("step"));
      if (Number.isInteger(step) && step >= 0 && step < this.total) this.index = step;
      const view = params.get("view");
      if (view && this.replay.views.includes(view)) { this.view = view; }
      this.el("v-view").value = this.view;
    }

    chunk(view, index) {
      const key = view + ":" + index;
      const known = this.chunks.get(key);
      if (known) return known instanceof Promise ? known : Promise.resolve(known);
      const promise = this.source.get(view, index).then((answer) => {
        if (answer.verification) this.updateCheck(answer.verification);
        const decoded = this.decoder(answer.data);
        this.chunks.set(key, decoded);
        return decoded;
      }, (error) => { this.chunks.delete(key); throw error; });
      this.chunks.set(key, promise);
      return promise;
    }

    frame(view, i) {
      const index = Math.floor(i / this.chunkSize);
      return this.chunk(view, index).then((c) => {
        const offset = i - c.start;
        if (offset >= c.count) return this.wholeChunk(view, index).then(() => this.frame(view, i));
        while (c.frames.length <= offset) c.frames.push(A.applyOps(c.frames[c.frames.length - 1], c.ops[c.frames.length - 1]));
        const chunks = Math.ceil(this.total / this.chunkSize);
        if (offset > this.chunkSize - 24 && index + 1 < chunks) this.chunk(view, index + 1).catch(() => {});
        return c.frames[offset];
      });
    }

    show(i) {
      i = Math.min(this.total - 1, Math.max(0, i));
      this.index = i;
      const view = this.view;
      this.el("v-slider").value = String(i);
      const last = this.total - 1;
      this.el("v-label").textContent = i < this.steps.length ? "step " + i + " / " + last : "end (" + i + " / " + last + ")";
      this.renderDecision(i);
      this.renderSeats(i);
      this.renderConsoles(i);
      const token = (this.token = (this.token || 0) + 1);
      return this.frame(view, i).then((frame) => {
        if (token !== this.token) return;
        this.current = frame;
        const ctx = {
          view, seat: view.startsWith("seat-") ? Number(view.slice(5)) : null, names: this.names,
          players: this.match.players, step: this.steps[i] || null, index: i, final: i >= this.steps.length,
          teams: this.match.teams, end: this.replay.end, seats: this.match.seats,
        };
        const board = this.el("v-board");
        const drawn = view === "snapshot" ? A.boards.json(frame, ctx) : this.draw(frame, ctx);
        A.clear(board).appendChild(drawn);
        board.dataset.frame = String(i);
        board.dataset.view = view;
        this.root.dataset.frame = String(i);
        this.root.dataset.view = view;
        this.renderJSON();
        if (!this.painted) {
          this.painted = true;
          performance.mark("arena-board-drawn");
          requestAnimationFrame(() => setTimeout(() => this.prefetch(view), 0));
        }
        try { history.replaceState(null, "", "#step=" + i + "&view=" + view); } catch (e) { /* file:// */ }
      }, (error) => {
        if (token !== this.token) return;
        A.clear(this.el("v-board")).appendChild(h("p", { class: "error-text" }, "Could not load the frames: " + error.message));
      });
    }

    /* After the first paint: the view's other chunks, one by one, then the log check's end. */
    prefetch(view) {
      const chunks = Math.ceil(this.total / this.chunkSize);
      let next = 0;
      const more = () => {
        if (next >= chunks) {
          if (!this.replay.verification.done) this.source.check().then((v) => { if (v) this.updateCheck(v); }).catch(() => {});
          return;
        }
        this.wholeChunk(view, next++).then(() => setTimeout(more, 20), () => {});
      };
      more();
    }

    updateCheck(verification) {
      const old = this.replay.verification || {};
      if (old.done && !verification.done) return;
      this.replay.verification = verification;
      this.renderCheck();
    }

    renderCheck() {
      const check = this.replay.verification || {};
      const box = A.clear(this.el("v-check"));
      this.root.dataset.checked = check.done ? (check.ok ? "ok" : "bad") : "running";
      if (!check.done && !(check.mismatches || []).length && !check.error) {
        box.className = "check running";
        box.appendChild(h("span", null, "Checking the log against the engine's replay… the first " + check.checked_steps + " steps agree so far."));
        return;
      }
      if (check.ok) {
        box.className = "check ok";
        box.appendChild(h("span", null, "✓ Replayed by the engine: " + check.checked_requests + " logged requests match the replay, and the final scores."));
      } else {
        box.className = "check bad";
        box.appendChild(h("strong", null, "The replay differs from the log. "));
        if (check.error) box.appendChild(h("span", null, check.error + ". "));
        for (const m of check.mismatches || []) box.appendChild(h("span", { class: "mismatch" }, "step " + m.step + " (seat " + m.seat + "): " + m.detail + ". "));
        if (check.scores_match === false) box.appendChild(h("span", null, "The final scores differ from the logged end."));
      }
    }

    renderDecision(i) {
      const box = A.clear(this.el("v-decision"));
      const s = this.steps[i];
      if (!s) {
        const end = this.replay.end;
        box.appendChild(h("p", null, "The game is over."));
        if (end) {
          const rows = (end.scores || []).map((score, seat) => h("tr", null,
            h("td", null, A.seatName({ names: this.names }, seat)), h("td", { class: "num" }, A.fmt(score, 1)),
            h("td", { class: "num" }, "#" + (end.ranks ? end.ranks[seat] : "?")), h("td", null, end.statuses ? end.statuses[seat] : "")));
          box.appendChild(h("table", { class: "end-table" }, h("tr", null, h("th", null, "seat"), h("th", { class: "num" }, "score"), h("th", { class: "num" }, "rank"), h("th", null, "status")), rows));
        }
        return;
      }
      box.appendChild(h("p", { class: "who" }, h("span", { class: "seat-dot seat-" + s.seat }), A.seatName({ names: this.names }, s.seat),
        s.by === "fallback" ? h("span", { class: "tag bad" }, "fallback (random move by the harness)") : null));
      if (s.failure) box.appendChild(h("p", { class: "error-text", "data-testid": "failure" }, "failed here: " + s.failure.status + " — " + s.failure.error));
      box.appendChild(h("pre", { class: "action", "data-testid": "action" }, JSON.stringify(s.action)));
      const facts = [];
      if (s.ms !== null && s.ms !== undefined) facts.push("wall " + A.ms(s.ms));
      if (s.cpu_ms !== null && s.cpu_ms !== undefined) facts.push("CPU " + A.ms(s.cpu_ms));
      if (s.harness_ms !== null && s.harness_ms !== undefined) facts.push("harness " + A.ms(s.harness_ms));
      if (this.replay.clock) facts.push(this.replay.clock + " clock");
      if (s.bank_ms !== null && s.bank_ms !== undefined) facts.push("bank " + (s.bank_ms / 1000).toFixed(1) + " s");
      if (s.legal_count !== null && s.legal_count !== undefined) facts.push(s.legal_count + " legal actions");
      if (facts.length) box.appendChild(h("p", { class: "muted" }, facts.join(" · ")));
      if (s.debug) box.appendChild(h("div", { class: "debug" }, h("span", { class: "muted" }, "debug: "), h("span", { "data-testid": "debug" }, s.debug)));
    }

    renderSeats(i) {
      const table = A.clear(this.el("v-seats"));
      table.appendChild(h("tr", null, h("th", null, "seat"), h("th", null, "status"), h("th", { class: "num" }, "decisions"),
        h("th", { class: "num" }, "wall"), this.hasCpu ? h("th", { class: "num" }, "CPU") : null));
      const before = this.before[Math.min(i, this.before.length - 1)];
      const acting = this.steps[i] ? this.steps[i].seat : null;
      for (let seat = 0; seat < this.match.players; seat++) {
        const failed = this.failedAt[seat];
        const down = failed && failed.step < i + (this.steps[i] && this.steps[i].seat === seat && this.steps[i].failure ? 1 : 0);
        const status = down ? failed.status : "ok";
        const row = h("tr", { class: seat === acting ? "acting" : null, "data-seat": seat },
          h("td", null, h("span", { class: "seat-dot seat-" + seat }), A.seatName({ names: this.names }, seat)),
          h("td", null, h("span", { class: "status status-" + status, title: down ? failed.error : null }, status)),
          h("td", { class: "num" }, String(before.decisions[seat])),
          h("td", { class: "num" }, A.ms(before.time[seat])),
          this.hasCpu ? h("td", { class: "num" }, A.ms(before.cpu[seat])) : null);
        table.appendChild(row);
      }
    }

    /* Per seat, like a console: what its bot wrote to stderr during its decision at this step,
     * or its latest decision before it (its start-up before its first; after the end, what it
     * wrote after `end`). Text only (textContent): nothing a bot wrote becomes markup. */
    renderConsoles(i) {
      let box = this.el("v-consoles");
      if (!box) {
        const side = this.root.querySelector(".side");
        if (!side) return;
        box = h("div", { id: "v-consoles" });
        side.insertBefore(h("section", { class: "consoles" }, h("h3", null, "Stderr"), box), side.querySelector("#v-json"));
      }
      A.clear(box);
      const outside = this.replay.stderr || { start: [], after_end: [] };
      const pres = [];
      for (let seat = 0; seat < this.match.players; seat++) {
        let j = Math.min(i, this.steps.length - 1);
        while (j >= 0 && !(this.steps[j].seat === seat && (this.steps[j].by === "bot" || this.steps[j].failure))) j--;
        let when = j >= 0 ? "step " + j : "start-up";
        let text = j >= 0 ? this.steps[j].stderr : outside.start[seat];
        if (i >= this.steps.length && outside.after_end[seat]) { when = "after end"; text = outside.after_end[seat]; }
        const current = j === i && i < this.steps.length;
        const pre = h("pre", { class: "console-text" + (text ? "" : " console-empty") }, text || "(nothing on stderr)");
        box.appendChild(h("div", { class: "console" + (current ? " current" : ""), "data-seat": seat, "data-testid": "console" },
          h("div", { class: "console-head" }, h("span", { class: "seat-dot seat-" + seat }), A.seatName({ names: this.names }, seat),
            h("span", { class: "muted" }, " · " + when)), pre));
        if (text) pres.push(pre);
      }
      // The end shows, as in a terminal. Reading scrollHeight lays the page out: once, in the
      // next frame (whose own layout it is), not once per seat before the board is drawn.
      if (pres.length) requestAnimationFrame(() => { for (const pre of pres) pre.scrollTop = pre.scrollHeight; });
    }

    renderJSON() {
      const details = this.el("v-json");
      if (!details.open || !this.current) return;
      this.el("v-json-text").textContent = JSON.stringify(this.current, null, 1);
    }
  }

  A.Viewer = Viewer;
})();
