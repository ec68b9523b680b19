//! Starter bot for arena in Rust (docs/protocol.md). Copy this folder and edit `Bot::choose`.
//!
//! It plays any of the three games: by default a seeded random legal action. Standard
//! library only (`json.rs` is the JSON reader and writer). stdout carries protocol lines
//! only: write your debugging output to stderr (`eprintln!`).

mod json;

use json::Value;
use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

/// `struct timespec` and `clock_gettime` from the C library (Linux, 64-bit): the CPU time of
/// the whole process, without the libc crate (the build has no network for crates).
#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}
extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}
const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

fn process_cpu_ms() -> f64 {
    let mut time = Timespec { tv_sec: 0, tv_nsec: 0 };
    // Safe: a valid pointer to a struct laid out as the C library's.
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 * 1000.0 + time.tv_nsec as f64 / 1e6
}

/// When to stop thinking about one request, on the clock the harness runs (the request's
/// `time`, docs/protocol.md "Time"): this process's CPU time (all its threads) on the CPU
/// clock, else wall time. The budget is 80 % of the per-decision allowance plus 5 % of what is
/// left in the bank.
struct Clock {
    cpu: bool,
    began: Instant,
    deadline_ms: f64,
}

impl Clock {
    fn new(time: &Value) -> Clock {
        let cpu = time["clock"].as_str() == Some("cpu");
        let budget = 0.8 * time["decision_ms"].as_f64().unwrap_or(1000.0) + 0.05 * time["bank_ms"].as_f64().unwrap_or(0.0);
        let mut clock = Clock { cpu, began: Instant::now(), deadline_ms: 0.0 };
        clock.deadline_ms = clock.now_ms() + budget;
        clock
    }

    fn now_ms(&self) -> f64 {
        if self.cpu { process_cpu_ms() } else { self.began.elapsed().as_secs_f64() * 1000.0 }
    }

    #[allow(dead_code)]
    fn left_ms(&self) -> f64 {
        (self.deadline_ms - self.now_ms()).max(0.0)
    }

    #[allow(dead_code)]
    fn out_of_time(&self) -> bool {
        self.now_ms() >= self.deadline_ms
    }
}

/// SplitMix64: seeded, so a replayed match plays the same way (the C++ and Java kits use the
/// same generator and make the same choices from the same seed).
struct Random {
    state: u64,
}

impl Random {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in [0, n), n > 0 (rejection sampling: no modulo bias).
    fn below(&mut self, n: u64) -> u64 {
        let limit = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < limit {
                return x % n;
            }
        }
    }
}

struct Bot {
    rng: Random,
    game: String,
    seat: i64,
    players: i64,
}

impl Bot {
    fn new() -> Bot {
        Bot { rng: Random { state: 0 }, game: String::new(), seat: 0, players: 0 }
    }

    /// Called at the start of every match: the game, options, your seat, player count, a seed
    /// and the limits. With "matches": "many" one process may play several matches in a row,
    /// so reset everything that belongs to one match here.
    fn start(&mut self, message: &Value) {
        self.game = message["game"].as_str().unwrap_or("").to_string();
        self.seat = message["seat"].as_i64().unwrap_or(0);
        self.players = message["players"].as_i64().unwrap_or(0);
        let seed = message["seed"].as_i64().or_else(|| message["seed"].as_f64().map(|f| f as i64));
        self.rng = Random { state: seed.unwrap_or(0) as u64 };
    }

    /// Return the index of the action to play in `legal`. `observation` is everything your
    /// seat may see now (docs/games/<game>.md); `legal` lists every action you may play. A
    /// search stops when `clock.out_of_time()` (its time on the harness's clock:
    /// `clock.left_ms()`).
    fn choose(&mut self, _observation: &Value, legal: &[Value], _clock: &Clock) -> usize {
        self.rng.below(legal.len() as u64) as usize
    }

    /// Called when a match is over (scores, ranks, statuses of every seat).
    fn end(&mut self, message: &Value) {
        eprintln!("match over: ranks {} (seat {} of {} in {})", message["ranks"].dump(), self.seat,
                  self.players, self.game);
    }
}

fn send(out: &mut impl Write, message: &Value) -> io::Result<()> {
    out.write_all(message.dump().as_bytes())?;
    out.write_all(b"\n")?;
    out.flush() // the harness waits for the line: flush after every reply
}

/// `bot --echo-json`: read JSON lines and write each back, compact (a self-test of json.rs;
/// tests/test_starter_kits.py uses it). A line that is not JSON gets "error".
fn echo_json() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = line?;
        match json::parse(&line) {
            Ok(value) => writeln!(out, "{}", value.dump())?,
            Err(_) => writeln!(out, "error")?,
        }
    }
    out.flush()
}

fn main() -> io::Result<()> {
    if std::env::args().nth(1).as_deref() == Some("--echo-json") {
        return echo_json();
    }
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut bot = Bot::new();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                eprintln!("cannot read stdin: {}", error);
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let message = match json::parse(&line) {
            Ok(message) => message,
            Err(error) => {
                eprintln!("ignoring a line that is not JSON: {}", error);
                continue;
            }
        };
        match message["type"].as_str().unwrap_or("") {
            "start" => {
                bot.start(&message);
                let ready = Value::object(vec![
                    ("type", "ready".into()),
                    ("name", "starter-rust".into()),
                    ("matches", "many".into()),
                ]);
                send(&mut out, &ready)?;
            }
            "request" => {
                let mut index = 0;
                if let Some(legal) = message["legal"].as_array() {
                    if !legal.is_empty() {
                        // A panic in choose must not cost the match: play the first action.
                        let clock = Clock::new(&message["time"]);
                        let chosen = panic::catch_unwind(AssertUnwindSafe(|| {
                            bot.choose(&message["observation"], legal, &clock)
                        }));
                        index = chosen.unwrap_or_else(|_| {
                            eprintln!("choose panicked; playing the first action");
                            0
                        });
                        if index >= legal.len() {
                            index = 0;
                        }
                    }
                }
                let reply = Value::object(vec![("type", "action".into()), ("index", index.into())]);
                send(&mut out, &reply)?;
            }
            "end" => bot.end(&message),
            "quit" => break,
            _ => {} // any other message type: ignored (later protocol versions may add some)
        }
    }
    Ok(())
}
