#!/usr/bin/env bash
# The virtual drivers Debian's kernels do not build (irq_sim, gpio-sim, vkms, vimc), taken out of a
# linux-source tarball into one folder with its Kbuild, ready for `make -C HEADERS M=OUT modules`.
# Tests/HIL/run builds them for the x86 VM (6.1), Tests/Arm64/vm for the arm64 one (6.12).
#
#   Tests/HIL/virtual-drivers.sh /usr/src/linux-source-X.Y.tar.xz OUT
#
# irq_sim is built into the kernels that use it; as a module it may not call irq_to_desc (not exported),
# so it calls generic_handle_irq instead, and it gets the module licence it lacks.
set -euo pipefail
source_tar=$1
out=$2
top=$(basename "$source_tar" .tar.xz)
rm -rf "$out" && mkdir -p "$out"
tar -xJf "$source_tar" -C "$out" --strip-components=1 \
    "$top"/kernel/irq/irq_sim.c "$top"/drivers/gpio/gpio-sim.c "$top"/drivers/gpio/gpiolib.h \
    "$top"/drivers/gpu/drm/vkms "$top"/drivers/media/test-drivers/vimc
(cd "$out" && mv kernel/irq/irq_sim.c drivers/gpio/gpio-sim.c drivers/gpio/gpiolib.h \
    drivers/gpu/drm/vkms/*.[ch] drivers/media/test-drivers/vimc/*.[ch] . && rm -rf kernel drivers)
grep -q 'handle_simple_irq(irq_to_desc(irqnum));' "$out/irq_sim.c" ||
    { echo "irq_sim.c of $top no longer calls handle_simple_irq(irq_to_desc(...)): look again" >&2; exit 1; }
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$out/irq_sim.c"
sed -i '0,/#include/s//#include <linux\/module.h>\n#include/' "$out/irq_sim.c"
printf '\nMODULE_LICENSE("GPL");\n' >> "$out/irq_sim.c"
cp "$(dirname "$0")/Kbuild.modules" "$out/Kbuild"
