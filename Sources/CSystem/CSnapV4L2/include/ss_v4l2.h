// ss_v4l2: the few Video4Linux2 operations a plain USB webcam needs: query what it offers, set a format,
// stream it through a small ring of mmap'ed buffers.
//
// Why this shim exists: the V4L2 structs are full of anonymous unions (v4l2_format.fmt, v4l2_buffer.m,
// v4l2_frmsizeenum's discrete/stepwise) and the request numbers are _IOWR macros that Swift does not
// import. Here each operation is one function over plain structs, with negative errno returns and a
// sentence in the caller's buffer where an errno alone would not say what was tried. EINTR is retried.
#ifndef SS_V4L2_H
#define SS_V4L2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An open capture device and its buffers.
typedef struct ss_v4l2 ss_v4l2;

/// The most buffers the ring may have.
enum { SS_V4L2_MAX_BUFFERS = 8 };

/// What VIDIOC_QUERYCAP says about a node.
typedef struct ss_v4l2_info {
    char driver[16];
    char card[32];
    char bus_info[32];
    /// The node's own capabilities (device_caps where the driver gives them): V4L2_CAP_*.
    uint32_t capabilities;
    /// Single-planar video capture with streaming I/O: what the station can use.
    bool capture;
    /// The node needs its media-controller pipeline set up first (V4L2_CAP_IO_MC): not a plain webcam.
    bool media_controller;
} ss_v4l2_info;

/// Opens `path` (non-blocking, close-on-exec) and queries it. Returns 0, or a negative errno with a
/// sentence in `message`.
int ss_v4l2_open(const char *path, ss_v4l2 **out, ss_v4l2_info *info, char *message, size_t message_size);
/// Stops streaming, unmaps the buffers and closes the node. Safe on a device that went away.
void ss_v4l2_close(ss_v4l2 *device);
/// The node's file descriptor: readable (POLLIN) when a filled buffer waits, POLLERR when it is gone.
int ss_v4l2_fd(ss_v4l2 *device);

/// One pixel format the node offers (VIDIOC_ENUM_FMT).
typedef struct ss_v4l2_format {
    uint32_t fourcc;
    bool compressed;
    char description[32];
} ss_v4l2_format;

/// The format at `index`; -EINVAL past the last one.
int ss_v4l2_format_at(ss_v4l2 *device, uint32_t index, ss_v4l2_format *out);

/// One frame size of a format (VIDIOC_ENUM_FRAMESIZES): a discrete size (min = max, step 0), or a range.
typedef struct ss_v4l2_size {
    bool discrete;
    uint32_t min_width, max_width, step_width;
    uint32_t min_height, max_height, step_height;
} ss_v4l2_size;

/// The frame size of `fourcc` at `index`; -EINVAL past the last one (a range is always index 0 only).
int ss_v4l2_size_at(ss_v4l2 *device, uint32_t fourcc, uint32_t index, ss_v4l2_size *out);

/// A format asked for, and what the driver set (it may adjust the size).
typedef struct ss_v4l2_stream {
    uint32_t fourcc;
    uint32_t width;
    uint32_t height;
    /// Frames per second to ask for (VIDIOC_S_PARM); 0 leaves the driver's default. A driver that
    /// refuses it streams at its default.
    uint32_t frame_rate;
    /// Buffers in the ring: asked for, then how many the driver gave.
    uint32_t buffers;
    /// Set by the driver.
    uint32_t stride;
    uint32_t image_bytes;
} ss_v4l2_stream;

/// Sets the format (VIDIOC_S_FMT), asks for the ring (VIDIOC_REQBUFS, MMAP) and maps each buffer.
/// The device must be stopped. On failure nothing stays allocated.
int ss_v4l2_configure(ss_v4l2 *device, ss_v4l2_stream *stream, char *message, size_t message_size);
/// Queues every buffer of the ring and starts streaming (VIDIOC_QBUF, VIDIOC_STREAMON).
int ss_v4l2_start(ss_v4l2 *device);

/// One filled buffer, out of the ring until given back with `ss_v4l2_queue`.
typedef struct ss_v4l2_frame {
    uint32_t index;
    const uint8_t *data;
    uint32_t bytes_used;
    /// The driver's timestamp (CLOCK_MONOTONIC for V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC), in nanoseconds.
    int64_t timestamp_ns;
    uint32_t sequence;
    /// V4L2_BUF_FLAG_ERROR: the driver says the data may be damaged.
    bool damaged;
} ss_v4l2_frame;

/// Takes the next filled buffer (VIDIOC_DQBUF). -EAGAIN when none waits; -ENODEV when the device is gone.
int ss_v4l2_dequeue(ss_v4l2 *device, ss_v4l2_frame *out);
/// Gives buffer `index` back to the driver (VIDIOC_QBUF).
int ss_v4l2_queue(ss_v4l2 *device, uint32_t index);
/// Stops streaming (VIDIOC_STREAMOFF), unmaps the ring and frees it (VIDIOC_REQBUFS 0). Every frame's data
/// pointer is invalid afterwards.
void ss_v4l2_stop(ss_v4l2 *device);

#ifdef __cplusplus
}
#endif

#endif
