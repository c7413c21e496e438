// ss_display's DRM/KMS output: find a connected display, two dumb buffers, page flips on vblank.
// The zero-copy preview planes are in ss_drm_planes.c, the Linux framebuffer in ss_fbdev.c.
#include "ss_drm_internal.h"

#include <dirent.h>
#include <drm_fourcc.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

static uint32_t refresh_mhz(const drmModeModeInfo *mode) {
    if (!mode->htotal || !mode->vtotal) return mode->vrefresh * 1000u;
    uint64_t rate = (uint64_t)mode->clock * 1000000u / ((uint64_t)mode->htotal * mode->vtotal);
    if (mode->flags & DRM_MODE_FLAG_INTERLACE) rate *= 2;
    if (mode->flags & DRM_MODE_FLAG_DBLSCAN) rate /= 2;
    return (uint32_t)rate;
}

static void connector_name(const drmModeConnector *connector, char *name, size_t size) {
    const char *type = drmModeGetConnectorTypeName(connector->connector_type);
    snprintf(name, size, "%s-%u", type ? type : "Unknown", connector->connector_type_id);
}

static const drmModeModeInfo *choose_mode(const drmModeConnector *connector, uint32_t width, uint32_t height) {
    const drmModeModeInfo *chosen = NULL;
    for (int i = 0; i < connector->count_modes; i++) {
        const drmModeModeInfo *mode = &connector->modes[i];
        if (width && height) {
            if (mode->hdisplay == width && mode->vdisplay == height &&
                (!chosen || refresh_mhz(mode) > refresh_mhz(chosen)))
                chosen = mode;
        } else if (mode->type & DRM_MODE_TYPE_PREFERRED) {
            return mode;
        }
    }
    if (!chosen && !(width && height) && connector->count_modes > 0) chosen = &connector->modes[0];
    return chosen;
}

// The CRTC the connector's encoder drives now, or the first free one one of its encoders can reach.
static uint32_t choose_crtc(int fd, const drmModeRes *resources, const drmModeConnector *connector) {
    if (connector->encoder_id) {
        drmModeEncoder *encoder = drmModeGetEncoder(fd, connector->encoder_id);
        if (encoder) {
            uint32_t crtc = encoder->crtc_id;
            drmModeFreeEncoder(encoder);
            if (crtc) return crtc;
        }
    }
    for (int e = 0; e < connector->count_encoders; e++) {
        drmModeEncoder *encoder = drmModeGetEncoder(fd, connector->encoders[e]);
        if (!encoder) continue;
        for (int c = 0; c < resources->count_crtcs; c++) {
            if (encoder->possible_crtcs & (1u << c)) {
                uint32_t crtc = resources->crtcs[c];
                drmModeFreeEncoder(encoder);
                return crtc;
            }
        }
        drmModeFreeEncoder(encoder);
    }
    return 0;
}

void ss_drm_free_buffer(int fd, ss_drm_buffer *buffer) {
    if (buffer->memory) munmap(buffer->memory, buffer->size);
    if (buffer->framebuffer) drmModeRmFB(fd, buffer->framebuffer);
    if (buffer->handle) {
        struct drm_mode_destroy_dumb destroy = {.handle = buffer->handle};
        drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
    }
    memset(buffer, 0, sizeof *buffer);
}

int ss_drm_create_buffer(int fd, uint32_t width, uint32_t height, uint32_t format, ss_drm_buffer *buffer) {
    struct drm_mode_create_dumb create = {.width = width, .height = height, .bpp = 32};
    if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0) return negative_errno();
    buffer->handle = create.handle;
    buffer->stride = create.pitch;
    buffer->size = create.size;
    uint32_t handles[4] = {create.handle}, pitches[4] = {create.pitch}, offsets[4] = {0};
    if (drmModeAddFB2(fd, width, height, format, handles, pitches, offsets, &buffer->framebuffer, 0) <
        0) {
        int result = negative_errno();
        ss_drm_free_buffer(fd, buffer);
        return result;
    }
    struct drm_mode_map_dumb map = {.handle = create.handle};
    if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0) {
        int result = negative_errno();
        ss_drm_free_buffer(fd, buffer);
        return result;
    }
    void *memory = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map.offset);
    if (memory == MAP_FAILED) {
        int result = negative_errno();
        ss_drm_free_buffer(fd, buffer);
        return result;
    }
    buffer->memory = memory;
    memset(memory, 0, create.size);
    return 0;
}

