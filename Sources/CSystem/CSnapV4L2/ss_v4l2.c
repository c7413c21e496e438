// ss_v4l2: single-planar V4L2 capture with mmap streaming (see ss_v4l2.h for why this is C).
#include "ss_v4l2.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

struct ss_v4l2 {
    int fd;
    char path[256];
    uint32_t count;
    void *memory[SS_V4L2_MAX_BUFFERS];
    size_t length[SS_V4L2_MAX_BUFFERS];
    bool streaming;
};

static int negative_errno(void) { return errno > 0 ? -errno : -EIO; }

// A signal arriving during an ioctl is not a failure of the ioctl.
static int xioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result < 0 && errno == EINTR);
    return result < 0 ? negative_errno() : 0;
}

static void say(char *message, size_t size, const char *format, const char *path, const char *call, int result) {
    if (message && size) snprintf(message, size, format, path, call, strerror(-result));
}

static void copy_text(char *target, size_t size, const uint8_t *source, size_t source_size) {
    size_t length = strnlen((const char *)source, source_size);
    if (length >= size) length = size - 1;
    memcpy(target, source, length);
    target[length] = 0;
}

int ss_v4l2_open(const char *path, ss_v4l2 **out, ss_v4l2_info *info, char *message, size_t message_size) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int result = negative_errno();
        say(message, message_size, "%s: %s: %s", path, "open", result);
        return result;
    }
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    int result = xioctl(fd, VIDIOC_QUERYCAP, &capability);
    if (result < 0) {
        // ENOTTY: a node that is not V4L2 at all.
        say(message, message_size, "%s: %s: %s (not a V4L2 device?)", path, "VIDIOC_QUERYCAP", result);
        close(fd);
        return result;
    }
    ss_v4l2 *device = calloc(1, sizeof *device);
    if (!device) {
        close(fd);
        return -ENOMEM;
    }
    device->fd = fd;
    snprintf(device->path, sizeof device->path, "%s", path);
    memset(info, 0, sizeof *info);
    copy_text(info->driver, sizeof info->driver, capability.driver, sizeof capability.driver);
    copy_text(info->card, sizeof info->card, capability.card, sizeof capability.card);
    copy_text(info->bus_info, sizeof info->bus_info, capability.bus_info, sizeof capability.bus_info);
    uint32_t caps =
        (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    info->capabilities = caps;
    info->capture = (caps & V4L2_CAP_VIDEO_CAPTURE) && (caps & V4L2_CAP_STREAMING);
#ifdef V4L2_CAP_IO_MC
    info->media_controller = (caps & V4L2_CAP_IO_MC) != 0;
#endif
    *out = device;
    return 0;
}

void ss_v4l2_close(ss_v4l2 *device) {
    if (!device) return;
    ss_v4l2_stop(device);
    close(device->fd);
    free(device);
}

int ss_v4l2_fd(ss_v4l2 *device) { return device->fd; }

int ss_v4l2_format_at(ss_v4l2 *device, uint32_t index, ss_v4l2_format *out) {
    struct v4l2_fmtdesc description;
    memset(&description, 0, sizeof description);
    description.index = index;
    description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int result = xioctl(device->fd, VIDIOC_ENUM_FMT, &description);
    if (result < 0) return result;
    out->fourcc = description.pixelformat;
    out->compressed = (description.flags & V4L2_FMT_FLAG_COMPRESSED) != 0;
    copy_text(out->description, sizeof out->description, description.description, sizeof description.description);
    return 0;
}

int ss_v4l2_size_at(ss_v4l2 *device, uint32_t fourcc, uint32_t index, ss_v4l2_size *out) {
    struct v4l2_frmsizeenum size;
    memset(&size, 0, sizeof size);
    size.index = index;
    size.pixel_format = fourcc;
    int result = xioctl(device->fd, VIDIOC_ENUM_FRAMESIZES, &size);
    if (result < 0) return result;
    memset(out, 0, sizeof *out);
    if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
        out->discrete = true;
        out->min_width = out->max_width = size.discrete.width;
        out->min_height = out->max_height = size.discrete.height;
    } else {
        // Continuous is a range with step 1.
        out->min_width = size.stepwise.min_width;
        out->max_width = size.stepwise.max_width;
        out->step_width = size.type == V4L2_FRMSIZE_TYPE_CONTINUOUS ? 1 : size.stepwise.step_width;
        out->min_height = size.stepwise.min_height;
        out->max_height = size.stepwise.max_height;
        out->step_height = size.type == V4L2_FRMSIZE_TYPE_CONTINUOUS ? 1 : size.stepwise.step_height;
    }
    return 0;
}

