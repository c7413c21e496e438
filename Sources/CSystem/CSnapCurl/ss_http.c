// See ss_http.h for why this shim exists.
#include "ss_http.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct buffer {
    unsigned char *data;
    size_t length;
    size_t capacity;
    size_t limit;
    int failed;
    int too_large;
} buffer;

static size_t append(buffer *into, const void *data, size_t length) {
    if (into->limit && into->length + length > into->limit) {
        into->too_large = 1;
        return 0;  // libcurl then stops with CURLE_WRITE_ERROR
    }
    if (into->length + length + 1 > into->capacity) {
        size_t capacity = into->capacity ? into->capacity : 4096;
        while (capacity < into->length + length + 1) capacity *= 2;
        unsigned char *grown = realloc(into->data, capacity);
        if (!grown) {
            into->failed = 1;
            return 0;  // libcurl then stops with CURLE_WRITE_ERROR
        }
        into->data = grown;
        into->capacity = capacity;
    }
    memcpy(into->data + into->length, data, length);
    into->length += length;
    into->data[into->length] = 0;
    return length;
}

static size_t on_data(char *data, size_t size, size_t count, void *context) {
    return append(context, data, size * count);
}

typedef struct progress_context {
    ss_http_progress callback;
    void *context;
} progress_context;

static int on_progress(void *context, curl_off_t download_total, curl_off_t download_now, curl_off_t upload_total,
                       curl_off_t upload_now) {
    progress_context *progress = context;
    return progress->callback(progress->context, upload_total, upload_now, download_total, download_now);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }
void ss_http_global_init(void) { pthread_once(&once, init_once); }

int ss_http_perform(const ss_http_request *request, ss_http_progress progress, void *context,
                    ss_http_response *response) {
    memset(response, 0, sizeof *response);
    ss_http_global_init();
    CURL *curl = curl_easy_init();
    if (!curl) {
        response->curl_code = CURLE_FAILED_INIT;
        strcpy(response->error, "curl_easy_init failed");
        return response->curl_code;
    }
    buffer body = {0}, headers = {0};
    body.limit = request->max_body_bytes;
    // Headers are small unless a server misbehaves; cap them so it cannot fill the memory.
    headers.limit = 256 * 1024;
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < request->header_count; i++) list = curl_slist_append(list, request->headers[i]);
    progress_context progress_state = {progress, context};

    curl_easy_setopt(curl, CURLOPT_URL, request->url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request->method);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    if (request->body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request->body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
    } else if (strcmp(request->method, "GET") == 0) {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    // Never turned off: a station must not send photos or keys to whoever answers.
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    if (request->ca_file) curl_easy_setopt(curl, CURLOPT_CAINFO, request->ca_file);
    // Timeouts without SIGALRM: the station is multithreaded.
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &headers);
    if (progress) {
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &progress_state);
    }
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, response->error);

    CURLcode code = curl_easy_perform(curl);
    response->curl_code = (int)code;
    response->body_too_large = body.too_large;
    if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response->status);
    if (code != CURLE_OK && response->error[0] == 0) {
        strncpy(response->error, curl_easy_strerror(code), sizeof response->error - 1);
    }
    response->body = body.data;
    response->body_length = body.length;
    response->headers = (char *)headers.data;
    response->headers_length = headers.length;
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return response->curl_code;
}

void ss_http_response_free(ss_http_response *response) {
    free(response->body);
    free(response->headers);
    response->body = NULL;
    response->headers = NULL;
}
