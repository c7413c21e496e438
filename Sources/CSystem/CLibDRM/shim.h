// libdrm's headers, found through pkg-config (they live in /usr/include/libdrm). The station calls
// libdrm only through CSnapDisplay; this target exists to carry the include path and the link.
#include <xf86drm.h>
#include <xf86drmMode.h>
