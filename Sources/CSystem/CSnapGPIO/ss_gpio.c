// ss_gpio over libgpiod. GPIOD_LINE_BULK_MAX_LINES is defined only by v1's header, so it picks the API.
#include "ss_gpio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <gpiod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define SS_GPIOD_V1 1
#else
#define SS_GPIOD_V1 0
#endif

static int negative_errno(void) { return errno > 0 ? -errno : -EIO; }

static void copy_text(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from ? from : "");
}

#if SS_GPIOD_V1

struct ss_gpio_chip {
    struct gpiod_chip *chip;
};

struct ss_gpio_line {
    struct gpiod_line *line;
};

int ss_gpio_api_version(void) { return 1; }
bool ss_gpio_kernel_debounce(void) { return false; }

int ss_gpio_chip_open(const char *descr, ss_gpio_chip **out) {
    errno = 0;
    struct gpiod_chip *chip = gpiod_chip_open_lookup(descr);
    if (!chip) return errno ? negative_errno() : -ENOENT;
    ss_gpio_chip *handle = calloc(1, sizeof *handle);
    if (!handle) {
        gpiod_chip_close(chip);
        return -ENOMEM;
    }
    handle->chip = chip;
    *out = handle;
    return 0;
}

void ss_gpio_chip_close(ss_gpio_chip *chip) {
    if (!chip) return;
    gpiod_chip_close(chip->chip);
    free(chip);
}

const char *ss_gpio_chip_name(ss_gpio_chip *chip) { return gpiod_chip_name(chip->chip); }
const char *ss_gpio_chip_label(ss_gpio_chip *chip) { return gpiod_chip_label(chip->chip); }
unsigned ss_gpio_chip_line_count(ss_gpio_chip *chip) { return gpiod_chip_num_lines(chip->chip); }

int ss_gpio_line_info_get(ss_gpio_chip *chip, unsigned offset, ss_gpio_line_info *out) {
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return negative_errno();
    copy_text(out->name, sizeof out->name, gpiod_line_name(line));
    copy_text(out->consumer, sizeof out->consumer, gpiod_line_consumer(line));
    out->used = gpiod_line_is_used(line);
    out->output = gpiod_line_direction(line) == GPIOD_LINE_DIRECTION_OUTPUT;
    return 0;
}

int ss_gpio_find_line(ss_gpio_chip *chip, const char *name) {
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
    if (!line) return errno && errno != ENOENT ? negative_errno() : -ENOENT;
    return (int)gpiod_line_offset(line);
}

static int bias_flags(int bias) {
    switch (bias) {
    case SS_GPIO_BIAS_DISABLED: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case SS_GPIO_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case SS_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    default: return 0;
    }
}

static int request(ss_gpio_chip *chip, unsigned offset, const struct gpiod_line_request_config *config, int value,
                   ss_gpio_line **out) {
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return negative_errno();
    if (gpiod_line_request(line, config, value) < 0) return negative_errno();
    ss_gpio_line *handle = calloc(1, sizeof *handle);
    if (!handle) {
        gpiod_line_release(line);
        return -ENOMEM;
    }
    handle->line = line;
    *out = handle;
    return 0;
}

int ss_gpio_request_input(ss_gpio_chip *chip, unsigned offset, const char *consumer, int bias, bool active_low,
                          unsigned debounce_us, ss_gpio_line **out) {
    (void)debounce_us; // v1 has no kernel debounce: the caller debounces
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
        .flags = bias_flags(bias) | (active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0),
    };
    return request(chip, offset, &config, 0, out);
}

int ss_gpio_request_output(ss_gpio_chip *chip, unsigned offset, const char *consumer, int value,
                           ss_gpio_line **out) {
    struct gpiod_line_request_config config = {
        .consumer = consumer, .request_type = GPIOD_LINE_REQUEST_DIRECTION_OUTPUT, .flags = 0};
    return request(chip, offset, &config, value, out);
}

void ss_gpio_line_release(ss_gpio_line *line) {
    if (!line) return;
    gpiod_line_release(line->line);
    free(line);
}

int ss_gpio_line_fd(ss_gpio_line *line) { return gpiod_line_event_get_fd(line->line); }