// Opens one card and finds its output; on failure the card is closed and `error` says why.
static int open_card(const char *path, const char *want_connector, uint32_t width, uint32_t height, ss_drm *drm,
                     char *error, size_t error_size) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int result = negative_errno();
        FAIL(result, "%s: %s", path, strerror(-result));
    }
    drmModeRes *resources = drmModeGetResources(fd);
    if (!resources) {
        close(fd);
        FAIL(-ENOTSUP, "%s has no display outputs (not a KMS device)", path);
    }
    int result = -ENODEV;
    drmModeConnector *chosen = NULL;
    for (int i = 0; i < resources->count_connectors && !chosen; i++) {
        drmModeConnector *connector = drmModeGetConnector(fd, resources->connectors[i]);
        if (!connector) continue;
        char name[32];
        connector_name(connector, name, sizeof name);
        bool named = want_connector && want_connector[0];
        if ((named && strcmp(name, want_connector) == 0) ||
            (!named && connector->connection == DRM_MODE_CONNECTED && connector->count_modes > 0))
            chosen = connector;
        else drmModeFreeConnector(connector);
    }
    if (!chosen) {
        drmModeFreeResources(resources);
        close(fd);
        if (want_connector && want_connector[0]) FAIL(-ENODEV, "%s has no connector called %s", path, want_connector);
        FAIL(-ENODEV, "%s has no connected display", path);
    }
    const drmModeModeInfo *mode = choose_mode(chosen, width, height);
    uint32_t crtc = choose_crtc(fd, resources, chosen);
    connector_name(chosen, drm->info.connector, sizeof drm->info.connector);
    if (!mode) {
        snprintf(error, error_size, "%s %s has no %ux%u mode", path, drm->info.connector, width, height);
    } else if (!crtc) {
        snprintf(error, error_size, "%s %s has no free CRTC", path, drm->info.connector);
    } else {
        result = 0;
        drm->mode = *mode;
        drm->crtc_id = crtc;
        for (int c = 0; c < resources->count_crtcs; c++)
            if (resources->crtcs[c] == crtc) drm->crtc_index = (uint32_t)c;
        drm->connector_id = chosen->connector_id;
    }
    drmModeFreeConnector(chosen);
    drmModeFreeResources(resources);
    if (result < 0) {
        close(fd);
        return result;
    }
    // Only the DRM master may set modes. Another process (a desktop, a second station) holding it is the
    // usual reason a kiosk shows nothing: say so instead of failing later at the first flip.
    if (!drmIsMaster(fd) && drmSetMaster(fd) < 0) {
        close(fd);
        FAIL(-EBUSY, "%s: another process holds DRM master (a desktop session, or another snapstation?)", path);
    }
    drm->fd = fd;
    snprintf(drm->info.card, sizeof drm->info.card, "%s", path);
    drmVersionPtr version = drmGetVersion(fd);
    snprintf(drm->info.driver, sizeof drm->info.driver, "%s", version && version->name ? version->name : "?");
    if (version) drmFreeVersion(version);
    return 0;
}

int ss_drm_open(const char *card, const char *connector, uint32_t width, uint32_t height, ss_drm **out,
                char *error, size_t error_size) {
    ss_drm *drm = calloc(1, sizeof *drm);
    if (!drm) FAIL(-ENOMEM, "out of memory");
    drm->fd = -1;
    int result = -ENODEV;
    if (card && card[0]) {
        result = open_card(card, connector, width, height, drm, error, error_size);
    } else {
        // The first card with a connected display: on a Pi 4/5, card0 is the render-only v3d and the
        // display is card1; in the test VM, vkms may be either.
        snprintf(error, error_size, "no card in /dev/dri has a connected display");
        for (int index = 0; index < 16 && result < 0; index++) {
            char path[32];
            snprintf(path, sizeof path, "/dev/dri/card%d", index);
            if (access(path, F_OK) != 0) continue;
            char reason[200];
            int attempt = open_card(path, connector, width, height, drm, reason, sizeof reason);
            if (attempt == 0 || attempt == -EBUSY || attempt == -EACCES) {
                result = attempt;
                if (attempt < 0) snprintf(error, error_size, "%s", reason);
            }
        }
    }
    if (result < 0) {
        free(drm);
        return result;
    }
    drm->info.width = drm->mode.hdisplay;
    drm->info.height = drm->mode.vdisplay;
    drm->info.refresh_mhz = refresh_mhz(&drm->mode);
    for (int i = 0; i < 2; i++) {
        result = ss_drm_create_buffer(drm->fd, drm->info.width, drm->info.height, DRM_FORMAT_XRGB8888,
                                      &drm->buffers[i]);
        if (result < 0) {
            snprintf(error, error_size, "%s: cannot create a %ux%u buffer: %s", drm->info.card, drm->info.width,
                     drm->info.height, strerror(-result));
            ss_drm_close(drm);
            return result;
        }
    }
    drm->info.stride = drm->buffers[0].stride;
    drm->saved_crtc = drmModeGetCrtc(drm->fd, drm->crtc_id);
    drm->back = 0;
    *out = drm;
    return 0;
}

void ss_drm_info_get(ss_drm *drm, ss_drm_info *info) { *info = drm->info; }

uint8_t *ss_drm_back_buffer(ss_drm *drm) { return drm->buffers[drm->back].memory; }

static void flip_done(int fd, unsigned sequence, unsigned seconds, unsigned microseconds, void *context) {
    (void)fd, (void)sequence, (void)seconds, (void)microseconds;
    ((ss_drm *)context)->flip_pending = false;
}

