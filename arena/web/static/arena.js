/* arena: helpers shared by the pages and the replay viewer.
 *
 * Everything a bot wrote reaches the page through textContent (h() and svg() below),
 * never innerHTML; attributes named on* are refused. Arena.boards is where each game's
 * board drawing registers itself (board-<game>.js).
 */
"use strict";
(function () {
  const A = (window.Arena = window.Arena || {});
  A.boards = A.boards || {};

  const SVG_NS = "http://www.w3.org/2000/svg";

  function fill(el, attrs, children) {
    if (attrs) {
      for (const [key, value] of Object.entries(attrs)) {
        if (value === null || value === undefined || value === false) continue;
        if (/^on/i.test(key)) throw new Error("event handler attributes are not allowed: " + key);
        if (key === "class") el.setAttribute("class", value);
        else if (key === "text") el.textContent = A.visible(value);
        else if (key === "dataset") for (const [k, v] of Object.entries(value)) el.dataset[k] = String(v);
        else el.setAttribute(key, value === true ? "" : String(value));
      }
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.appendChild(child instanceof Node ? child : document.createTextNode(A.visible(child)));
    }
    return el;
  }

  /* h("div", {class: "x"}, "text", child, [more]) — strings become text nodes. */
  A.h = function (tag, attrs, ...children) {
    return fill(document.createElement(tag), attrs, children);
  };
  A.svg = function (tag, attrs, ...children) {
    return fill(document.createElementNS(SVG_NS, tag), attrs, children);
  };

  /* Control characters made readable, like arena.web.safe.visible (tab and newline kept). */
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
  A.visible = function (text) {
    if (text === null || text === undefined) return "";
    return String(text).replace(CONTROL, (c) => {
      const code = c.charCodeAt(0);
      return code < 0x100 ? "\\x" + code.toString(16).padStart(2, "0") : "\\u" + code.toString(16).padStart(4, "0");
    });
  };

  A.readJSON = function (id) {
    const el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  };

  A.clear = function (el) {
    while (el.firstChild) el.removeChild(el.firstChild);
    return el;
  };

  A.fmt = function (value, digits) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number" && !Number.isInteger(value)) return value.toFixed(digits === undefined ? 2 : digits);
    return String(value);
  };

  A.ms = function (value) {
    if (value === null || value === undefined) return "–";
    return value >= 10 ? value.toFixed(0) + " ms" : value.toFixed(1) + " ms";
  };

  /* Compact JSON for an action: {"type":"bid","amount":2} -> bid amount=2 */
  A.actionText = function (action) {
    if (action && typeof action === "object" && !Array.isArray(action) && typeof action.type === "string") {
      const rest = Object.entries(action).filter(([k]) => k !== "type")
        .map(([k, v]) => k + "=" + (typeof v === "string" ? v : JSON.stringify(v)));
      return [action.type, ...rest].join(" ");
    }
    return JSON.stringify(action);
  };

  A.seatName = function (ctx, seat) {
    if (seat === "alea") return "Alea";
    if (seat === null || seat === undefined) return "–";
    const name = ctx && ctx.names ? ctx.names[seat] : null;
    return name ? "seat " + seat + " · " + name : "seat " + seat;
  };

  /* A titled panel: h3 + body. */
  A.panel = function (title, cls, ...body) {
    return A.h("section", { class: "panel " + (cls || "") }, A.h("h3", null, title), ...body);
  };

  /* The generic drawing for a game without its own: the frame as JSON. */
  A.boards.json = function (frame) {
    return A.h("pre", { class: "frame-json" }, JSON.stringify(frame, null, 1));
  };
})();