int ss_gpio_read_events(ss_gpio_line *line, ss_gpio_event *events, int max) {
    struct gpiod_line_event raw[16];
    if (max > 16) max = 16;
    int count = gpiod_line_event_read_multiple(line->line, raw, (unsigned)max);
    if (count < 0) return negative_errno();
    for (int i = 0; i < count; i++) {
        // With both edges requested the kernel reports the line's logical level, so active-low is applied.
        events[i].active = raw[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        events[i].timestamp_ns = (uint64_t)raw[i].ts.tv_sec * 1000000000u + (uint64_t)raw[i].ts.tv_nsec;
    }
    return count;
}

int ss_gpio_set_value(ss_gpio_line *line, int value) {
    return gpiod_line_set_value(line->line, value ? 1 : 0) < 0 ? negative_errno() : 0;
}

int ss_gpio_get_value(ss_gpio_line *line) {
    int value = gpiod_line_get_value(line->line);
    return value < 0 ? negative_errno() : value;
}

#else // libgpiod v2

struct ss_gpio_chip {
    struct gpiod_chip *chip;
    char name[64];
    char label[64];
    unsigned lines;
};

struct ss_gpio_line {
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events;
    unsigned offset;
};

int ss_gpio_api_version(void) { return 2; }
bool ss_gpio_kernel_debounce(void) { return true; }

static struct gpiod_chip *open_path_or_number(const char *descr) {
    char path[128];
    if (descr[0] == '/') return gpiod_chip_open(descr);
    bool digits = descr[0] != '\0';
    for (const char *c = descr; *c; c++) digits = digits && isdigit((unsigned char)*c);
    if (digits) snprintf(path, sizeof path, "/dev/gpiochip%s", descr);
    else snprintf(path, sizeof path, "/dev/%s", descr);
    if (strncmp(descr, "gpiochip", 8) != 0 && !digits) return NULL;
    return gpiod_chip_open(path);
}

// v2 opens by path only: a label is found by opening each /dev/gpiochip* in turn.
static struct gpiod_chip *open_by_label(const char *label) {
    DIR *dir = opendir("/dev");
    if (!dir) return NULL;
    struct gpiod_chip *found = NULL;
    struct dirent *entry;
    while (!found && (entry = readdir(dir))) {
        if (strncmp(entry->d_name, "gpiochip", 8) != 0) continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", entry->d_name);
        struct gpiod_chip *chip = gpiod_chip_open(path);
        if (!chip) continue;
        struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
        if (info && strcmp(gpiod_chip_info_get_label(info), label) == 0) found = chip;
        else gpiod_chip_close(chip);
        if (info) gpiod_chip_info_free(info);
    }
    closedir(dir);
    return found;
}

int ss_gpio_chip_open(const char *descr, ss_gpio_chip **out) {
    errno = 0;
    struct gpiod_chip *chip = open_path_or_number(descr);
    int first_error = errno;
    if (!chip && first_error != EACCES) chip = open_by_label(descr);
    if (!chip) return first_error ? -first_error : -ENOENT;
    ss_gpio_chip *handle = calloc(1, sizeof *handle);
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!handle || !info) {
        free(handle);
        if (info) gpiod_chip_info_free(info);
        gpiod_chip_close(chip);
        return -ENOMEM;
    }
    handle->chip = chip;
    copy_text(handle->name, sizeof handle->name, gpiod_chip_info_get_name(info));
    copy_text(handle->label, sizeof handle->label, gpiod_chip_info_get_label(info));
    handle->lines = (unsigned)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    *out = handle;
    return 0;
}

void ss_gpio_chip_close(ss_gpio_chip *chip) {
    if (!chip) return;
    gpiod_chip_close(chip->chip);
    free(chip);
}

const char *ss_gpio_chip_name(ss_gpio_chip *chip) { return chip->name; }
const char *ss_gpio_chip_label(ss_gpio_chip *chip) { return chip->label; }
unsigned ss_gpio_chip_line_count(ss_gpio_chip *chip) { return chip->lines; }

int ss_gpio_line_info_get(ss_gpio_chip *chip, unsigned offset, ss_gpio_line_info *out) {
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip->chip, offset);
    if (!info) return negative_errno();
    copy_text(out->name, sizeof out->name, gpiod_line_info_get_name(info));
    copy_text(out->consumer, sizeof out->consumer, gpiod_line_info_get_consumer(info));
    out->used = gpiod_line_info_is_used(info);
    out->output = gpiod_line_info_get_direction(info) == GPIOD_LINE_DIRECTION_OUTPUT;
    gpiod_line_info_free(info);
    return 0;
}

