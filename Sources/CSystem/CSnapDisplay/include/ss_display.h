// ss_display: a DRM/KMS output with two dumb buffers flipped on vblank, and a Linux framebuffer (fbdev)
// for small SPI panels without KMS.
//
// Why this shim exists: libdrm's structures are full of pointers and counted arrays, and the ioctls for
// dumb buffers are macros. The station needs five operations: open, the buffer to draw into, present,
// describe (for `snapstation selftest`) and close.
#ifndef SS_DISPLAY_H
#define SS_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ss_drm ss_drm;

/// The output that was opened.
typedef struct ss_drm_info {
    char card[64];
    char driver[32];
    /// "HDMI-A-1", "DSI-1", "Virtual-1".
    char connector[32];
    uint32_t width;
    uint32_t height;
    /// The mode's refresh rate in millihertz (59940 for 59.94 Hz).
    uint32_t refresh_mhz;
    /// Bytes per row of each buffer (XRGB8888: at least width * 4).
    uint32_t stride;
} ss_drm_info;

/// Opens `card` ("" for the first card with a connected display), the connector called `connector` (""
/// for the first connected one) and the mode `width`x`height` (0 for the connector's preferred mode).
/// Returns 0 or a negative errno, with what went wrong in `error` (-EBUSY: another process holds DRM
/// master; -ENODEV: no connected display).
int ss_drm_open(const char *card, const char *connector, uint32_t width, uint32_t height, ss_drm **out,
                char *error, size_t error_size);
void ss_drm_info_get(ss_drm *drm, ss_drm_info *info);
/// The buffer that is not on screen: draw the next frame here, XRGB8888, `stride` bytes per row.
uint8_t *ss_drm_back_buffer(ss_drm *drm);
/// Shows the back buffer: the first time by setting the CRTC, then by a page flip that waits for the
/// flip's vblank event (at most `timeout_ms`). Returns 0 or a negative errno.
int ss_drm_present(ss_drm *drm, int timeout_ms);
/// Turns the panel off or on through the connector's DPMS property (the night hours). Returns 0, or a
/// negative errno (-ENOENT: the connector has no DPMS property).
int ss_drm_set_power(ss_drm *drm, bool on);
/// Frees the buffers and gives the CRTC back the framebuffer it had before.
void ss_drm_close(ss_drm *drm);

/// Zero-copy preview: finds a plane on the output that scans out camera buffers in `format` (a DRM
/// fourcc such as NV12) and an ARGB8888 plane above it for the screens, and switches to atomic commits.
/// Returns 0, or -ENOTSUP with the reason in `error` when the driver has no such planes (the caller then
/// composes on the CPU).
int ss_drm_video_enable(ss_drm *drm, uint32_t format, char *error, size_t error_size);
/// The screens' buffer not on screen: ARGB8888 with premultiplied alpha, `stride` bytes per row;
/// transparent where the camera should show through.
uint8_t *ss_drm_video_ui_buffer(ss_drm *drm);
/// Makes a framebuffer of a camera buffer's dmabufs without copying. Returns 0 or a negative errno.
int ss_drm_video_import(ss_drm *drm, const int *fds, const uint32_t *strides, const uint32_t *offsets, int planes,
                        uint32_t format, uint32_t width, uint32_t height, uint32_t *framebuffer);
void ss_drm_video_forget(ss_drm *drm, uint32_t framebuffer);
/// Shows `video_fb` (0 hides the camera) scaled to the screen under the screens' buffer, in one atomic
/// commit on vblank, and waits for it. Returns 0 or a negative errno.
int ss_drm_video_present(ss_drm *drm, uint32_t video_fb, uint32_t src_width, uint32_t src_height, int timeout_ms);

/// What `snapstation selftest` shows about one card.
typedef struct ss_drm_connector_info {
    char name[32];
    bool connected;
    uint32_t width;
    uint32_t height;
    uint32_t refresh_mhz;
} ss_drm_connector_info;

typedef struct ss_drm_card_info {
    char driver[32];
    bool kms;
    bool master_available;
    int connector_count;
    ss_drm_connector_info connectors[8];
    int plane_count;
    /// Planes that can scan out the camera's NV12 or YUV420 directly (zero-copy preview).
    int yuv_planes;
} ss_drm_card_info;

/// Reads `card` without changing it. Returns 0 or a negative errno.
int ss_drm_describe(const char *card, ss_drm_card_info *info);

typedef struct ss_fb ss_fb;

typedef struct ss_fb_info {
    char id[32];
    uint32_t width;
    uint32_t height;
    uint32_t bits_per_pixel;
    uint32_t stride;
    /// Bit offsets of red and blue in a pixel: tells RGB565 from BGR565, XRGB from XBGR.
    uint32_t red_offset;
    uint32_t blue_offset;
} ss_fb_info;

/// Opens and maps a framebuffer device such as /dev/fb0. Returns 0 or a negative errno.
int ss_fb_open(const char *path, ss_fb **out);
void ss_fb_info_get(ss_fb *fb, ss_fb_info *info);
/// The mapped screen memory: what is written here is shown.
uint8_t *ss_fb_memory(ss_fb *fb);
void ss_fb_close(ss_fb *fb);

#ifdef __cplusplus
}
#endif

#endif
