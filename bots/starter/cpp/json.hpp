// A small, complete JSON reader and writer for arena bots (C++17, standard library only).
//
//   json::Value message = json::parse(line);       // throws json::Error on bad input
//   message["type"].str()                          // "request"
//   message["legal"].size(), message["legal"][0]   // arrays
//   message["observation"]["seat"].integer()       // numbers (64-bit integers kept exact)
//   message.get("missing").is_null()               // a missing key reads as null
//   json::Value reply = json::Value::object();
//   reply.set("type", "action").set("index", 3);
//   std::string line = reply.dump();               // compact, one line
//
// It reads everything JSON allows: nested objects and arrays, strings with every escape
// (\uXXXX and surrogate pairs become UTF-8), integers (exact up to 64 bits), floats, true,
// false and null. Object keys keep their order.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace json {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Value {
public:
    enum class Kind { Null, Bool, Int, Float, String, Array, Object };
    using Array = std::vector<Value>;
    using Object = std::vector<std::pair<std::string, Value>>;

    Value() = default;
    Value(std::nullptr_t) {}
    Value(bool b) : kind_(Kind::Bool), bool_(b) {}
    Value(int i) : kind_(Kind::Int), int_(i) {}
    Value(long i) : kind_(Kind::Int), int_(i) {}
    Value(long long i) : kind_(Kind::Int), int_(i) {}
    Value(unsigned i) : kind_(Kind::Int), int_(i) {}
    Value(unsigned long i) : kind_(Kind::Int), int_(static_cast<long long>(i)) {}
    Value(unsigned long long i) : kind_(Kind::Int), int_(static_cast<long long>(i)) {}
    Value(double d) : kind_(Kind::Float), float_(d) {}
    Value(const char* s) : kind_(Kind::String), string_(s) {}
    Value(std::string s) : kind_(Kind::String), string_(std::move(s)) {}
    Value(Array a) : kind_(Kind::Array), array_(std::move(a)) {}
    Value(Object o) : kind_(Kind::Object), object_(std::move(o)) {}

    static Value array() { return Value(Array{}); }
    static Value object() { return Value(Object{}); }

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::Null; }
    bool is_bool() const { return kind_ == Kind::Bool; }
    bool is_int() const { return kind_ == Kind::Int; }
    bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Float; }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_array() const { return kind_ == Kind::Array; }
    bool is_object() const { return kind_ == Kind::Object; }

    bool boolean() const { expect(Kind::Bool, "a boolean"); return bool_; }
    // An integer; a float with an integral value is accepted too (scores may come as 1.0).
    long long integer() const {
        if (kind_ == Kind::Int) return int_;
        if (kind_ == Kind::Float && std::floor(float_) == float_ && std::fabs(float_) < 9.2e18) {
            return static_cast<long long>(float_);
        }
        throw Error("JSON value is not an integer");
    }
    double number() const {
        if (kind_ == Kind::Int) return static_cast<double>(int_);
        expect(Kind::Float, "a number");
        return float_;
    }
    const std::string& str() const { expect(Kind::String, "a string"); return string_; }
    const Array& items() const { expect(Kind::Array, "an array"); return array_; }
    const Object& members() const { expect(Kind::Object, "an object"); return object_; }

    // Number of array items or object members (0 for anything else).
    std::size_t size() const {
        if (kind_ == Kind::Array) return array_.size();
        if (kind_ == Kind::Object) return object_.size();
        return 0;
    }
    const Value& operator[](std::size_t index) const {
        expect(Kind::Array, "an array");
        if (index >= array_.size()) throw Error("JSON array index out of range");
        return array_[index];
    }
    const Value& operator[](int index) const { return (*this)[static_cast<std::size_t>(index)]; }
    // The member called ``key``, or null when there is none (or this is not an object).
    const Value& get(const std::string& key) const {
        if (kind_ == Kind::Object) {
            for (const auto& member : object_) {
                if (member.first == key) return member.second;
            }
        }
        return null_value();
    }
    const Value& operator[](const std::string& key) const { return get(key); }
    const Value& operator[](const char* key) const { return get(key); }
    bool has(const std::string& key) const {
        if (kind_ != Kind::Object) return false;
        for (const auto& member : object_) {
            if (member.first == key) return true;
        }
        return false;
    }

    // Builders for replies.
    Value& push(Value item) { expect(Kind::Array, "an array"); array_.push_back(std::move(item)); return *this; }
    Value& set(const std::string& key, Value item) {
        expect(Kind::Object, "an object");
        for (auto& member : object_) {
            if (member.first == key) { member.second = std::move(item); return *this; }
        }
        object_.emplace_back(key, std::move(item));
        return *this;
    }

    bool operator==(const Value& other) const {
        if (is_number() && other.is_number()) {
            if (kind_ == Kind::Int && other.kind_ == Kind::Int) return int_ == other.int_;
            return number() == other.number();
        }
        if (kind_ != other.kind_) return false;
        switch (kind_) {
            case Kind::Null: return true;
            case Kind::Bool: return bool_ == other.bool_;
            case Kind::String: return string_ == other.string_;
            case Kind::Array: return array_ == other.array_;
            case Kind::Object: {
                if (object_.size() != other.object_.size()) return false;
                for (const auto& member : object_) {
                    if (!other.has(member.first) || !(other.get(member.first) == member.second)) return false;
                }
                return true;
            }
            default: return false;
        }
    }
    bool operator!=(const Value& other) const { return !(*this == other); }

    // Compact JSON on one line (no spaces), UTF-8, integers written as integers.
    std::string dump() const {
        std::string out;
        write(out);
        return out;
    }

