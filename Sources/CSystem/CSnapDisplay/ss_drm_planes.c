// ss_display's zero-copy preview: camera dmabufs imported onto an overlay plane, the screens on an ARGB
// plane above it, both in one atomic commit.
#include "ss_drm_internal.h"

#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <xf86drm.h>

static uint32_t property_id(int fd, uint32_t object, uint32_t type, const char *name, uint64_t *value) {
    drmModeObjectProperties *properties = drmModeObjectGetProperties(fd, object, type);
    uint32_t found = 0;
    for (uint32_t i = 0; properties && i < properties->count_props && !found; i++) {
        drmModePropertyRes *property = drmModeGetProperty(fd, properties->props[i]);
        if (property && strcmp(property->name, name) == 0) {
            found = property->prop_id;
            if (value) *value = properties->prop_values[i];
        }
        if (property) drmModeFreeProperty(property);
    }
    if (properties) drmModeFreeObjectProperties(properties);
    return found;
}

static bool plane_properties(int fd, uint32_t plane, ss_plane_props *props) {
    const char *names[] = {"FB_ID",  "CRTC_ID", "SRC_X",  "SRC_Y",  "SRC_W",
                           "SRC_H",  "CRTC_X",  "CRTC_Y", "CRTC_W", "CRTC_H"};
    uint32_t *slots[] = {&props->fb_id, &props->crtc_id, &props->src_x, &props->src_y, &props->src_w,
                         &props->src_h, &props->crtc_x, &props->crtc_y, &props->crtc_w, &props->crtc_h};
    for (int i = 0; i < 10; i++) {
        *slots[i] = property_id(fd, plane, DRM_MODE_OBJECT_PLANE, names[i], NULL);
        if (!*slots[i]) return false;
    }
    return true;
}

static bool plane_takes(const drmModePlane *plane, uint32_t format) {
    for (uint32_t f = 0; f < plane->count_formats; f++)
        if (plane->formats[f] == format) return true;
    return false;
}

int ss_drm_video_enable(ss_drm *drm, uint32_t format, char *error, size_t error_size) {
    if (drm->video.enabled) return 0;
    if (drmSetClientCap(drm->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) < 0 ||
        drmSetClientCap(drm->fd, DRM_CLIENT_CAP_ATOMIC, 1) < 0)
        FAIL(-ENOTSUP, "%s has no atomic modesetting", drm->info.card);
    drmModePlaneRes *planes = drmModeGetPlaneResources(drm->fd);
    if (!planes) FAIL(negative_errno(), "%s: cannot list planes", drm->info.card);
    // Planes in the kernel's order, which is bottom to top unless a zpos property says otherwise.
    uint32_t video = 0, ui = 0;
    uint64_t video_z = 0;
    for (uint32_t i = 0; i < planes->count_planes; i++) {
        drmModePlane *plane = drmModeGetPlane(drm->fd, planes->planes[i]);
        if (!plane) continue;
        uint64_t type = 0, zpos = i;
        property_id(drm->fd, plane->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type);
        property_id(drm->fd, plane->plane_id, DRM_MODE_OBJECT_PLANE, "zpos", &zpos);
        bool usable = (plane->possible_crtcs & (1u << drm->crtc_index)) && type != DRM_PLANE_TYPE_CURSOR &&
                      type != DRM_PLANE_TYPE_PRIMARY;
        if (usable && !video && plane_takes(plane, format)) {
            video = plane->plane_id;
            video_z = zpos;
        } else if (usable && video && !ui && zpos > video_z && plane_takes(plane, DRM_FORMAT_ARGB8888)) {
            ui = plane->plane_id;
        }
        drmModeFreePlane(plane);
    }
    drmModeFreePlaneResources(planes);
    char name[5] = {(char)format, (char)(format >> 8), (char)(format >> 16), (char)(format >> 24), 0};
    if (!video) FAIL(-ENOTSUP, "%s has no overlay plane that scans out %s", drm->info.card, name);
    if (!ui) FAIL(-ENOTSUP, "%s has no ARGB8888 plane above the %s plane for the screens", drm->info.card, name);
    if (!plane_properties(drm->fd, video, &drm->video.video_props) ||
        !plane_properties(drm->fd, ui, &drm->video.ui_props))
        FAIL(-ENOTSUP, "%s: a plane lacks the standard atomic properties", drm->info.card);
    for (int i = 0; i < 2; i++) {
        int result = ss_drm_create_buffer(drm->fd, drm->info.width, drm->info.height, DRM_FORMAT_ARGB8888,
                                          &drm->video.ui[i]);
        if (result < 0) FAIL(result, "%s: cannot create the screens' buffer: %s", drm->info.card, strerror(-result));
    }
    drm->video.video_plane = video;
    drm->video.ui_plane = ui;
    drm->video.enabled = true;
    return 0;
}

