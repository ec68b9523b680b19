import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Starter bot for arena in Java 17 (docs/protocol.md). Copy this folder and edit
 * {@link #choose}.
 *
 * <p>It plays any of the three games: by default a seeded random legal action. Standard
 * library only ({@link Json} is the JSON reader and writer). stdout carries protocol lines
 * only: write your debugging output to {@code System.err}.
 */
public final class Bot {
    /** SplitMix64: seeded, so a replayed match plays the same way (the C++ and Rust kits
     *  use the same generator and make the same choices from the same seed). */
    static final class Random {
        private long state;

        void seed(long seed) {
            state = seed;
        }

        long next() {
            long z = (state += 0x9E3779B97F4A7C15L);
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }

        /** A uniform number in [0, n), n > 0 (rejection sampling: no modulo bias). */
        long below(long n) {
            long limit = -1L - Long.remainderUnsigned(-1L, n);  // unsigned: MAX - MAX % n
            while (true) {
                long x = next();
                if (Long.compareUnsigned(x, limit) < 0) {
                    return Long.remainderUnsigned(x, n);
                }
            }
        }
    }

    /**
     * When to stop thinking about one request, on the clock the harness runs (the request's
     * {@code time}, docs/protocol.md "Time"): this process's CPU time (all its threads, the
     * JIT compiler and the garbage collector included, as the harness counts it) on the CPU
     * clock, else wall time. The budget is 80 % of the per-decision allowance plus 5 % of
     * what is left in the bank.
     */
    static final class Clock {
        private static final com.sun.management.OperatingSystemMXBean OS =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        private final boolean cpu;
        private final double deadlineMs;

        Clock(Map<String, Object> time) {
            cpu = time != null && "cpu".equals(Json.string(time.get("clock")));
            double decision = time == null ? 1000 : Json.integer(time.get("decision_ms"), 1000);
            double bank = time == null ? 0 : Json.integer(time.get("bank_ms"), 0);
            deadlineMs = nowMs() + 0.8 * decision + 0.05 * bank;
        }

        double nowMs() {
            return (cpu ? OS.getProcessCpuTime() : System.nanoTime()) / 1e6;
        }

        double leftMs() {
            return Math.max(0, deadlineMs - nowMs());
        }

        boolean outOfTime() {
            return nowMs() >= deadlineMs;
        }
    }

    private final Random rng = new Random();
    private String game;
    private long seat;
    private long players;

    /**
     * Called at the start of every match: the game, options, your seat, player count, a seed
     * and the limits. With "matches": "many" one process may play several matches in a row,
     * so reset everything that belongs to one match here.
     */
    void start(Map<String, Object> message) {
        game = Json.string(message.get("game"));
        seat = Json.integer(message.get("seat"), 0);
        players = Json.integer(message.get("players"), 0);
        rng.seed(Json.integer(message.get("seed"), 0));
    }

    /**
     * Return the index of the action to play in {@code legal}. {@code observation} is
     * everything your seat may see now (docs/games/&lt;game&gt;.md); {@code legal} lists every
     * action you may play (each a {@code Map<String, Object>}). A search stops when
     * {@code clock.outOfTime()} (its time on the harness's clock: {@code clock.leftMs()}).
     */
    int choose(Map<String, Object> observation, List<Object> legal, Clock clock) {
        return (int) rng.below(legal.size());
    }

    /** Called when a match is over (scores, ranks, statuses of every seat). */
    void end(Map<String, Object> message) {
        System.err.println("match over: ranks " + Json.write(message.get("ranks")));
    }

    // ------------------------------------------------------------------ the protocol loop

    private static PrintStream out;

    private static void send(Map<String, Object> message) {
        out.print(Json.write(message) + "\n");
        out.flush();  // the harness waits for the line: flush after every reply
    }

    /** {@code java Bot --echo-json}: read JSON lines and write each back, compact (a
     *  self-test of Json.java; tests/test_starter_kits.py uses it). Bad lines give "error". */
    private static void echoJson(BufferedReader in) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            String reply;
            try {
                reply = Json.write(Json.parse(line));
            } catch (Json.JsonException error) {
                reply = "error";
            }
            out.print(reply + "\n");
        }
        out.flush();
    }

    public static void main(String[] args) throws IOException {
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (args.length > 0 && args[0].equals("--echo-json")) {
            echoJson(in);
            return;
        }
        Bot bot = new Bot();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> message;
            try {
                message = Json.map(Json.parse(line));
            } catch (Json.JsonException error) {
                System.err.println("ignoring a line that is not JSON: " + error.getMessage());
                continue;
            }
            if (message == null) {
                continue;
            }
            String type = Json.string(message.get("type"));
            if ("start".equals(type)) {
                new Clock(null).outOfTime();  // loads the CPU-time reader now, not in the first decision
                bot.start(message);
                Map<String, Object> ready = new LinkedHashMap<>();
                ready.put("type", "ready");
                ready.put("name", "starter-java");
                ready.put("matches", "many");
                send(ready);
            } else if ("request".equals(type)) {
                List<Object> legal = Json.list(message.get("legal"));
                int index = 0;
                if (legal != null && !legal.isEmpty()) {
                    try {
                        Map<String, Object> observation = Json.map(message.get("observation"));
                        index = bot.choose(observation, legal, new Clock(Json.map(message.get("time"))));
                    } catch (RuntimeException error) {  // a bug must not cost the match
                        System.err.println("choose failed: " + error + "; playing the first action");
                        index = 0;
                    }
                    if (index < 0 || index >= legal.size()) {
                        index = 0;
                    }
                }
                Map<String, Object> reply = new LinkedHashMap<>();
                reply.put("type", "action");
                reply.put("index", index);
                send(reply);
            } else if ("end".equals(type)) {
                bot.end(message);
            } else if ("quit".equals(type)) {
                break;
            }
            // Any other message type: ignored (later protocol versions may add some).
        }
    }
}
