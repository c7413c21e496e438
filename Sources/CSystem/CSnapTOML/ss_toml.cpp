// See ss_toml.h for why this shim exists.
#include "ss_toml.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace {

// A key of more parts than this, or values nested deeper, is refused before toml++ builds the tree: a
// dotted key of 15,000 parts made a tree so deep that walking it (and freeing it) overflowed the stack.
constexpr uint32_t max_depth = SS_TOML_MAX_DEPTH;

// The line of the first key with more than `max_depth` parts, or 0. A lexical pass over the text that
// knows where strings and comments are, so dots inside them do not count; it looks only at keys: the
// part of a line before its `=`, and table headers.
uint32_t first_deep_key(std::string_view text) {
    uint32_t line = 1, dots = 0;
    bool in_key = true;  // at the start of a line, until `=` (a header's `]` ends it too)
    size_t i = 0;
    auto skip_string = [&](char quote) {
        bool multi = text.substr(i, 3) == std::string(3, quote);
        i += multi ? 3 : 1;
        while (i < text.size()) {
            char c = text[i];
            if (c == '\n') {
                if (!multi) return;  // an unterminated string: toml++ will report it
                line++;
            }
            if (quote == '"' && c == '\\') {
                i += 2;
                continue;
            }
            if (multi ? text.substr(i, 3) == std::string(3, quote) : c == quote) {
                i += multi ? 3 : 1;
                return;
            }
            i++;
        }
    };
    while (i < text.size()) {
        char c = text[i];
        if (c == '\n') {
            line++;
            dots = 0;
            in_key = true;
            i++;
        } else if (c == '#') {
            while (i < text.size() && text[i] != '\n') i++;
        } else if (c == '"' || c == '\'') {
            skip_string(c);
        } else {
            if (in_key && c == '.' && ++dots > max_depth) return line;
            if (c == '=' || c == ']') in_key = false;
            i++;
        }
    }
    return 0;
}

// toml++'s descriptions can run over several lines; check-config prints one line per problem.
std::string one_line(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\r') continue;
        if (c == '\n') {
            if (!out.empty() && out.back() != ' ') out += "; ";
            continue;
        }
        out += c;
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
    return out;
}

struct Walker {
    void *context;
    ss_toml_visitor visit;

    void emit(uint32_t depth, const char *key, const toml::node &node) {
        ss_toml_node out{};
        out.depth = depth;
        out.key = key;
        out.line = node.source().begin.line;
        out.column = node.source().begin.column;
        std::string text;
        switch (node.type()) {
        case toml::node_type::table:
            out.kind = SS_TOML_TABLE;
            break;
        case toml::node_type::array:
            out.kind = SS_TOML_ARRAY;
            break;
        case toml::node_type::string:
            out.kind = SS_TOML_STRING;
            text = *node.value<std::string>();
            break;
        case toml::node_type::integer:
            out.kind = SS_TOML_INTEGER;
            out.integer = *node.value<int64_t>();
            text = std::to_string(out.integer);
            break;
        case toml::node_type::floating_point:
            out.kind = SS_TOML_FLOAT;
            out.floating = *node.value<double>();
            text = render(node);
            break;
        case toml::node_type::boolean:
            out.kind = SS_TOML_BOOLEAN;
            out.boolean = *node.value<bool>();
            text = out.boolean ? "true" : "false";
            break;
        case toml::node_type::date:
            out.kind = SS_TOML_DATE;
            text = render(node);
            break;
        case toml::node_type::time:
            out.kind = SS_TOML_TIME;
            text = render(node);
            break;
        default:
            out.kind = SS_TOML_DATE_TIME;
            text = render(node);
            break;
        }
        out.text = text.c_str();
        visit(context, &out);
    }

    // Pre-order over the tree with an explicit stack: no recursion, whatever the depth.
    void walk(const toml::table &root) {
        struct Frame {
            uint32_t depth;
            std::string key;
            bool keyed;
            const toml::node *node;
        };
        std::vector<Frame> stack;
        auto push_children = [&](uint32_t depth, const toml::node &node) {
            std::vector<Frame> children;
            if (auto *table = node.as_table()) {
                for (auto &&[key, child] : *table) children.push_back({depth, std::string(key.str()), true, &child});
            } else if (auto *array = node.as_array()) {
                for (auto &&child : *array) children.push_back({depth, {}, false, &child});
            }
            // Reversed onto the stack, so the first child is visited first.
            stack.insert(stack.end(), children.rbegin(), children.rend());
        };
        push_children(1, root);
        while (!stack.empty()) {
            Frame frame = std::move(stack.back());
            stack.pop_back();
            emit(frame.depth, frame.keyed ? frame.key.c_str() : nullptr, *frame.node);
            push_children(frame.depth + 1, *frame.node);
        }
    }

    static std::string render(const toml::node &node) {
        std::ostringstream stream;
        node.visit([&](auto &&value) { stream << value; });
        return stream.str();
    }
};

}  // namespace

extern "C" bool ss_toml_parse(const char *text, size_t length, void *context, ss_toml_visitor visit,
                              ss_toml_error *error) {
    std::string_view source(text, length);
    if (uint32_t line = first_deep_key(source)) {
        std::snprintf(error->message, sizeof error->message, "a key of more than %u dotted parts", max_depth);
        error->line = line;
        error->column = 1;
        return false;
    }
    try {
        toml::table root = toml::parse(source);
        Walker{context, visit}.walk(root);
        return true;
    } catch (const toml::parse_error &failure) {
        std::string message = one_line(failure.description());
        std::snprintf(error->message, sizeof error->message, "%s", message.c_str());
        error->line = failure.source().begin.line;
        error->column = failure.source().begin.column;
        return false;
    } catch (const std::exception &failure) {
        std::snprintf(error->message, sizeof error->message, "%s", one_line(failure.what()).c_str());
        error->line = 0;
        error->column = 0;
        return false;
    }
}
