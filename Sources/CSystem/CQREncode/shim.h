// libqrencode, for the pairing screen's QR code (Debian's libqrencode-dev).
#include <qrencode.h>