int ss_drm_wait_for_flip(ss_drm *drm, int timeout_ms) {
    drmEventContext events = {.version = 2, .page_flip_handler = flip_done};
    while (drm->flip_pending) {
        struct pollfd descriptor = {.fd = drm->fd, .events = POLLIN};
        int ready = poll(&descriptor, 1, timeout_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return negative_errno();
        if (ready == 0) return -ETIMEDOUT;
        if (drmHandleEvent(drm->fd, &events) < 0) return negative_errno();
    }
    return 0;
}

int ss_drm_present(ss_drm *drm, int timeout_ms) {
    ss_drm_buffer *buffer = &drm->buffers[drm->back];
    if (!drm->shown) {
        if (drmModeSetCrtc(drm->fd, drm->crtc_id, buffer->framebuffer, 0, 0, &drm->connector_id, 1, &drm->mode) < 0)
            return negative_errno();
        drm->shown = true;
    } else {
        drm->flip_pending = true;
        if (drmModePageFlip(drm->fd, drm->crtc_id, buffer->framebuffer, DRM_MODE_PAGE_FLIP_EVENT, drm) < 0) {
            drm->flip_pending = false;
            return negative_errno();
        }
        int result = ss_drm_wait_for_flip(drm, timeout_ms);
        if (result < 0) return result;
    }
    drm->back ^= 1;
    return 0;
}

int ss_drm_set_power(ss_drm *drm, bool on) {
    drmModeObjectProperties *props = drmModeObjectGetProperties(drm->fd, drm->connector_id, DRM_MODE_OBJECT_CONNECTOR);
    if (!props) return -errno;
    int result = -ENOENT;
    for (uint32_t i = 0; i < props->count_props && result == -ENOENT; i++) {
        drmModePropertyRes *prop = drmModeGetProperty(drm->fd, props->props[i]);
        if (!prop) continue;
        if (strcmp(prop->name, "DPMS") == 0) {
            uint64_t value = on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF;
            result = drmModeConnectorSetProperty(drm->fd, drm->connector_id, prop->prop_id, value) ? -errno : 0;
        }
        drmModeFreeProperty(prop);
    }
    drmModeFreeObjectProperties(props);
    return result;
}

void ss_drm_close(ss_drm *drm) {
    if (!drm) return;
    if (drm->fd >= 0) {
        if (drm->flip_pending) ss_drm_wait_for_flip(drm, 100);
        if (drm->saved_crtc) {
            drmModeCrtc *saved = drm->saved_crtc;
            if (saved->buffer_id)
                drmModeSetCrtc(drm->fd, saved->crtc_id, saved->buffer_id, saved->x, saved->y, &drm->connector_id, 1,
                               &saved->mode);
            drmModeFreeCrtc(saved);
        }
        for (int i = 0; i < 2; i++) ss_drm_free_buffer(drm->fd, &drm->buffers[i]);
        for (int i = 0; i < 2; i++) ss_drm_free_buffer(drm->fd, &drm->video.ui[i]);
        close(drm->fd);
    }
    free(drm);
}

int ss_drm_describe(const char *card, ss_drm_card_info *info) {
    memset(info, 0, sizeof *info);
    int fd = open(card, O_RDWR | O_CLOEXEC);
    if (fd < 0) return negative_errno();
    drmVersionPtr version = drmGetVersion(fd);
    snprintf(info->driver, sizeof info->driver, "%s", version && version->name ? version->name : "?");
    if (version) drmFreeVersion(version);
    info->master_available = drmIsMaster(fd) || drmSetMaster(fd) == 0;
    drmModeRes *resources = drmModeGetResources(fd);
    info->kms = resources != NULL;
    for (int i = 0; resources && i < resources->count_connectors && info->connector_count < 8; i++) {
        drmModeConnector *connector = drmModeGetConnector(fd, resources->connectors[i]);
        if (!connector) continue;
        ss_drm_connector_info *out = &info->connectors[info->connector_count++];
        connector_name(connector, out->name, sizeof out->name);
        out->connected = connector->connection == DRM_MODE_CONNECTED;
        const drmModeModeInfo *mode = choose_mode(connector, 0, 0);
        if (mode) {
            out->width = mode->hdisplay;
            out->height = mode->vdisplay;
            out->refresh_mhz = refresh_mhz(mode);
        }
        drmModeFreeConnector(connector);
    }
    if (resources) drmModeFreeResources(resources);
    drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
    drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
    for (uint32_t i = 0; planes && i < planes->count_planes; i++) {
        drmModePlane *plane = drmModeGetPlane(fd, planes->planes[i]);
        if (!plane) continue;
        info->plane_count++;
        for (uint32_t f = 0; f < plane->count_formats; f++) {
            if (plane->formats[f] == DRM_FORMAT_NV12 || plane->formats[f] == DRM_FORMAT_YUV420) {
                info->yuv_planes++;
                break;
            }
        }
        drmModeFreePlane(plane);
    }
    if (planes) drmModeFreePlaneResources(planes);
    close(fd);
    return 0;
}
