#ifndef SNAP_SPAWN_H
#define SNAP_SPAWN_H

#include <spawn.h>

/// Adds "close every descriptor from `from` up" to `actions`: glibc 2.34's
/// posix_spawn_file_actions_addclosefrom_np, a GNU extension Swift's Glibc module does not import.
/// 0, or an errno value.
int snap_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