int ss_gpio_find_line(ss_gpio_chip *chip, const char *name) {
    errno = 0;
    int offset = gpiod_chip_get_line_offset_from_name(chip->chip, name);
    if (offset < 0) return errno && errno != ENOENT ? negative_errno() : -ENOENT;
    return offset;
}

static enum gpiod_line_bias bias_setting(int bias) {
    switch (bias) {
    case SS_GPIO_BIAS_DISABLED: return GPIOD_LINE_BIAS_DISABLED;
    case SS_GPIO_BIAS_PULL_UP: return GPIOD_LINE_BIAS_PULL_UP;
    case SS_GPIO_BIAS_PULL_DOWN: return GPIOD_LINE_BIAS_PULL_DOWN;
    default: return GPIOD_LINE_BIAS_AS_IS;
    }
}

static int request(ss_gpio_chip *chip, unsigned offset, const char *consumer, struct gpiod_line_settings *settings,
                   bool events, ss_gpio_line **out) {
    struct gpiod_line_config *lines = gpiod_line_config_new();
    struct gpiod_request_config *config = gpiod_request_config_new();
    ss_gpio_line *handle = calloc(1, sizeof *handle);
    int result = -ENOMEM;
    if (lines && config && handle && gpiod_line_config_add_line_settings(lines, &offset, 1, settings) == 0) {
        gpiod_request_config_set_consumer(config, consumer);
        errno = 0;
        handle->request = gpiod_chip_request_lines(chip->chip, config, lines);
        result = handle->request ? 0 : negative_errno();
    }
    if (result == 0 && events) {
        handle->events = gpiod_edge_event_buffer_new(16);
        if (!handle->events) result = -ENOMEM;
    }
    if (result == 0) {
        handle->offset = offset;
        *out = handle;
    } else if (handle) {
        if (handle->request) gpiod_line_request_release(handle->request);
        free(handle);
    }
    if (lines) gpiod_line_config_free(lines);
    if (config) gpiod_request_config_free(config);
    gpiod_line_settings_free(settings);
    return result;
}

int ss_gpio_request_input(ss_gpio_chip *chip, unsigned offset, const char *consumer, int bias, bool active_low,
                          unsigned debounce_us, ss_gpio_line **out) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) return -ENOMEM;
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
    gpiod_line_settings_set_bias(settings, bias_setting(bias));
    gpiod_line_settings_set_active_low(settings, active_low);
    gpiod_line_settings_set_debounce_period_us(settings, debounce_us);
    gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC);
    return request(chip, offset, consumer, settings, true, out);
}

int ss_gpio_request_output(ss_gpio_chip *chip, unsigned offset, const char *consumer, int value,
                           ss_gpio_line **out) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) return -ENOMEM;
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_output_value(settings, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
    return request(chip, offset, consumer, settings, false, out);
}

void ss_gpio_line_release(ss_gpio_line *line) {
    if (!line) return;
    gpiod_line_request_release(line->request);
    if (line->events) gpiod_edge_event_buffer_free(line->events);
    free(line);
}

int ss_gpio_line_fd(ss_gpio_line *line) { return gpiod_line_request_get_fd(line->request); }

int ss_gpio_read_events(ss_gpio_line *line, ss_gpio_event *events, int max) {
    if (!line->events) return -EINVAL;
    if (max > 16) max = 16;
    int count = gpiod_line_request_read_edge_events(line->request, line->events, (size_t)max);
    if (count < 0) return negative_errno();
    for (int i = 0; i < count; i++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->events, (unsigned long)i);
        events[i].active = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        events[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
    }
    return count;
}

int ss_gpio_set_value(ss_gpio_line *line, int value) {
    enum gpiod_line_value level = value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    return gpiod_line_request_set_value(line->request, line->offset, level) < 0 ? negative_errno() : 0;
}

int ss_gpio_get_value(ss_gpio_line *line) {
    int value = (int)gpiod_line_request_get_value(line->request, line->offset);
    return value < 0 ? negative_errno() : value;
}

#endif
