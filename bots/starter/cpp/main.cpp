// Starter bot for arena in C++17 (docs/protocol.md). Copy this folder and edit Bot::choose.
//
// It plays any of the three games: by default a seeded random legal action. Standard library
// only (json.hpp is the JSON reader and writer). stdout carries protocol lines only: write
// your debugging output to std::cerr.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <iostream>
#include <string>

#include "json.hpp"

// SplitMix64: a small seeded generator, so a replayed match plays the same way (the Java and
// Rust kits use the same one and make the same choices from the same seed).
class Random {
public:
    void seed(std::uint64_t seed) { state_ = seed; }
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // A uniform number in [0, n), n > 0 (rejection sampling: no modulo bias).
    std::uint64_t below(std::uint64_t n) {
        std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        std::uint64_t x;
        do { x = next(); } while (x >= limit);
        return x % n;
    }

private:
    std::uint64_t state_ = 0;
};

// When to stop thinking about one request, on the clock the harness runs (the request's
// "time", docs/protocol.md "Time"): this process's CPU time (std::clock: all its threads) on
// the CPU clock, else wall time. The budget is 80 % of the per-decision allowance plus 5 % of
// what is left in the bank.
class Clock {
public:
    explicit Clock(const json::Value& time) {
        cpu_ = time["clock"].is_string() && time["clock"].str() == "cpu";
        const double decision = time["decision_ms"].is_number() ? time["decision_ms"].number() : 1000.0;
        const double bank = time["bank_ms"].is_number() ? time["bank_ms"].number() : 0.0;
        deadline_ms_ = now_ms() + 0.8 * decision + 0.05 * bank;
    }
    double now_ms() const {
        if (cpu_) return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
        return std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    double left_ms() const { return std::max(0.0, deadline_ms_ - now_ms()); }
    bool out_of_time() const { return now_ms() >= deadline_ms_; }

private:
    bool cpu_ = false;
    double deadline_ms_ = 0.0;
};

class Bot {
public:
    // Called at the start of every match: the game, options, your seat, player count, a seed
    // and the limits. With "matches": "many" one process may play several matches in a row,
    // so reset everything that belongs to one match here.
    void start(const json::Value& message) {
        game_ = message["game"].is_string() ? message["game"].str() : "";
        seat_ = message["seat"].is_number() ? message["seat"].integer() : 0;
        players_ = message["players"].is_number() ? message["players"].integer() : 0;
        const json::Value& seed = message["seed"];  // a JSON integer (63 bits)
        long long value = 0;
        if (seed.is_int()) {
            value = seed.integer();
        } else if (seed.is_number() && std::fabs(seed.number()) < 9.2e18) {
            value = static_cast<long long>(seed.number());
        }
        rng_.seed(static_cast<std::uint64_t>(value));
    }

    // Return the index of the action to play in `legal`. `observation` is everything your
    // seat may see now (docs/games/<game>.md); `legal` lists every action you may play. A
    // search stops when clock.out_of_time() (its time on the harness's clock: clock.left_ms()).
    std::size_t choose(const json::Value& observation, const json::Value& legal, const Clock& clock) {
        (void)observation;
        (void)clock;
        return static_cast<std::size_t>(rng_.below(legal.size()));
    }

    // Called when a match is over (scores, ranks, statuses of every seat).
    void end(const json::Value& message) {
        std::cerr << "match over: ranks " << message["ranks"].dump() << std::endl;
    }

private:
    Random rng_;
    std::string game_;
    long long seat_ = 0;
    long long players_ = 0;
};

static void send(const json::Value& message) {
    std::cout << message.dump() << '\n';
    std::cout.flush();  // the harness waits for the line: flush after every reply
}

// `./bot --echo-json`: read JSON lines and write each one back, compact (a self-test of
// json.hpp; tests/test_starter_kits.py uses it). A line that is not JSON gets "error".
static int echo_json() {
    std::string line;
    while (std::getline(std::cin, line)) {
        try {
            std::cout << json::parse(line).dump() << '\n';
        } catch (const json::Error& error) {
            std::cout << "error" << '\n';
        }
    }
    std::cout.flush();
    return 0;
}

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    if (argc > 1 && std::string(argv[1]) == "--echo-json") return echo_json();
    Bot bot;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json::Value message;
        try {
            message = json::parse(line);
        } catch (const json::Error& error) {
            std::cerr << "ignoring a line that is not JSON: " << error.what() << std::endl;
            continue;
        }
        const json::Value& type = message["type"];
        const std::string kind = type.is_string() ? type.str() : "";
        if (kind == "start") {
            bot.start(message);
            json::Value ready = json::Value::object();
            ready.set("type", "ready").set("name", "starter-cpp").set("matches", "many");
            send(ready);
        } else if (kind == "request") {
            const json::Value& legal = message["legal"];
            std::size_t index = 0;
            if (legal.is_array() && legal.size() > 0) {
                try {
                    index = bot.choose(message["observation"], legal, Clock(message["time"]));
                } catch (const std::exception& error) {  // a bug must not cost the match
                    std::cerr << "choose failed: " << error.what() << "; playing the first action" << std::endl;
                    index = 0;
                }
                if (index >= legal.size()) index = 0;
            }
            json::Value reply = json::Value::object();
            reply.set("type", "action").set("index", static_cast<long long>(index));
            send(reply);
        } else if (kind == "end") {
            bot.end(message);
        } else if (kind == "quit") {
            break;
        }
        // Any other message type: ignored (later protocol versions may add some).
    }
    return 0;
}
