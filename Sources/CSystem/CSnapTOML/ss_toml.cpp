// See ss_toml.h for why this shim exists.
#include "ss_toml.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

#include <toml++/toml.h>

namespace {

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

        if (auto *table = node.as_table()) {
            for (auto &&[childKey, child] : *table) {
                std::string name(childKey.str());
                emit(depth + 1, name.c_str(), child);
            }
        } else if (auto *array = node.as_array()) {
            for (auto &&child : *array) {
                emit(depth + 1, nullptr, child);
            }
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
    try {
        toml::table root = toml::parse(std::string_view(text, length));
        Walker walker{context, visit};
        for (auto &&[key, child] : root) {
            std::string name(key.str());
            walker.emit(1, name.c_str(), child);
        }
        return true;
    } catch (const toml::parse_error &failure) {
        std::snprintf(error->message, sizeof error->message, "%.*s", static_cast<int>(failure.description().size()),
                      failure.description().data());
        error->line = failure.source().begin.line;
        error->column = failure.source().begin.column;
        return false;
    } catch (const std::exception &failure) {
        std::snprintf(error->message, sizeof error->message, "%s", failure.what());
        error->line = 0;
        error->column = 0;
        return false;
    }
}
