// What the DRM/KMS files of the display shim share: the output's state and a few helpers. Not part of
// the shim's interface (ss_display.h); only ss_drm.c and ss_drm_planes.c include it.
#ifndef SS_DRM_INTERNAL_H
#define SS_DRM_INTERNAL_H

#include "ss_display.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <xf86drmMode.h>

static inline int negative_errno(void) { return errno > 0 ? -errno : -EIO; }

// Writes the reason into `error` (of `error_size`) and returns `code`, for functions that take both.
#define FAIL(code, ...)                                                                                        \
    do {                                                                                                       \
        if (error) snprintf(error, error_size, __VA_ARGS__);                                                   \
        return (code);                                                                                         \
    } while (0)

typedef struct ss_drm_buffer {
    uint32_t handle;
    uint32_t framebuffer;
    uint32_t stride;
    uint64_t size;
    uint8_t *memory;
} ss_drm_buffer;

// The plane properties an atomic commit sets.
typedef struct ss_plane_props {
    uint32_t fb_id, crtc_id, src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
} ss_plane_props;

// Camera buffers on one plane, the screens on a plane above it: the zero-copy preview.
typedef struct ss_drm_video {
    bool enabled;
    uint32_t video_plane, ui_plane;
    ss_plane_props video_props, ui_props;
    ss_drm_buffer ui[2];
    int ui_back;
    uint32_t shown_fb;
} ss_drm_video;

struct ss_drm {
    int fd;
    ss_drm_video video;
    uint32_t crtc_index;
    ss_drm_info info;
    uint32_t connector_id;
    uint32_t crtc_id;
    drmModeModeInfo mode;
    drmModeCrtc *saved_crtc;
    ss_drm_buffer buffers[2];
    int back;
    bool shown;
    bool flip_pending;
};

int ss_drm_create_buffer(int fd, uint32_t width, uint32_t height, uint32_t format, ss_drm_buffer *buffer);
void ss_drm_free_buffer(int fd, ss_drm_buffer *buffer);
// Waits up to `timeout_ms` for the page flip asked for to complete.
int ss_drm_wait_for_flip(ss_drm *drm, int timeout_ms);

#endif
