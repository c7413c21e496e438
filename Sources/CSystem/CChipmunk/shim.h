// Chipmunk2D 7, the jar's 2D physics (Debian's libchipmunk-dev).
#include <chipmunk/chipmunk.h>
