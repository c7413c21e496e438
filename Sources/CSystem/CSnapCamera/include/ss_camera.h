// ss_camera: libcamera behind a C interface, for Swift.
//
// Why this shim exists: libcamera is C++ only (signals, shared_ptr, templates). The station needs a
// camera list, a preview stream and a still stream configured together (zero shutter lag), frames
// handed out by callback, and buffers handed back when their last user is done. Version differences
// (Debian bookworm's 0.0.3, Raspberry Pi OS's 0.5 to 0.7) stay in ss_camera.cpp.
#ifndef SS_CAMERA_H
#define SS_CAMERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ss_cam_manager ss_cam_manager;
typedef struct ss_cam ss_cam;

/// "0.0.3": the libcamera the shim was built against.
const char *ss_cam_library_version(void);

/// Starts libcamera's camera manager (it enumerates cameras). Returns 0 or a negative errno.
int ss_cam_manager_start(ss_cam_manager **out);
void ss_cam_manager_stop(ss_cam_manager *manager);

enum { SS_CAM_LOCATION_UNKNOWN = -1, SS_CAM_LOCATION_FRONT = 0, SS_CAM_LOCATION_BACK = 1,
       SS_CAM_LOCATION_EXTERNAL = 2 };

/// One camera as `snapstation selftest` shows it.
typedef struct ss_cam_info {
    char id[256];
    char model[64];
    int location;
    /// The sensor's full size (0 when the camera does not say).
    uint32_t width;
    uint32_t height;
    /// DRM fourccs the preview (viewfinder) stream can deliver.
    uint32_t formats[16];
    int format_count;
    bool autofocus;
    bool auto_exposure;
    /// A viewfinder and a still stream can run at once (zero shutter lag).
    bool still_with_preview;
} ss_cam_info;

int ss_cam_count(ss_cam_manager *manager);
int ss_cam_info_at(ss_cam_manager *manager, int index, ss_cam_info *info);

/// Opens and acquires a camera: `selector` is an id, an index ("0") or "first". Returns 0 or a negative
/// errno (-ENODEV: no such camera; -EBUSY: another process has it), with the reason in `error`.
int ss_cam_open(ss_cam_manager *manager, const char *selector, ss_cam **out, char *error, size_t error_size);
void ss_cam_close(ss_cam *camera);

/// The streams wanted, and (on return) what the pipeline gave.
typedef struct ss_cam_config {
    uint32_t preview_width, preview_height;
    uint32_t still_width, still_height;
    /// Frames per second asked of the sensor (FrameDurationLimits), 0 for the camera's default.
    uint32_t frame_rate;
    /// Out: the preview stream's format, size and bytes per row.
    uint32_t preview_format, preview_stride;
    /// Out: the still stream's, when there is one (`still_with_preview`).
    uint32_t still_format, still_stride;
    /// Out: both streams run together; otherwise stills come from the one stream.
    bool still_with_preview;
    /// Out: the buffers allocated per stream.
    uint32_t buffer_count;
} ss_cam_config;

/// Configures the camera. With `single_stream` only one stream is configured, at the still size (the
/// fallback for pipelines that cannot run two: configured as the countdown starts). Returns 0 or a
/// negative errno, with the reason in `error`.
int ss_cam_configure(ss_cam *camera, ss_cam_config *config, bool single_stream, char *error, size_t error_size);

enum { SS_CAM_STREAM_PREVIEW = 0, SS_CAM_STREAM_STILL = 1 };

/// One completed buffer. The memory stays valid until `ss_cam_frame_done(camera, cookie)`.
typedef struct ss_cam_frame {
    int stream;
    uint32_t format;
    uint32_t width, height, stride;
    int plane_count;
    const uint8_t *planes[3];
    uint32_t plane_bytes[3];
    /// Each plane's dmabuf and offset in it, for scanning the buffer out directly (zero copy).
    int plane_fds[3];
    uint32_t plane_offsets[3];
    /// The sensor's timestamp of the frame's start of exposure (CLOCK_MONOTONIC, nanoseconds).
    int64_t timestamp_ns;
    uint32_t sequence;
    uint64_t cookie;
} ss_cam_frame;

/// Called on libcamera's thread for each completed buffer.
typedef void (*ss_cam_frame_callback)(void *context, const ss_cam_frame *frame);
enum { SS_CAM_EVENT_DISCONNECTED = 1, SS_CAM_EVENT_FAILED = 2 };
typedef void (*ss_cam_event_callback)(void *context, int event);

/// Starts streaming with auto-exposure and continuous auto-focus where the camera has them, at the
/// configured frame rate where the camera takes one. On failure nothing runs and no callback is made.
int ss_cam_start(ss_cam *camera, ss_cam_frame_callback on_frame, ss_cam_event_callback on_event, void *context);
/// Adds the still buffer to the next request queued; the still is the first one completed after this.
int ss_cam_want_still(ss_cam *camera);
/// Gives a frame's buffer back; its request is queued again once all its buffers are back. Returns 0, or
/// libcamera's negative errno when it refused the request (the camera stopped taking requests): told to
/// the caller rather than through the event callback, because a caller hands buffers back under its own
/// locks. Safe to call from inside the frame callback, for that frame or any other.
int ss_cam_frame_done(ss_cam *camera, uint64_t cookie);
/// Stops streaming and waits for the requests in flight; frames not yet done are returned by then. The
/// callbacks are cut off as it begins: once it returns, none runs again (a disconnect before the close
/// included), so the caller may free what `context` points at.
int ss_cam_stop(ss_cam *camera);

/// Gives up a camera whose device went away without libcamera being told (no udev event: pulled out on a
/// system without udevd, or wedged). Stopping it would trip libcamera 0.0.3's check that no request is
/// still queued (PipelineHandler::stop) and abort the process. Its callbacks are cut off at once; stop and
/// close then do nothing, and the handle stays allocated: a few kilobytes and the dead device's
/// descriptors, once per unplug, so that nothing libcamera may still hold is freed under it.
void ss_cam_abandon(ss_cam *camera);

#ifdef __cplusplus
}
#endif

#endif
