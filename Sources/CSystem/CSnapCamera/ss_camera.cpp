// ss_camera over libcamera. Compiled with -Werror against 0.0.3 (Debian bookworm, the build here), 0.5.2 and
// 0.7.1 (Raspberry Pi's fork, headers generated from its sources: see docs/drivers.md). The calls used
// are the same in all three; the differences are absorbed where they occur (a StreamRole vector for
// generateConfiguration, properties::Model as string or string_view), so no LIBCAMERA_VERSION branch is
// needed yet. A future incompatible change goes behind LIBCAMERA_VERSION_MAJOR/MINOR here, nowhere else.
#include "ss_camera.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <libcamera/libcamera.h>
#include <sys/mman.h>

using namespace libcamera;

namespace {

void say(char *error, size_t size, const std::string &text) {
    if (error && size) std::snprintf(error, size, "%s", text.c_str());
}

std::unique_ptr<CameraConfiguration> generate(Camera &camera, const std::vector<StreamRole> &roles) {
    // 0.0.x takes a StreamRoles vector; from 0.1 a Span<const StreamRole>, which a vector converts to.
    return camera.generateConfiguration(roles);
}

bool offers(const StreamConfiguration &stream, const PixelFormat &format) {
    const auto formats = stream.formats().pixelformats();
    return std::find(formats.begin(), formats.end(), format) != formats.end();
}

// The formats the station converts cheaply, best first: XRGB8888 needs no conversion at all. BGR888 and
// RGB888 cost the same (libyuv's RAWToARGB and RGB24ToARGB); BGR888 comes first because vimc on kernels
// 6.8 and later streams only it: its debayer keeps its source pad at RGB888_1X24 (the code libcamera's
// BGR888 maps to) while still listing BGR888_1X24, so RGB888 passes configure() and fails STREAMON with
// EPIPE (found on trixie's 6.12 in the arm64 VM, docs/hil.md). A Pi's ISP offers the formats before them.
void choose_format(StreamConfiguration &stream) {
    for (const PixelFormat &format : {formats::XRGB8888, formats::NV12, formats::YUV420, formats::YUYV,
                                      formats::BGR888, formats::RGB888, formats::MJPEG}) {
        if (offers(stream, format)) {
            stream.pixelFormat = format;
            return;
        }
    }
}

struct Mapping {
    void *address;
    size_t length;
};

} // namespace

struct ss_cam_manager {
    std::unique_ptr<CameraManager> manager;
};

struct ss_cam {
    std::shared_ptr<Camera> camera;
    std::unique_ptr<CameraConfiguration> config;
    std::unique_ptr<FrameBufferAllocator> allocator;
    Stream *preview = nullptr;
    Stream *still = nullptr;
    std::vector<std::unique_ptr<Request>> requests;
    std::map<const Request *, FrameBuffer *> preview_buffer;
    std::vector<FrameBuffer *> free_stills;
    std::map<const FrameBuffer *, std::vector<const uint8_t *>> planes;
    std::vector<Mapping> mappings;
    std::map<const Request *, int> outstanding;
    std::set<const Request *> still_requests;
    std::mutex lock;
    bool running = false;
    bool want_still = false;
    bool abandoned = false;
    uint32_t frame_rate = 0;
    ss_cam_frame_callback on_frame = nullptr;
    ss_cam_event_callback on_event = nullptr;
    void *context = nullptr;

    void unmap() {
        for (const Mapping &mapping : mappings) munmap(mapping.address, mapping.length);
        mappings.clear();
        planes.clear();
    }