// Unmaps and frees the ring; the device must not be streaming.
static void release_buffers(ss_v4l2 *device) {
    for (uint32_t index = 0; index < device->count; index++) {
        if (device->memory[index]) munmap(device->memory[index], device->length[index]);
        device->memory[index] = NULL;
    }
    if (device->count) {
        struct v4l2_requestbuffers request;
        memset(&request, 0, sizeof request);
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        request.memory = V4L2_MEMORY_MMAP;
        xioctl(device->fd, VIDIOC_REQBUFS, &request);  // fails harmlessly on a device that went away
    }
    device->count = 0;
}

int ss_v4l2_configure(ss_v4l2 *device, ss_v4l2_stream *stream, char *message, size_t message_size) {
    if (device->streaming || device->count) return -EBUSY;
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    format.fmt.pix.width = stream->width;
    format.fmt.pix.height = stream->height;
    format.fmt.pix.pixelformat = stream->fourcc;
    format.fmt.pix.field = V4L2_FIELD_NONE;
    int result = xioctl(device->fd, VIDIOC_S_FMT, &format);
    if (result < 0) {
        say(message, message_size, "%s: %s: %s", device->path, "VIDIOC_S_FMT", result);
        return result;
    }
    stream->fourcc = format.fmt.pix.pixelformat;
    stream->width = format.fmt.pix.width;
    stream->height = format.fmt.pix.height;
    stream->stride = format.fmt.pix.bytesperline;
    stream->image_bytes = format.fmt.pix.sizeimage;
    if (stream->frame_rate) {
        struct v4l2_streamparm parameters;
        memset(&parameters, 0, sizeof parameters);
        parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        parameters.parm.capture.timeperframe.numerator = 1;
        parameters.parm.capture.timeperframe.denominator = stream->frame_rate;
        xioctl(device->fd, VIDIOC_S_PARM, &parameters);  // a camera with one rate refuses; it keeps its own
    }

    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    request.count = stream->buffers < SS_V4L2_MAX_BUFFERS ? stream->buffers : SS_V4L2_MAX_BUFFERS;
    result = xioctl(device->fd, VIDIOC_REQBUFS, &request);
    if (result < 0 || request.count == 0) {
        if (result == 0) result = -ENOMEM;
        say(message, message_size, "%s: %s: %s", device->path, "VIDIOC_REQBUFS (mmap)", result);
        return result;
    }
    // The driver may give more than asked; only as many as the ring holds are mapped and used.
    device->count = request.count < SS_V4L2_MAX_BUFFERS ? request.count : SS_V4L2_MAX_BUFFERS;
    for (uint32_t index = 0; index < device->count; index++) {
        struct v4l2_buffer buffer;
        memset(&buffer, 0, sizeof buffer);
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buffer.memory = V4L2_MEMORY_MMAP;
        buffer.index = index;
        result = xioctl(device->fd, VIDIOC_QUERYBUF, &buffer);
        const char *call = "VIDIOC_QUERYBUF";
        if (result == 0) {
            void *memory = mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, device->fd, buffer.m.offset);
            if (memory == MAP_FAILED) {
                result = negative_errno();
                call = "mmap";
            } else {
                device->memory[index] = memory;
                device->length[index] = buffer.length;
            }
        }
        if (result < 0) {
            say(message, message_size, "%s: %s: %s", device->path, call, result);
            release_buffers(device);
            return result;
        }
    }
    stream->buffers = device->count;
    return 0;
}

int ss_v4l2_start(ss_v4l2 *device) {
    if (!device->count) return -EINVAL;
    for (uint32_t index = 0; index < device->count; index++) {
        int result = ss_v4l2_queue(device, index);
        if (result < 0) return result;
    }
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int result = xioctl(device->fd, VIDIOC_STREAMON, &type);
    if (result == 0) device->streaming = true;
    return result;
}

int ss_v4l2_dequeue(ss_v4l2 *device, ss_v4l2_frame *out) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    int result = xioctl(device->fd, VIDIOC_DQBUF, &buffer);
    if (result < 0) return result;
    if (buffer.index >= device->count || !device->memory[buffer.index]) return -EIO;
    out->index = buffer.index;
    out->data = device->memory[buffer.index];
    out->bytes_used = buffer.bytesused <= device->length[buffer.index] ? buffer.bytesused : 0;
    out->timestamp_ns = (int64_t)buffer.timestamp.tv_sec * 1000000000 + (int64_t)buffer.timestamp.tv_usec * 1000;
    out->sequence = buffer.sequence;
    out->damaged = (buffer.flags & V4L2_BUF_FLAG_ERROR) != 0;
    return 0;
}

int ss_v4l2_queue(ss_v4l2 *device, uint32_t index) {
    if (index >= device->count) return -EINVAL;
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    buffer.index = index;
    return xioctl(device->fd, VIDIOC_QBUF, &buffer);
}

void ss_v4l2_stop(ss_v4l2 *device) {
    if (device->streaming) {
        enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(device->fd, VIDIOC_STREAMOFF, &type);  // also takes every queued buffer back
        device->streaming = false;
    }
    release_buffers(device);
}