private:
    Kind kind_ = Kind::Null;
    bool bool_ = false;
    long long int_ = 0;
    double float_ = 0.0;
    std::string string_;
    Array array_;
    Object object_;

    static const Value& null_value() {
        static const Value null;
        return null;
    }
    void expect(Kind kind, const char* what) const {
        if (kind_ != kind) throw Error(std::string("JSON value is not ") + what);
    }

    static void write_string(std::string& out, const std::string& text) {
        out += '"';
        for (unsigned char c : text) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                default:
                    if (c < 0x20) {
                        char buffer[8];
                        std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
                        out += buffer;
                    } else {
                        out += static_cast<char>(c);  // UTF-8 bytes pass through unchanged
                    }
            }
        }
        out += '"';
    }

    void write(std::string& out) const {
        switch (kind_) {
            case Kind::Null: out += "null"; break;
            case Kind::Bool: out += bool_ ? "true" : "false"; break;
            case Kind::Int: out += std::to_string(int_); break;
            case Kind::Float: {
                if (!std::isfinite(float_)) { out += "null"; break; }  // JSON has no NaN or infinity
                char buffer[32];
                std::snprintf(buffer, sizeof buffer, "%.17g", float_);
                std::string text = buffer;
                if (text.find_first_of(".eE") == std::string::npos) text += ".0";
                out += text;
                break;
            }
            case Kind::String: write_string(out, string_); break;
            case Kind::Array: {
                out += '[';
                for (std::size_t i = 0; i < array_.size(); ++i) {
                    if (i) out += ',';
                    array_[i].write(out);
                }
                out += ']';
                break;
            }
            case Kind::Object: {
                out += '{';
                for (std::size_t i = 0; i < object_.size(); ++i) {
                    if (i) out += ',';
                    write_string(out, object_[i].first);
                    out += ':';
                    object_[i].second.write(out);
                }
                out += '}';
                break;
            }
        }
    }

    friend class Parser;
};

class Parser {
public:
    explicit Parser(const std::string& text) : text_(text) {}

