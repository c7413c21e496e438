// ss_gpio: the few GPIO operations the station needs, over libgpiod v1 (1.6, Debian bookworm) or v2
// (2.x, Debian trixie and Raspberry Pi OS trixie), chosen when the shim is compiled.
//
// Why this shim exists: the two libgpiod major versions share no API. The station sees one small C
// interface with opaque handles and negative errno returns; the version differences stay in ss_gpio.c.
#ifndef SS_GPIO_H
#define SS_GPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ss_gpio_chip ss_gpio_chip;
typedef struct ss_gpio_line ss_gpio_line;

/// 1 or 2: the libgpiod major version the shim was built against.
int ss_gpio_api_version(void);
/// True when the kernel does the debouncing (libgpiod v2 with a kernel that supports it).
bool ss_gpio_kernel_debounce(void);

/// Opens a chip by name ("gpiochip0"), number ("0"), label ("pinctrl-bcm2711") or path
/// ("/dev/gpiochip0"). Returns 0 or a negative errno (-ENOENT when nothing matches).
int ss_gpio_chip_open(const char *descr, ss_gpio_chip **out);
void ss_gpio_chip_close(ss_gpio_chip *chip);
const char *ss_gpio_chip_name(ss_gpio_chip *chip);
const char *ss_gpio_chip_label(ss_gpio_chip *chip);
unsigned ss_gpio_chip_line_count(ss_gpio_chip *chip);

/// What the kernel says about one line.
typedef struct ss_gpio_line_info {
    char name[64];
    char consumer[64];
    bool used;
    bool output;
} ss_gpio_line_info;

int ss_gpio_line_info_get(ss_gpio_chip *chip, unsigned offset, ss_gpio_line_info *out);
/// The offset of the line called `name` on this chip, or -ENOENT.
int ss_gpio_find_line(ss_gpio_chip *chip, const char *name);

enum { SS_GPIO_BIAS_AS_IS = 0, SS_GPIO_BIAS_DISABLED = 1, SS_GPIO_BIAS_PULL_UP = 2, SS_GPIO_BIAS_PULL_DOWN = 3 };

/// Requests `offset` as an input reporting both edges. `debounce_us` is given to the kernel where it
/// can debounce (v2); on v1 it is ignored and the caller debounces. Returns 0 or a negative errno
/// (-EBUSY when another consumer holds the line).
int ss_gpio_request_input(ss_gpio_chip *chip, unsigned offset, const char *consumer, int bias, bool active_low,
                          unsigned debounce_us, ss_gpio_line **out);
/// Requests `offset` as an output driven to `value` (0 or 1).
int ss_gpio_request_output(ss_gpio_chip *chip, unsigned offset, const char *consumer, int value,
                           ss_gpio_line **out);
void ss_gpio_line_release(ss_gpio_line *line);

/// The file descriptor that becomes readable when edge events are waiting.
int ss_gpio_line_fd(ss_gpio_line *line);

/// One edge, with the kernel's timestamp (CLOCK_MONOTONIC on current kernels).
typedef struct ss_gpio_event {
    /// True for a change to active (a press on an active-low button wired to ground).
    bool active;
    uint64_t timestamp_ns;
} ss_gpio_event;

/// Reads up to `max` waiting events without blocking past those already queued. Returns the count or a
/// negative errno.
int ss_gpio_read_events(ss_gpio_line *line, ss_gpio_event *events, int max);
int ss_gpio_set_value(ss_gpio_line *line, int value);
/// 0 or 1, or a negative errno.
int ss_gpio_get_value(ss_gpio_line *line);

#ifdef __cplusplus
}
#endif

#endif
