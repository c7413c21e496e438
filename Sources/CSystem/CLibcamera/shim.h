// libcamera's version header, found through pkg-config (/usr/include/libcamera). The station reaches
// libcamera only through CSnapCamera, a C++ target; this target carries the include path and the links.
#include <libcamera/version.h>