    // Maps each buffer's planes once; planes that share a dmabuf share one mapping.
    int map(const std::vector<std::unique_ptr<FrameBuffer>> &buffers) {
        for (const auto &buffer : buffers) {
            std::map<int, std::pair<size_t, const uint8_t *>> by_fd;
            for (const FrameBuffer::Plane &plane : buffer->planes()) {
                size_t end = plane.offset + plane.length;
                by_fd[plane.fd.get()].first = std::max(by_fd[plane.fd.get()].first, end);
            }
            for (auto &[fd, entry] : by_fd) {
                void *address = mmap(nullptr, entry.first, PROT_READ, MAP_SHARED, fd, 0);
                if (address == MAP_FAILED) return -errno;
                mappings.push_back({address, entry.first});
                entry.second = static_cast<const uint8_t *>(address);
            }
            std::vector<const uint8_t *> pointers;
            for (const FrameBuffer::Plane &plane : buffer->planes())
                pointers.push_back(by_fd[plane.fd.get()].second + plane.offset);
            planes[buffer.get()] = pointers;
        }
        return 0;
    }

    // Runs on libcamera's thread. Every frame is described before the first is delivered, and the request
    // is not touched after: a delivered frame may be handed back at once (on this thread, or on the thread
    // that drops it), and its hand-back reuses the request, which frees the buffer map a loop over
    // `request->buffers()` would still be walking.
    void completed(Request *request) {
        if (request->status() == Request::RequestCancelled) return;
        std::array<ss_cam_frame, 2> frames{};
        size_t count = 0;
        ss_cam_frame_callback deliver;
        void *target;
        {
            std::lock_guard<std::mutex> guard(lock);
            if (abandoned || !on_frame) return;
            deliver = on_frame;
            target = context;
            const bool is_still = still_requests.erase(request) > 0;
            int64_t sensor = 0;
            if (auto timestamp = request->metadata().get(controls::SensorTimestamp)) sensor = *timestamp;
            for (const auto &[stream, buffer] : request->buffers()) {
                if (count == frames.size()) break;
                ss_cam_frame &frame = frames[count++];
                const StreamConfiguration &configuration = stream->configuration();
                // Without a separate still stream, the frame of a tagged request is the still.
                frame.stream = stream == still || (is_still && !still) ? SS_CAM_STREAM_STILL : SS_CAM_STREAM_PREVIEW;
                frame.format = configuration.pixelFormat.fourcc();
                frame.width = configuration.size.width;
                frame.height = configuration.size.height;
                frame.stride = configuration.stride;
                const auto mapped = planes.find(buffer);
                const size_t mapped_count = mapped == planes.end() ? 0 : mapped->second.size();
                frame.plane_count = static_cast<int>(std::min<size_t>({3, mapped_count, buffer->planes().size()}));
                for (int i = 0; i < frame.plane_count; i++) {
                    frame.planes[i] = mapped->second[i];
                    frame.plane_bytes[i] = buffer->metadata().planes()[i].bytesused;
                    frame.plane_fds[i] = buffer->planes()[i].fd.get();
                    frame.plane_offsets[i] = buffer->planes()[i].offset;
                }
                frame.timestamp_ns = sensor ? sensor : static_cast<int64_t>(buffer->metadata().timestamp);
                frame.sequence = buffer->metadata().sequence;
                frame.cookie = reinterpret_cast<uint64_t>(request);
            }
            outstanding[request] = static_cast<int>(count);
        }
        for (size_t i = 0; i < count; i++) deliver(target, &frames[i]);
    }

    void disconnected() {
        ss_cam_event_callback tell;
        void *target;
        {
            std::lock_guard<std::mutex> guard(lock);
            if (abandoned) return;
            tell = on_event;
            target = context;
        }
        if (tell) tell(target, SS_CAM_EVENT_DISCONNECTED);
    }

    // Called with `lock` held: the request's buffers are all back, so it goes out again. Returns
    // libcamera's answer; the caller reports a refusal, never from under a lock.
    int requeue(Request *request) {
        for (const auto &[stream, buffer] : request->buffers())
            if (stream == still) free_stills.push_back(buffer);
        request->reuse();
        request->addBuffer(preview, preview_buffer[request]);
        if (want_still) {
            if (still && !free_stills.empty()) {
                request->addBuffer(still, free_stills.back());
                free_stills.pop_back();
            }
            still_requests.insert(request);
            want_still = false;
        }
        return camera->queueRequest(request);
    }
};

