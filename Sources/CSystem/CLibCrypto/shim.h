// OpenSSL's libcrypto, for the owner's page: SHA-256 of session tokens (stored hashed) and random bytes.
// libcurl already links it on Debian (libcurl4-openssl-dev), so it costs nothing more.
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
