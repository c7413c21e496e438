// ss_http: one HTTP request through libcurl, described by a plain struct.
//
// Why this shim exists: curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
// Rather than one wrapper per option, the shim takes the whole request, sets every option in C, performs
// it, and hands back status, headers and body. TLS verification is always on; it cannot be turned off.
#ifndef SS_HTTP_H
#define SS_HTTP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What to send.
typedef struct ss_http_request {
    const char *url;
    /// "GET", "POST", "PUT", "PATCH" or "DELETE".
    const char *method;
    /// "Name: value" lines, `header_count` of them.
    const char *const *headers;
    size_t header_count;
    const unsigned char *body;
    size_t body_length;
    long connect_timeout_ms;
    long total_timeout_ms;
    /// A CA bundle to trust instead of the system's (tests with a private CA); NULL for the system's.
    const char *ca_file;
    /// The largest body accepted; a longer one stops the transfer (`body_too_large`). 0: no limit.
    size_t max_body_bytes;
} ss_http_request;

/// Called as bytes move; return non-zero to abort the transfer (cancellation).
typedef int (*ss_http_progress)(void *context, int64_t upload_total, int64_t upload_now, int64_t download_total,
                                int64_t download_now);

/// What came back. `body` and `headers` are malloc'd: free them with `ss_http_response_free`.
typedef struct ss_http_response {
    long status;
    unsigned char *body;
    size_t body_length;
    char *headers;
    size_t headers_length;
    /// libcurl's CURLcode; 0 when the exchange completed (whatever the HTTP status).
    int curl_code;
    /// The body passed `max_body_bytes`; the transfer was stopped there.
    int body_too_large;
    char error[256];
} ss_http_response;

/// Initialises libcurl once per process; safe to call more than once.
void ss_http_global_init(void);

/// Performs `request`; fills `response`. Returns `response->curl_code`.
int ss_http_perform(const ss_http_request *request, ss_http_progress progress, void *context,
                    ss_http_response *response);

void ss_http_response_free(ss_http_response *response);

#ifdef __cplusplus
}
#endif

#endif
