// ss_display's Linux framebuffer output (/dev/fbN): small SPI panels whose driver has no KMS.
#include "ss_display.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int negative_errno(void) { return errno > 0 ? -errno : -EIO; }

struct ss_fb {
    int fd;
    ss_fb_info info;
    uint8_t *memory;
    size_t size;
};

int ss_fb_open(const char *path, ss_fb **out) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return negative_errno();
    struct fb_var_screeninfo variable;
    struct fb_fix_screeninfo fixed;
    if (ioctl(fd, FBIOGET_VSCREENINFO, &variable) < 0 || ioctl(fd, FBIOGET_FSCREENINFO, &fixed) < 0) {
        int result = negative_errno();
        close(fd);
        return result;
    }
    if (variable.bits_per_pixel != 16 && variable.bits_per_pixel != 32) {
        close(fd);
        return -ENOTSUP;
    }
    size_t size = (size_t)fixed.line_length * variable.yres;
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
        int result = negative_errno();
        close(fd);
        return result;
    }
    ss_fb *fb = calloc(1, sizeof *fb);
    if (!fb) {
        munmap(memory, size);
        close(fd);
        return -ENOMEM;
    }
    fb->fd = fd;
    fb->memory = memory;
    fb->size = size;
    snprintf(fb->info.id, sizeof fb->info.id, "%.16s", fixed.id);
    fb->info.width = variable.xres;
    fb->info.height = variable.yres;
    fb->info.bits_per_pixel = variable.bits_per_pixel;
    fb->info.stride = fixed.line_length;
    fb->info.red_offset = variable.red.offset;
    fb->info.blue_offset = variable.blue.offset;
    *out = fb;
    return 0;
}

void ss_fb_info_get(ss_fb *fb, ss_fb_info *info) { *info = fb->info; }

uint8_t *ss_fb_memory(ss_fb *fb) { return fb->memory; }

void ss_fb_close(ss_fb *fb) {
    if (!fb) return;
    munmap(fb->memory, fb->size);
    close(fb->fd);
    free(fb);
}
