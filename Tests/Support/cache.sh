# Sourced: optional caches outside the clone for the pieces that do not change with the code (a kernel
# and its out-of-tree modules, a chroot, a sysroot). Compiled objects of the project are never cached:
# they stay in the clone.
#
# SNAPSTATION_CACHE names a folder (CI may keep it between runs); unset or empty, nothing is cached and
# every piece is made in the clone as before. A piece is kept as SNAPSTATION_CACHE/NAME-HASH, HASH the
# start of the SHA-256 of its KEY: a text naming everything it was made from (package versions, the
# recipe's own hash), so a change to any of them makes a new piece and never reuses a stale one. A piece
# is copied in under a temporary name and renamed into place (a rename in one folder is atomic), so a run
# stopped half way leaves nothing that looks complete; its `.cache-key` file holds the KEY and is checked
# on use, with a file the piece must hold; on a mismatch the piece is removed and made again.

cache_enabled() { [[ -n ${SNAPSTATION_CACHE:-} ]]; }

cache_folder() {  # NAME KEY
    echo "$SNAPSTATION_CACHE/$1-$(printf %s "$2" | sha256sum | cut -c1-16)"
}

# Prints the folder of the complete piece NAME made from KEY, holding the file MUST (a path inside it);
# fails when there is none. A piece whose key or file does not match is removed.
cache_get() {  # NAME KEY MUST
    cache_enabled || return 1
    local folder
    folder=$(cache_folder "$1" "$2")
    [[ -d $folder ]] || return 1
    if [[ "$(cat "$folder/.cache-key" 2>/dev/null)" == "$2" && -e $folder/$3 ]]; then
        echo "$folder"
        return 0
    fi
    echo "   cache: $folder does not match its key or lacks $3; made again" >&2
    rm -rf "$folder"
    return 1
}

# Prints an empty folder in the cache, under a temporary name, to make the piece NAME from KEY in (a piece
# too big to copy, or one that must be made where it will lie); cache_commit then renames it into place.
cache_begin() {  # NAME KEY
    local temporary
    temporary="$SNAPSTATION_CACHE/.$(basename "$(cache_folder "$1" "$2")").partial.$$"
    mkdir -p "$SNAPSTATION_CACHE"
    rm -rf "$temporary"
    mkdir "$temporary"
    echo "$temporary"
}

# Renames the folder TEMPORARY (from cache_begin) into place as the piece NAME made from KEY, with its key
# written last; prints the piece's folder.
cache_commit() {  # NAME KEY TEMPORARY
    local folder
    folder=$(cache_folder "$1" "$2")
    printf %s "$2" > "$3/.cache-key"
    rm -rf "$folder"
    mv "$3" "$folder"
    echo "$folder"
}

# Sets cache_kept to the folder of the piece NAME made from KEY (holding MUST): the kept one, or one made
# now by COMMAND… FOLDER in place under a temporary name and then renamed. Called as a command, not in
# $(…): a command substitution runs without errexit, and a failing step of COMMAND must stop it.
cache_make() {  # NAME KEY MUST COMMAND…
    local name=$1 key=$2 must=$3 temporary
    shift 3
    if cache_kept=$(cache_get "$name" "$key" "$must"); then return 0; fi
    temporary=$(cache_begin "$name" "$key")
    "$@" "$temporary"
    cache_kept=$(cache_commit "$name" "$key" "$temporary")
}

# Keeps the folder DIR as the piece NAME made from KEY: copied under a temporary name, then renamed.
# Prints the piece's folder. Does nothing (prints DIR) when caching is off.
cache_put() {  # NAME KEY DIR
    if ! cache_enabled; then echo "$3"; return 0; fi
    local temporary
    temporary=$(cache_begin "$1" "$2")
    rmdir "$temporary"
    cp -a "$3" "$temporary"
    cache_commit "$1" "$2" "$temporary"
}

# The SHA-256 (its start) of the lines of FILE from the line matching FROM to the one matching TO: the
# part of a recipe that makes a piece, for its key (an edit elsewhere in the script keeps the piece).
recipe_hash() {  # FILE FROM TO
    sed -n "/$2/,/$3/p" "$1" | sha256sum | cut -c1-16
}
