#include "ss_avahi.h"

#include <arpa/inet.h>
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/thread-watch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ss_announcer {
    AvahiThreadedPoll *poll;
    AvahiClient *client;
    AvahiEntryGroup *group;
    char *host;       // the label in use, without ".local"
    char *addresses;  // comma-separated
    char *service_name;
    char *service_type;
    uint16_t port;
    ss_announce_callback callback;
    void *context;
};

static void tell(ss_announcer *a, int state, const char *name) {
    if (a->callback) a->callback(a->context, state, name);
}

static void publish(ss_announcer *a);

static void next_name(ss_announcer *a) {
    char *next = avahi_alternative_host_name(a->host);
    avahi_free(a->host);
    a->host = next;
    char *service = avahi_alternative_service_name(a->service_name);
    avahi_free(a->service_name);
    a->service_name = service;
}

// The name the page is announced under: the station's own, or the machine's when it has no addresses
// of its own to announce (its label is the machine's host name, which avahi-daemon announces already).
static void announced_name(ss_announcer *a, char *name, size_t size) {
    const char *own = a->client ? avahi_client_get_host_name_fqdn(a->client) : NULL;
    if (a->addresses[0] == 0 && own)
        snprintf(name, size, "%s", own);
    else
        snprintf(name, size, "%s.local", a->host);
}

static void group_callback(AvahiEntryGroup *group, AvahiEntryGroupState state, void *userdata) {
    ss_announcer *a = userdata;
    char name[300];
    announced_name(a, name, sizeof name);
    switch (state) {
    case AVAHI_ENTRY_GROUP_ESTABLISHED:
        tell(a, SS_ANNOUNCE_ESTABLISHED, name);
        break;
    case AVAHI_ENTRY_GROUP_COLLISION:
        // Another device has the name: the next one ("kitchen-2"), as avahi's own tools do.
        tell(a, SS_ANNOUNCE_COLLISION, name);
        next_name(a);
        publish(a);
        break;
    case AVAHI_ENTRY_GROUP_FAILURE:
        tell(a, SS_ANNOUNCE_FAILED, avahi_strerror(avahi_client_errno(avahi_entry_group_get_client(group))));
        break;
    default:
        break;
    }
}

// (Re)publishes the host name's addresses and the service, on the poll's thread or under its lock.
static void publish(ss_announcer *a) {
    if (!a->client || avahi_client_get_state(a->client) != AVAHI_CLIENT_S_RUNNING) return;
    if (!a->group) a->group = avahi_entry_group_new(a->client, group_callback, a);
    if (!a->group) {
        tell(a, SS_ANNOUNCE_FAILED, avahi_strerror(avahi_client_errno(a->client)));
        return;
    }
    avahi_entry_group_reset(a->group);
    char fqdn[300];
    snprintf(fqdn, sizeof fqdn, "%s.local", a->host);
    int added = 0;
    char *list = strdup(a->addresses ? a->addresses : "");
    for (char *save = NULL, *text = strtok_r(list, ",", &save); text; text = strtok_r(NULL, ",", &save)) {
        AvahiAddress address;
        if (!avahi_address_parse(text, AVAHI_PROTO_UNSPEC, &address)) continue;
        // NO_REVERSE: the machine's own name keeps the address's reverse (PTR) record.
        int error = avahi_entry_group_add_address(a->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC,
                                                  AVAHI_PUBLISH_NO_REVERSE, fqdn, &address);
        if (error == AVAHI_ERR_COLLISION) {
            free(list);
            tell(a, SS_ANNOUNCE_COLLISION, fqdn);
            next_name(a);
            publish(a);
            return;
        }
        if (error == 0) added++;
    }
    free(list);
    int own_host = a->addresses[0] == 0;
    if (added == 0 && !own_host) return;  // no address yet: the next refresh publishes
    if (a->port) {
        // On the machine's own name (host NULL) when the station has no name of its own to announce.
        int error = avahi_entry_group_add_service(a->group, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC, 0, a->service_name,
                                                  a->service_type, NULL, own_host ? NULL : fqdn, a->port,
                                                  "path=/pair", NULL);
        if (error == AVAHI_ERR_COLLISION) {
            tell(a, SS_ANNOUNCE_COLLISION, fqdn);
            next_name(a);
            publish(a);
            return;
        }
    }
    int error = avahi_entry_group_commit(a->group);
    if (error < 0) tell(a, SS_ANNOUNCE_FAILED, avahi_strerror(error));
}

