#!/bin/sh
# Builds the GPIO shim against libgpiod v2 and runs a small check with it.
#
# Debian bookworm ships only libgpiod 1.6, so `swift build` here compiles the shim's v1 half. The v2 half
# (what Raspberry Pi OS trixie builds) is compiled here from libgpiod's own C sources, which the `gpiod`
# package on PyPI ships in its source archive, with -Werror, then linked and run: the library reports
# v2, kernel debounce, and a missing chip as ENOENT.
set -eu
version="${LIBGPIOD_V2_VERSION:-2.2.3}"
here="$(cd "$(dirname "$0")" && pwd)"
shim="$here/../../Sources/CSystem/CSnapGPIO"
work="${TMPDIR:-/tmp}/snapstation-libgpiod-v2"
mkdir -p "$work"
cd "$work"
if [ ! -d "gpiod-$version" ]; then
    python3 -m pip download --quiet --no-deps --no-binary :all: "gpiod==$version" -d . \
        || { echo "libgpiod v2 check skipped: cannot download gpiod==$version from PyPI"; exit 0; }
    tar xzf "gpiod-$version.tar.gz"
fi
src="gpiod-$version"
for file in "$src"/lib/*.c; do
    gcc -c -O1 -D_GNU_SOURCE -DGPIOD_VERSION_STR="\"$version\"" -I"$src/include" -I"$src/lib" "$file" \
        -o "$(basename "$file" .c).o"
done
gcc -std=c11 -Wall -Wextra -Werror -c -D_GNU_SOURCE -I"$src/include" -I"$shim/include" "$shim/ss_gpio.c" -o ss_gpio.o
cat > check.c <<'C'
#include <errno.h>
#include <stdio.h>
#include "ss_gpio.h"
int main(void) {
    ss_gpio_chip *chip = NULL;
    int missing = ss_gpio_chip_open("snapstation-no-such-chip", &chip);
    printf("libgpiod v2 shim: api %d, kernel debounce %d, missing chip %d\n", ss_gpio_api_version(),
           ss_gpio_kernel_debounce(), missing);
    return ss_gpio_api_version() == 2 && ss_gpio_kernel_debounce() && missing == -ENOENT ? 0 : 1;
}
C
gcc -Wall -Werror -I"$shim/include" check.c ./*.o -o check
./check
