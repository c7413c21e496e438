// ss_toml: a C view of toml++ for Swift.
//
// Why this shim exists: toml++ is a C++ library, and the station's `check-config` needs the line and
// column of every key, which toml++ keeps on each node (`node::source()`). The shim parses a document and
// walks it once, in document order, handing each node to a callback; Swift builds its own tree from that.
#ifndef SS_TOML_H
#define SS_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The kind of one TOML node.
typedef enum ss_toml_kind {
    SS_TOML_TABLE = 0,
    SS_TOML_ARRAY,
    SS_TOML_STRING,
    SS_TOML_INTEGER,
    SS_TOML_FLOAT,
    SS_TOML_BOOLEAN,
    SS_TOML_DATE,
    SS_TOML_TIME,
    SS_TOML_DATE_TIME,
} ss_toml_kind;

/// One node, visited in pre-order. `depth` is 1 for the root table's children; a container's children
/// follow it with `depth + 1`. `key` is NULL for an array element.
typedef struct ss_toml_node {
    uint32_t depth;
    const char *key;
    ss_toml_kind kind;
    /// The value as text: the string itself, or toml++'s rendering of a number, boolean or date.
    const char *text;
    int64_t integer;
    double floating;
    bool boolean;
    uint32_t line;
    uint32_t column;
} ss_toml_node;

/// Called once per node. `context` is the pointer given to `ss_toml_parse`.
typedef void (*ss_toml_visitor)(void *context, const ss_toml_node *node);

/// A syntax error: toml++'s description and where it starts.
typedef struct ss_toml_error {
    char message[512];
    uint32_t line;
    uint32_t column;
} ss_toml_error;

/// The most parts a dotted key may have (and so the deepest tables it makes); a deeper key is a syntax
/// error on its line, found before toml++ builds anything.
#define SS_TOML_MAX_DEPTH 32

/// Parses `length` bytes of TOML. Returns true and visits every node, or returns false and fills `error`
/// (`message` is one line).
bool ss_toml_parse(const char *text, size_t length, void *context, ss_toml_visitor visit, ss_toml_error *error);

#ifdef __cplusplus
}
#endif

#endif
