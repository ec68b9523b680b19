#!/usr/bin/env node
// Starter bot for arena (protocol v2, docs/protocol.md: it plays many matches per process). Copy this folder and edit choose().
// Plays any of the three games: by default a random legal action. Node.js, no packages.
// Print debugging output with console.error (stderr), never console.log (stdout).
"use strict";

const readline = require("readline");

// A small seeded random generator (mulberry32), so a replayed match plays the same way.
function seededRandom(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// When to stop thinking about one request, on the clock the harness runs (the request's
// `time`, docs/protocol.md "Time"): this process's CPU time (process.cpuUsage(), all its
// threads) on the CPU clock, else wall time. The budget is 80 % of the per-decision
// allowance plus 5 % of what is left in the bank.
class Clock {
  constructor(time = {}) {
    this.cpu = time.clock === "cpu";
    const budgetMs = 0.8 * (time.decision_ms ?? 1000) + 0.05 * (time.bank_ms ?? 0);
    this.deadline = this.now() + budgetMs;
  }

  now() {  // milliseconds
    if (this.cpu) {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1000;
    }
    return performance.now();
  }

  leftMs() { return Math.max(0, this.deadline - this.now()); }

  outOfTime() { return this.now() >= this.deadline; }
}

const bot = {
  random: Math.random,
  game: null,
  seat: null,

  // Called once: the game, options, your seat, player count, a seed and the limits.
  start(message) {
    this.game = message.game;
    this.seat = message.seat;
    this.random = seededRandom(message.seed % 4294967296);
  },

  // Return the index of the action to play in `legal`. `observation` is everything your
  // seat may see now (see docs/games/<game>.md); `legal` lists every action you may play.
  // A search stops when clock.outOfTime() (its time on the harness's clock: clock.leftMs()).
  choose(observation, legal, clock) {
    return Math.floor(this.random() * legal.length);
  },
};

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    bot.start(message);
    send({ type: "ready", name: "starter-javascript", matches: "many" });
  } else if (message.type === "request") {
    send({ type: "action", index: bot.choose(message.observation, message.legal, new Clock(message.time)) });
  } else if (message.type === "end") {
    console.error(`match over: ranks ${JSON.stringify(message.ranks)}`);
  } else if (message.type === "quit") {
    input.close();
  }
});
input.on("close", () => process.exit(0));