    Value parse_document() {
        Value value = parse_value(0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected text after the JSON value");
        return value;
    }

private:
    const std::string& text_;
    std::size_t pos_ = 0;
    static constexpr int kMaxDepth = 512;

    [[noreturn]] void fail(const std::string& why) const {
        throw Error("bad JSON at byte " + std::to_string(pos_) + ": " + why);
    }
    void skip_space() {
        while (pos_ < text_.size()) {
            char c = text_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') ++pos_; else break;
        }
    }
    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    bool literal(const char* word) {
        std::size_t n = std::char_traits<char>::length(word);
        if (text_.compare(pos_, n, word) == 0) { pos_ += n; return true; }
        return false;
    }

    Value parse_value(int depth) {
        if (depth > kMaxDepth) fail("nested too deeply");
        skip_space();
        if (pos_ >= text_.size()) fail("unexpected end of input");
        char c = text_[pos_];
        if (c == '{') return parse_object(depth);
        if (c == '[') return parse_array(depth);
        if (c == '"') return Value(parse_string());
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
        if (literal("true")) return Value(true);
        if (literal("false")) return Value(false);
        if (literal("null")) return Value();
        fail(std::string("unexpected character '") + c + "'");
    }

    Value parse_object(int depth) {
        ++pos_;  // {
        Value::Object members;
        skip_space();
        if (peek() == '}') { ++pos_; return Value(std::move(members)); }
        while (true) {
            skip_space();
            if (peek() != '"') fail("expected a string key");
            std::string key = parse_string();
            skip_space();
            if (peek() != ':') fail("expected ':'");
            ++pos_;
            Value item = parse_value(depth + 1);
            bool replaced = false;  // a repeated key: the last one wins, as in most parsers
            for (auto& member : members) {
                if (member.first == key) { member.second = std::move(item); replaced = true; break; }
            }
            if (!replaced) members.emplace_back(std::move(key), std::move(item));
            skip_space();
            if (peek() == ',') { ++pos_; continue; }
            if (peek() == '}') { ++pos_; return Value(std::move(members)); }
            fail("expected ',' or '}'");
        }
    }

    Value parse_array(int depth) {
        ++pos_;  // [
        Value::Array items;
        skip_space();
        if (peek() == ']') { ++pos_; return Value(std::move(items)); }
        while (true) {
            items.push_back(parse_value(depth + 1));
            skip_space();
            if (peek() == ',') { ++pos_; continue; }
            if (peek() == ']') { ++pos_; return Value(std::move(items)); }
            fail("expected ',' or ']'");
        }
    }

    unsigned hex4() {
        if (pos_ + 4 > text_.size()) fail("short \\u escape");
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
            char c = text_[pos_++];
            code <<= 4;
            if (c >= '0' && c <= '9') code |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') code |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') code |= static_cast<unsigned>(c - 'A' + 10);
            else fail("bad hex digit in \\u escape");
        }
        return code;
    }

    static void append_utf8(std::string& out, unsigned code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string parse_string() {
        ++pos_;  // opening quote
        std::string out;
        while (true) {
            if (pos_ >= text_.size()) fail("unterminated string");
            char c = text_[pos_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') { out += c; continue; }
            if (pos_ >= text_.size()) fail("unterminated escape");
            char e = text_[pos_++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned code = hex4();
                    if (code >= 0xD800 && code <= 0xDBFF) {  // a high surrogate: expect the low one
                        if (pos_ + 6 <= text_.size() && text_[pos_] == '\\' && text_[pos_ + 1] == 'u') {
                            std::size_t save = pos_;
                            pos_ += 2;
                            unsigned low = hex4();
                            if (low >= 0xDC00 && low <= 0xDFFF) {
                                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                            } else {
                                pos_ = save;  // not a pair: keep the lone surrogate as U+FFFD
                                code = 0xFFFD;
                            }
                        } else {
                            code = 0xFFFD;
                        }
                    } else if (code >= 0xDC00 && code <= 0xDFFF) {
                        code = 0xFFFD;  // a lone low surrogate
                    }
                    append_utf8(out, code);
                    break;
                }
                default: fail(std::string("bad escape '\\") + e + "'");
            }
        }
    }

    Value parse_number() {
        std::size_t start = pos_;
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
        } else if (peek() >= '1' && peek() <= '9') {
            while (peek() >= '0' && peek() <= '9') ++pos_;
        } else {
            fail("bad number");
        }
        bool integral = true;
        if (peek() == '.') {
            integral = false;
            ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) fail("bad number: digits expected after '.'");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!(peek() >= '0' && peek() <= '9')) fail("bad number: digits expected in the exponent");
            while (peek() >= '0' && peek() <= '9') ++pos_;
        }
        std::string token = text_.substr(start, pos_ - start);
        if (integral) {
            errno = 0;
            char* end = nullptr;
            long long value = std::strtoll(token.c_str(), &end, 10);
            if (errno == 0 && end && *end == '\0') return Value(value);
            // Too large for 64 bits: keep it as a float, like most JSON readers.
        }
        return Value(std::strtod(token.c_str(), nullptr));
    }
};

inline Value parse(const std::string& text) { return Parser(text).parse_document(); }

}  // namespace json