uint8_t *ss_drm_video_ui_buffer(ss_drm *drm) { return drm->video.ui[drm->video.ui_back].memory; }

int ss_drm_video_import(ss_drm *drm, const int *fds, const uint32_t *strides, const uint32_t *offsets, int planes,
                        uint32_t format, uint32_t width, uint32_t height, uint32_t *framebuffer) {
    uint32_t handles[4] = {0}, pitches[4] = {0}, starts[4] = {0};
    for (int i = 0; i < planes && i < 4; i++) {
        if (drmPrimeFDToHandle(drm->fd, fds[i], &handles[i]) < 0) return negative_errno();
        pitches[i] = strides[i];
        starts[i] = offsets[i];
    }
    int result = drmModeAddFB2(drm->fd, width, height, format, handles, pitches, starts, framebuffer, 0) < 0
                     ? negative_errno()
                     : 0;
    // The framebuffer holds its own reference to the memory; the handles are not needed after this.
    for (int i = 0; i < planes && i < 4; i++) {
        bool repeated = false;
        for (int j = 0; j < i; j++) repeated = repeated || handles[j] == handles[i];
        if (handles[i] && !repeated) drmCloseBufferHandle(drm->fd, handles[i]);
    }
    return result;
}

void ss_drm_video_forget(ss_drm *drm, uint32_t framebuffer) {
    if (framebuffer) drmModeRmFB(drm->fd, framebuffer);
}

static void add_plane(drmModeAtomicReq *request, uint32_t plane, const ss_plane_props *props, uint32_t crtc,
                      uint32_t fb, uint32_t src_w, uint32_t src_h, uint32_t width, uint32_t height) {
    drmModeAtomicAddProperty(request, plane, props->fb_id, fb);
    drmModeAtomicAddProperty(request, plane, props->crtc_id, fb ? crtc : 0);
    drmModeAtomicAddProperty(request, plane, props->src_x, 0);
    drmModeAtomicAddProperty(request, plane, props->src_y, 0);
    drmModeAtomicAddProperty(request, plane, props->src_w, (uint64_t)src_w << 16);
    drmModeAtomicAddProperty(request, plane, props->src_h, (uint64_t)src_h << 16);
    drmModeAtomicAddProperty(request, plane, props->crtc_x, 0);
    drmModeAtomicAddProperty(request, plane, props->crtc_y, 0);
    drmModeAtomicAddProperty(request, plane, props->crtc_w, width);
    drmModeAtomicAddProperty(request, plane, props->crtc_h, height);
}

int ss_drm_video_present(ss_drm *drm, uint32_t video_fb, uint32_t src_width, uint32_t src_height, int timeout_ms) {
    if (!drm->video.enabled) return -EINVAL;
    if (!drm->shown) {
        // The CRTC needs a mode first: the primary plane with its (black) buffer.
        int result = ss_drm_present(drm, timeout_ms);
        if (result < 0) return result;
    }
    drmModeAtomicReq *request = drmModeAtomicAlloc();
    if (!request) return -ENOMEM;
    uint32_t width = drm->info.width, height = drm->info.height;
    add_plane(request, drm->video.video_plane, &drm->video.video_props, drm->crtc_id, video_fb, src_width,
              src_height, video_fb ? width : 0, video_fb ? height : 0);
    add_plane(request, drm->video.ui_plane, &drm->video.ui_props, drm->crtc_id,
              drm->video.ui[drm->video.ui_back].framebuffer, width, height, width, height);
    drm->flip_pending = true;
    int result = drmModeAtomicCommit(drm->fd, request, DRM_MODE_PAGE_FLIP_EVENT | DRM_MODE_ATOMIC_NONBLOCK, drm);
    drmModeAtomicFree(request);
    if (result < 0) {
        drm->flip_pending = false;
        return negative_errno();
    }
    result = ss_drm_wait_for_flip(drm, timeout_ms);
    if (result < 0) return result;
    drm->video.ui_back ^= 1;
    drm->video.shown_fb = video_fb;
    return 0;
}