extern "C" {

const char *ss_cam_library_version(void) {
    static std::string version = std::to_string(LIBCAMERA_VERSION_MAJOR) + "." +
                                 std::to_string(LIBCAMERA_VERSION_MINOR) + "." +
                                 std::to_string(LIBCAMERA_VERSION_PATCH);
    return version.c_str();
}

int ss_cam_manager_start(ss_cam_manager **out) {
    // libcamera logs every INFO line to stderr; the station keeps warnings unless the person asked.
    setenv("LIBCAMERA_LOG_LEVELS", "*:WARN", 0);
    auto manager = std::make_unique<CameraManager>();
    int result = manager->start();
    if (result < 0) return result;
    *out = new ss_cam_manager{std::move(manager)};
    return 0;
}

void ss_cam_manager_stop(ss_cam_manager *manager) {
    if (!manager) return;
    manager->manager->stop();
    delete manager;
}

int ss_cam_count(ss_cam_manager *manager) { return static_cast<int>(manager->manager->cameras().size()); }

int ss_cam_info_at(ss_cam_manager *manager, int index, ss_cam_info *info) {
    auto cameras = manager->manager->cameras();
    if (index < 0 || index >= static_cast<int>(cameras.size())) return -ENODEV;
    std::shared_ptr<Camera> camera = cameras[index];
    *info = {};
    std::snprintf(info->id, sizeof info->id, "%s", camera->id().c_str());
    const ControlList &properties = camera->properties();
    // Model is a std::string up to 0.4 and a std::string_view from 0.5: a std::string takes either.
    if (auto model = properties.get(properties::Model))
        std::snprintf(info->model, sizeof info->model, "%s", std::string(*model).c_str());
    info->location = SS_CAM_LOCATION_UNKNOWN;
    if (auto location = properties.get(properties::Location)) info->location = *location;
    if (auto size = properties.get(properties::PixelArraySize)) {
        info->width = size->width;
        info->height = size->height;
    }
    const ControlInfoMap &controls = camera->controls();
    info->autofocus = controls.find(&controls::AfMode) != controls.end();
    info->auto_exposure = controls.find(&controls::AeEnable) != controls.end();
    if (auto config = generate(*camera, {StreamRole::Viewfinder})) {
        for (const PixelFormat &format : config->at(0).formats().pixelformats())
            if (info->format_count < 16) info->formats[info->format_count++] = format.fourcc();
    }
    auto both = generate(*camera, {StreamRole::Viewfinder, StreamRole::StillCapture});
    info->still_with_preview = both && both->size() == 2 && both->validate() != CameraConfiguration::Invalid;
    return 0;
}

int ss_cam_open(ss_cam_manager *manager, const char *selector, ss_cam **out, char *error, size_t error_size) {
    auto cameras = manager->manager->cameras();
    std::string wanted = selector ? selector : "";
    std::shared_ptr<Camera> camera;
    if (wanted.empty() || wanted == "first") {
        if (!cameras.empty()) camera = cameras.front();
    } else if (wanted.find_first_not_of("0123456789") == std::string::npos) {
        size_t index = std::stoul(wanted);
        if (index < cameras.size()) camera = cameras[index];
    } else {
        camera = manager->manager->get(wanted);
    }
    if (!camera) {
        say(error, error_size,
            cameras.empty() ? "no camera found" : "no camera \"" + wanted + "\" among " + std::to_string(cameras.size()));
        return -ENODEV;
    }
    int result = camera->acquire();
    if (result < 0) {
        say(error, error_size,
            "camera " + camera->id() + (result == -EBUSY ? " is in use by another process" : ": cannot acquire it"));
        return result;
    }
    auto *handle = new ss_cam();
    handle->camera = camera;
    camera->requestCompleted.connect(handle, &ss_cam::completed);
    camera->disconnected.connect(handle, &ss_cam::disconnected);
    *out = handle;
    return 0;
}

int ss_cam_configure(ss_cam *camera, ss_cam_config *wanted, bool single_stream, char *error, size_t error_size) {
    if (camera->running) {
        say(error, error_size, "stop the camera before configuring it");
        return -EBUSY;
    }
    camera->requests.clear();
    camera->preview_buffer.clear();
    camera->free_stills.clear();
    camera->still_requests.clear();
    camera->unmap();
    camera->allocator.reset();

    std::unique_ptr<CameraConfiguration> config;
    if (!single_stream) {
        config = generate(*camera->camera, {StreamRole::Viewfinder, StreamRole::StillCapture});
        if (config && config->size() == 2) {
            config->at(0).size = Size(wanted->preview_width, wanted->preview_height);
            config->at(1).size = Size(wanted->still_width, wanted->still_height);
            choose_format(config->at(0));
            choose_format(config->at(1));
            if (config->validate() == CameraConfiguration::Invalid || config->size() != 2) config.reset();
        } else {
            config.reset();
        }
    }
    if (!config) {
        config = generate(*camera->camera, {single_stream ? StreamRole::StillCapture : StreamRole::Viewfinder});
        if (!config || config->empty()) {
            say(error, error_size, "the camera offers no stream for this role");
            return -EINVAL;
        }
        config->at(0).size = single_stream ? Size(wanted->still_width, wanted->still_height)
                                           : Size(wanted->preview_width, wanted->preview_height);
        choose_format(config->at(0));
        if (config->validate() == CameraConfiguration::Invalid) {
            say(error, error_size, "the camera rejected every configuration tried");
            return -EINVAL;
        }
    }
    int result = camera->camera->configure(config.get());
    if (result < 0) {
        say(error, error_size, std::string("configure failed: ") + std::strerror(-result));
        return result;
    }
    camera->config = std::move(config);
    camera->frame_rate = wanted->frame_rate;
    camera->preview = camera->config->at(0).stream();
    camera->still = camera->config->size() == 2 ? camera->config->at(1).stream() : nullptr;
    camera->allocator = std::make_unique<FrameBufferAllocator>(camera->camera);
    for (const StreamConfiguration &stream : *camera->config) {
        if (camera->allocator->allocate(stream.stream()) < 0) {
            say(error, error_size, "cannot allocate buffers for " + stream.toString());
            return -ENOMEM;
        }
        result = camera->map(camera->allocator->buffers(stream.stream()));
        if (result < 0) {
            say(error, error_size, std::string("cannot map a buffer: ") + std::strerror(-result));
            return result;
        }
    }
    for (const auto &buffer : camera->allocator->buffers(camera->preview)) {
        std::unique_ptr<Request> request = camera->camera->createRequest();
        if (!request || request->addBuffer(camera->preview, buffer.get()) < 0) {
            say(error, error_size, "cannot create a request");
            return -ENOMEM;
        }
        camera->preview_buffer[request.get()] = buffer.get();
        camera->requests.push_back(std::move(request));
    }
    if (camera->still)
        for (const auto &buffer : camera->allocator->buffers(camera->still)) camera->free_stills.push_back(buffer.get());

    const StreamConfiguration &preview = camera->config->at(0);
    wanted->preview_width = preview.size.width;
    wanted->preview_height = preview.size.height;
    wanted->preview_format = preview.pixelFormat.fourcc();
    wanted->preview_stride = preview.stride;
    wanted->still_with_preview = camera->still != nullptr;
    wanted->buffer_count = preview.bufferCount;
    if (camera->still) {
        const StreamConfiguration &still = camera->config->at(1);
        wanted->still_width = still.size.width;
        wanted->still_height = still.size.height;
        wanted->still_format = still.pixelFormat.fourcc();
        wanted->still_stride = still.stride;
    }
    return 0;
}

int ss_cam_start(ss_cam *camera, ss_cam_frame_callback on_frame, ss_cam_event_callback on_event, void *context) {
    if (!camera->config) return -EINVAL;
    ControlList controls(controls::controls);
    const ControlInfoMap &available = camera->camera->controls();
    if (available.find(&controls::AeEnable) != available.end()) controls.set(controls::AeEnable, true);
    if (available.find(&controls::AfMode) != available.end())
        controls.set(controls::AfMode, static_cast<int32_t>(controls::AfModeContinuous));
    if (camera->frame_rate > 0 && available.find(&controls::FrameDurationLimits) != available.end()) {
        // Minimum and maximum frame time alike: the sensor runs at exactly this rate (in microseconds).
        const int64_t frame_time = 1000000 / camera->frame_rate;
        const std::array<int64_t, 2> limits = {frame_time, frame_time};
        controls.set(controls::FrameDurationLimits, Span<const int64_t, 2>(limits));
    }
    int result = camera->camera->start(&controls);
    if (result < 0) return result;
    {
        std::lock_guard<std::mutex> guard(camera->lock);
        // Set only once the camera runs: a failed start leaves no callback behind (ss_cam_stop clears them).
        camera->on_frame = on_frame;
        camera->on_event = on_event;
        camera->context = context;
        camera->running = true;
        for (const auto &request : camera->requests) {
            result = camera->camera->queueRequest(request.get());
            if (result < 0) break;
        }
    }
    if (result < 0) {
        // Some requests went out: stop (outside the lock, which completions take) so that no callback
        // reaches a caller that was told the start failed.
        ss_cam_stop(camera);
        return result;
    }
    return 0;
}

int ss_cam_want_still(ss_cam *camera) {
    std::lock_guard<std::mutex> guard(camera->lock);
    if (!camera->running) return -EINVAL;
    camera->want_still = true;
    return 0;
}

int ss_cam_frame_done(ss_cam *camera, uint64_t cookie) {
    auto *request = reinterpret_cast<Request *>(cookie);
    std::lock_guard<std::mutex> guard(camera->lock);
    auto entry = camera->outstanding.find(request);
    if (entry == camera->outstanding.end() || --entry->second > 0) return 0;
    camera->outstanding.erase(entry);
    if (!camera->running) return 0;
    int result = camera->requeue(request);
    return result < 0 ? result : 0;
}

int ss_cam_stop(ss_cam *camera) {
    {
        std::lock_guard<std::mutex> guard(camera->lock);
        if (!camera->running || camera->abandoned) return 0;
        camera->running = false;
        camera->want_still = false;
        // Cut off before the caller lets go of what `context` points at: a completion during the stop,
        // or a disconnect before the camera is closed, then reaches nothing.
        camera->on_frame = nullptr;
        camera->on_event = nullptr;
        camera->context = nullptr;
    }
    int result = camera->camera->stop();
    std::lock_guard<std::mutex> guard(camera->lock);
    camera->outstanding.clear();
    camera->still_requests.clear();
    return result;
}

void ss_cam_abandon(ss_cam *camera) {
    std::lock_guard<std::mutex> guard(camera->lock);
    camera->abandoned = true;
    camera->running = false;
    camera->want_still = false;
    camera->on_frame = nullptr;
    camera->on_event = nullptr;
}

void ss_cam_close(ss_cam *camera) {
    if (!camera) return;
    {
        std::lock_guard<std::mutex> guard(camera->lock);
        if (camera->abandoned) return;  // left allocated: see ss_cam_abandon
    }
    ss_cam_stop(camera);
    camera->camera->requestCompleted.disconnect(camera);
    camera->camera->disconnected.disconnect(camera);
    camera->requests.clear();
    camera->unmap();
    camera->allocator.reset();
    camera->camera->release();
    delete camera;
}

} // extern "C"
