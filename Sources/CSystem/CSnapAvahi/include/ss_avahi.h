// The station's announcement on the local network over avahi-daemon (libavahi-client, its D-Bus API): a
// host name of its own ("kitchen.local") with the station's addresses, and its page as an HTTP service.
// Avahi's threaded poll runs the client on a thread of its own; `state` is called from that thread.
#pragma once
#include <stdint.h>

typedef struct ss_announcer ss_announcer;

enum ss_announce_state {
    SS_ANNOUNCE_ESTABLISHED = 1,  // the records are on the network under `name`
    SS_ANNOUNCE_COLLISION = 2,    // `name` was taken: trying the next one
    SS_ANNOUNCE_FAILED = 3,       // `name` is what went wrong
    SS_ANNOUNCE_NO_DAEMON = 4,    // avahi-daemon is not running (it may come later: the client waits for it)
};

typedef void (*ss_announce_callback)(void *context, int state, const char *name);

// Starts announcing `host` (a label, without ".local") with the addresses in `addresses` (a
// comma-separated list of IPv4/IPv6 addresses) and, when `port` is not 0, a service `service_type`
// ("_http._tcp") named `service_name` on that host and port with TXT "path=/pair". NULL when avahi's poll
// cannot start at all.
ss_announcer *ss_announce_start(const char *host, const char *addresses, const char *service_name,
                                const char *service_type, uint16_t port, ss_announce_callback callback,
                                void *context);

// Announces these addresses instead (after the network changed).
void ss_announce_addresses(ss_announcer *announcer, const char *addresses);

// Withdraws everything and stops.
void ss_announce_stop(ss_announcer *announcer);