static void client_callback(AvahiClient *client, AvahiClientState state, void *userdata) {
    ss_announcer *a = userdata;
    a->client = client;
    switch (state) {
    case AVAHI_CLIENT_S_RUNNING:
        publish(a);
        break;
    case AVAHI_CLIENT_S_COLLISION:
    case AVAHI_CLIENT_S_REGISTERING:
        if (a->group) avahi_entry_group_reset(a->group);
        break;
    case AVAHI_CLIENT_CONNECTING:
        tell(a, SS_ANNOUNCE_NO_DAEMON, "avahi-daemon is not running");
        break;
    case AVAHI_CLIENT_FAILURE:
        if (avahi_client_errno(client) == AVAHI_ERR_DISCONNECTED) {
            // avahi-daemon went away (an upgrade, a crash): wait for the next one, as avahi-publish does.
            tell(a, SS_ANNOUNCE_NO_DAEMON, "avahi-daemon stopped");
            avahi_client_free(client);
            a->client = NULL;
            a->group = NULL;  // freed with its client
            int error = 0;
            a->client = avahi_client_new(avahi_threaded_poll_get(a->poll), AVAHI_CLIENT_NO_FAIL, client_callback, a,
                                         &error);
            if (!a->client) tell(a, SS_ANNOUNCE_FAILED, avahi_strerror(error));
            break;
        }
        tell(a, SS_ANNOUNCE_FAILED, avahi_strerror(avahi_client_errno(client)));
        break;
    }
}

ss_announcer *ss_announce_start(const char *host, const char *addresses, const char *service_name,
                                const char *service_type, uint16_t port, ss_announce_callback callback,
                                void *context) {
    ss_announcer *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->host = avahi_strdup(host);
    a->addresses = strdup(addresses ? addresses : "");
    a->service_name = avahi_strdup(service_name);
    a->service_type = strdup(service_type);
    a->port = port;
    a->callback = callback;
    a->context = context;
    a->poll = avahi_threaded_poll_new();
    if (!a->poll) {
        ss_announce_stop(a);
        return NULL;
    }
    int error = 0;
    // NO_FAIL: without a daemon the client waits for one instead of failing.
    avahi_threaded_poll_lock(a->poll);
    a->client = avahi_client_new(avahi_threaded_poll_get(a->poll), AVAHI_CLIENT_NO_FAIL, client_callback, a, &error);
    avahi_threaded_poll_unlock(a->poll);
    if (!a->client || avahi_threaded_poll_start(a->poll) < 0) {
        ss_announce_stop(a);
        return NULL;
    }
    return a;
}

void ss_announce_addresses(ss_announcer *a, const char *addresses) {
    avahi_threaded_poll_lock(a->poll);
    free(a->addresses);
    a->addresses = strdup(addresses ? addresses : "");
    publish(a);
    avahi_threaded_poll_unlock(a->poll);
}

void ss_announce_stop(ss_announcer *a) {
    if (!a) return;
    if (a->poll) avahi_threaded_poll_stop(a->poll);
    if (a->client) avahi_client_free(a->client);  // frees its groups too
    if (a->poll) avahi_threaded_poll_free(a->poll);
    avahi_free(a->host);
    avahi_free(a->service_name);
    free(a->addresses);
    free(a->service_type);
    free(a);
}
