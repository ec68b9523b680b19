import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, complete JSON reader and writer for arena bots (standard library only).
 *
 * <p>{@code Json.parse(text)} returns plain Java values: {@code null}, {@link Boolean},
 * {@link Long} (every integer that fits 64 bits), {@link Double} (other numbers),
 * {@link String}, {@code List<Object>} and {@code Map<String, Object>} (keys in order).
 * {@code Json.write(value)} turns such values (and {@link Integer}) back into compact JSON on
 * one line. It reads everything JSON allows: nested objects and arrays, every string escape
 * ({@code \\uXXXX} and surrogate pairs included), negative numbers, floats, true, false, null.
 */
public final class Json {
    /** A line that is not valid JSON. */
    public static final class JsonException extends RuntimeException {
        JsonException(String message) {
            super(message);
        }
    }

    private static final int MAX_DEPTH = 512;
    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    public static Object parse(String text) {
        Json parser = new Json(text);
        Object value = parser.value(0);
        parser.skipSpace();
        if (parser.pos != text.length()) {
            throw parser.error("unexpected text after the JSON value");
        }
        return value;
    }

    // ------------------------------------------------------------------ convenient access

    /** The member {@code key} of an object, or null (missing key, or not an object). */
    @SuppressWarnings("unchecked")
    public static Object get(Object object, String key) {
        return object instanceof Map ? ((Map<String, Object>) object).get(key) : null;
    }

    @SuppressWarnings("unchecked")
    public static List<Object> list(Object value) {
        return value instanceof List ? (List<Object>) value : null;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object value) {
        return value instanceof Map ? (Map<String, Object>) value : null;
    }

    public static String string(Object value) {
        return value instanceof String ? (String) value : null;
    }

    /** A JSON number as a long (a float is truncated); {@code otherwise} if it is not one. */
    public static long integer(Object value, long otherwise) {
        if (value instanceof Long || value instanceof Integer) {
            return ((Number) value).longValue();
        }
        if (value instanceof Double) {
            return (long) (double) (Double) value;
        }
        return otherwise;
    }

    // ------------------------------------------------------------------ writing

    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean) {
            out.append(((Boolean) value) ? "true" : "false");
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte) {
            out.append(((Number) value).longValue());  // integers stay integers: 2, never 2.0
        } else if (value instanceof Number) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                out.append("null");  // JSON has no NaN or infinity
            } else {
                out.append(Double.toString(d));
            }
        } else if (value instanceof CharSequence) {
            writeString(value.toString(), out);
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString(String.valueOf(entry.getKey()), out);
                out.append(':');
                write(entry.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof Iterable) {
            out.append('[');
            boolean first = true;
            for (Object item : (Iterable<?>) value) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(item, out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass() + " as JSON");
        }
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                case '\b': out.append("\\b"); break;
                case '\f': out.append("\\f"); break;
                default:
                    if (c < 0x20 || (Character.isSurrogate(c) && !pairedSurrogate(s, i))) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);  // written as UTF-8 by the output stream
                    }
            }
        }
        out.append('"');
    }

    private static boolean pairedSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    // ------------------------------------------------------------------ reading

    private JsonException error(String why) {
        return new JsonException("bad JSON at character " + pos + ": " + why);
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else {
                break;
            }
        }
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested too deeply");
        }
        skipSpace();
        if (pos >= text.length()) {
            throw error("unexpected end of input");
        }
        char c = text.charAt(pos);
        if (c == '{') {
            return object(depth);
        }
        if (c == '[') {
            return array(depth);
        }
        if (c == '"') {
            return string();
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
        }
        if (text.startsWith("true", pos)) {
            pos += 4;
            return Boolean.TRUE;
        }
        if (text.startsWith("false", pos)) {
            pos += 5;
            return Boolean.FALSE;
        }
        if (text.startsWith("null", pos)) {
            pos += 4;
            return null;
        }
        throw error("unexpected character '" + c + "'");
    }

    private Map<String, Object> object(int depth) {
        pos++;  // {
        Map<String, Object> members = new LinkedHashMap<>();
        skipSpace();
        if (peek() == '}') {
            pos++;
            return members;
        }
        while (true) {
            skipSpace();
            if (peek() != '"') {
                throw error("expected a string key");
            }
            String key = string();
            skipSpace();
            if (peek() != ':') {
                throw error("expected ':'");
            }
            pos++;
            members.put(key, value(depth + 1));  // a repeated key: the last one wins
            skipSpace();
            char c = peek();
            pos++;
            if (c == ',') {
                continue;
            }
            if (c == '}') {
                return members;
            }
            pos--;
            throw error("expected ',' or '}'");
        }
    }

    private List<Object> array(int depth) {
        pos++;  // [
        List<Object> items = new ArrayList<>();
        skipSpace();
        if (peek() == ']') {
            pos++;
            return items;
        }
        while (true) {
            items.add(value(depth + 1));
            skipSpace();
            char c = peek();
            pos++;
            if (c == ',') {
                continue;
            }
            if (c == ']') {
                return items;
            }
            pos--;
            throw error("expected ',' or ']'");
        }
    }

    private int hex4() {
        if (pos + 4 > text.length()) {
            throw error("short \\u escape");
        }
        int code = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos++), 16);
            if (digit < 0) {
                throw error("bad hex digit in \\u escape");
            }
            code = code * 16 + digit;
        }
        return code;
    }

    private String string() {
        pos++;  // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unterminated escape");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"': out.append('"'); break;
                case '\\': out.append('\\'); break;
                case '/': out.append('/'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    // Java strings are UTF-16, so a surrogate pair is simply its two halves.
                    out.append((char) hex4());
                    break;
                default:
                    throw error("bad escape '\\" + e + "'");
            }
        }
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (peek() >= '1' && peek() <= '9') {
            while (peek() >= '0' && peek() <= '9') {
                pos++;
            }
        } else {
            throw error("bad number");
        }
        boolean integral = true;
        if (peek() == '.') {
            integral = false;
            pos++;
            if (!(peek() >= '0' && peek() <= '9')) {
                throw error("bad number: digits expected after '.'");
            }
            while (peek() >= '0' && peek() <= '9') {
                pos++;
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!(peek() >= '0' && peek() <= '9')) {
                throw error("bad number: digits expected in the exponent");
            }
            while (peek() >= '0' && peek() <= '9') {
                pos++;
            }
        }
        String token = text.substring(start, pos);
        if (integral) {
            try {
                return Long.parseLong(token);
            } catch (NumberFormatException tooLarge) {
                // beyond 64 bits: a Double, like most JSON readers
            }
        }
        return Double.parseDouble(token);
    }
}
