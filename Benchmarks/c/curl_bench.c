/*
 * curl_bench: the floor for any libcurl client in Rebound's transport benchmark.
 *
 * It drives libcurl the way a careful C program would, so that the Swift clients
 * can be judged against what libcurl itself costs on the same machine, in the
 * same round, against the same server:
 *
 *   - sequential and download1m: one easy handle, curl_easy_perform in a loop,
 *     one keep-alive connection;
 *   - concurrent16 (any --concurrency above 1): one multi handle with that many
 *     easy handles, each re-added as soon as it finishes, CURLMOPT_MAXCONNECTS and
 *     CURLMOPT_MAX_HOST_CONNECTIONS set so the connection cache holds exactly
 *     one connection per handle.
 *
 * Every response body is appended to a buffer owned by its easy handle. The
 * buffer is reset, never freed, between requests, so after the first response
 * no request allocates. libcurl's receive buffers are kept for reuse (see
 * cache_malloc below).
 *
 * With --client c-options it also asks of libcurl what Rebound's CurlTransport
 * asks, so that libcurl's cost for Rebound's features can be told apart from
 * the cost of Rebound's own code:
 *
 *   - the options CurlEasyHandle sets once per handle: transparent decoding
 *     (CURLOPT_ACCEPT_ENCODING with the same encodings), keep-alive probes,
 *     PIPEWAIT, the protocol list, the pre-request callback, an error buffer,
 *     the URL parsed once and given as a CURLU handle (CURLOPT_CURLU), which
 *     spares libcurl parsing it and writing it out again for every request;
 *   - every option CurlTransfer.configure sets before each request: URL,
 *     redirect protocols and limit, connect and total timeouts, body limit,
 *     HTTP version, method;
 *   - a header callback that keeps each response's head;
 *   - the facts CurlTransfer.completion reads after each request.
 *
 * Like Rebound, it sends the Accept-Encoding line from a header list, which
 * keeps libcurl from formatting its own twice per request (docs/performance.md).
 *
 * It prints one JSON line, the same as the Swift clients print:
 *   {"client":"c","workload":...,"requests":N,"seconds":S,"rps":R,"p50_us":X,
 *    "p99_us":Y,"mbps":M,"peak_rss_kib":K,"start_rss_kib":B,"cpu_seconds":C,
 *    "failures":F}
 * where mbps is response-body megabytes (10^6 bytes) per second, start_rss_kib
 * is the peak RSS when main began (libc, libcurl and its libraries loaded), and
 * cpu_seconds is user plus system time spent in the measured phase only. A run
 * with any failure (transport error, status other than 200, wrong body length)
 * says so on stderr and exits 1.
 *
 * Build: cc -O2 -Wall -Wextra -o curl-bench curl_bench.c -lcurl
 */
#include <curl/curl.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/*
 * libcurl's memory functions: the C library's, except that receive buffers are
 * kept for reuse, as Rebound does (Sources/ReboundCurl/CurlMemory.swift).
 * libcurl 7.88 allocates a transfer's receive buffer (CURL_MAX_WRITE_SIZE + 1
 * bytes) when the transfer starts and frees it when it ends; freed at the top
 * of the heap, glibc gives the memory back and faults it in again, which cost
 * this program up to 18,000 page faults and 5,000 brk calls per 40,000
 * requests with 16 in flight, in some runs and not others.
 */
#define RECEIVE_BUFFER_SIZE (CURL_MAX_WRITE_SIZE + 1)
#define MAX_CACHED_BUFFERS 64
static void *cached_buffers[MAX_CACHED_BUFFERS];
static int cached_count;
static size_t buffer_usable_size;

static void *cache_malloc(size_t size) {
    if (size == RECEIVE_BUFFER_SIZE && cached_count > 0) return cached_buffers[--cached_count];
    void *block = malloc(size);
    if (block != NULL && size == RECEIVE_BUFFER_SIZE && buffer_usable_size == 0)
        buffer_usable_size = malloc_usable_size(block);
    return block;
}

static void cache_free(void *block) {
    if (block != NULL && buffer_usable_size != 0 && cached_count < MAX_CACHED_BUFFERS
        && malloc_usable_size(block) == buffer_usable_size) {
        cached_buffers[cached_count++] = block;
        return;
    }
    free(block);
}

static void *cache_realloc(void *block, size_t size) { return realloc(block, size); }
static char *cache_strdup(const char *string) { return strdup(string); }
static void *cache_calloc(size_t count, size_t size) { return calloc(count, size); }

/* A growable byte buffer: reset between responses, grown only when a response is larger than any before. */
struct body_buffer {
    char *bytes;
    size_t length;
    size_t capacity;
};

/* One easy handle with its own body buffer and the time its current request started. */
struct transfer {
    CURL *easy;
    CURLU *url; /* c-options: the URL, parsed once (CurlEasyHandle.setURL) */
    struct body_buffer body;
    struct body_buffer head;
    uint64_t started_ns;
    long requests_sent;
    char error[CURL_ERROR_SIZE];
};

struct tally {
    uint64_t *latencies_ns; /* one per measured request, in completion order */
    size_t completed;
    size_t failures;
    uint64_t body_bytes;
    int record;             /* 0 during warm-up */
};

struct options {
    const char *workload;
    const char *url;
    long expect_bytes;
    long requests;
    long warmup;
    long concurrency;
    int rebound_options; /* --client c-options */
};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6
         + (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static long peak_rss_kib(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss; /* KiB on Linux */
}

static size_t append_body(char *data, size_t size, size_t count, void *userdata) {
    struct body_buffer *body = userdata;
    size_t incoming = size * count;
    if (body->length + incoming > body->capacity) {
        size_t capacity = body->capacity ? body->capacity : 16384;
        while (capacity < body->length + incoming) capacity *= 2;
        char *grown = realloc(body->bytes, capacity);
        if (grown == NULL) return 0; /* makes libcurl fail the transfer with CURLE_WRITE_ERROR */
        body->bytes = grown;
        body->capacity = capacity;
    }
    memcpy(body->bytes + body->length, data, incoming);
    body->length += incoming;
    return incoming;
}

/* Keeps a response's head the way Rebound does: a status line starts a new head. */
static size_t append_header(char *data, size_t size, size_t count, void *userdata) {
    struct body_buffer *head = userdata;
    size_t incoming = size * count;
    if (incoming >= 5 && memcmp(data, "HTTP/", 5) == 0) head->length = 0;
    return append_body(data, size, count, head);
}

static int count_request(void *userdata, char *conn_primary_ip, char *conn_local_ip, int conn_primary_port,
                         int conn_local_port) {
    (void)conn_primary_ip, (void)conn_local_ip, (void)conn_primary_port, (void)conn_local_port;
    ((struct transfer *)userdata)->requests_sent++;
    return CURL_PREREQFUNC_OK;
}

/* The Accept-Encoding value Rebound offers (CurlGlobal.acceptedEncodings): what this libcurl decodes, without deflate. */
static const char *accepted_encodings(void) {
    static char value[32];
    if (value[0] == 0) {
        curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
        const char *names[3] = {NULL, NULL, NULL};
        int count = 0;
        if (info->features & CURL_VERSION_LIBZ) names[count++] = "gzip";
        if (info->features & CURL_VERSION_BROTLI) names[count++] = "br";
        if (info->features & CURL_VERSION_ZSTD) names[count++] = "zstd";
        for (int i = 0; i < count; i++) {
            if (i > 0) strcat(value, ", ");
            strcat(value, names[i]);
        }
    }
    return value[0] ? value : NULL;
}

static int transfer_init(struct transfer *transfer, const struct options *options) {
    memset(transfer, 0, sizeof *transfer);
    transfer->easy = curl_easy_init();
    if (transfer->easy == NULL) return -1;
    curl_easy_setopt(transfer->easy, CURLOPT_URL, options->url);
    curl_easy_setopt(transfer->easy, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(transfer->easy, CURLOPT_WRITEDATA, &transfer->body);
    curl_easy_setopt(transfer->easy, CURLOPT_PRIVATE, transfer);
    curl_easy_setopt(transfer->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(transfer->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    if (options->rebound_options) {
        /* What CurlEasyHandle.init sets once per handle, the parsed URL included (Rebound parses
           a URL when a handle's transfer goes somewhere new; here it never does). */
        transfer->url = curl_url();
        if (transfer->url == NULL || curl_url_set(transfer->url, CURLUPART_URL, options->url, 0) != CURLUE_OK) return -1;
        curl_easy_setopt(transfer->easy, CURLOPT_CURLU, transfer->url);
        curl_easy_setopt(transfer->easy, CURLOPT_ERRORBUFFER, transfer->error);
        curl_easy_setopt(transfer->easy, CURLOPT_HEADERFUNCTION, append_header);
        curl_easy_setopt(transfer->easy, CURLOPT_PREREQFUNCTION, count_request);
        curl_easy_setopt(transfer->easy, CURLOPT_PREREQDATA, transfer);
        curl_easy_setopt(transfer->easy, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(transfer->easy, CURLOPT_ACCEPT_ENCODING, accepted_encodings());
        curl_easy_setopt(transfer->easy, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(transfer->easy, CURLOPT_PIPEWAIT, 1L);
    }
    return 0;
}

/* The header list of a request without fields of its own: the Accept-Encoding line (RequestHeaderList). */
static struct curl_slist *accept_encoding_list(void) {
    static struct curl_slist *list;
    static char line[64];
    if (list == NULL && accepted_encodings() != NULL) {
        snprintf(line, sizeof line, "Accept-Encoding: %s", accepted_encodings());
        list = curl_slist_append(NULL, line);
    }
    return list;
}

/* What CurlTransfer.configure sets before every request, with the transport's default options, for a GET. */
static void transfer_prepare(struct transfer *transfer, const struct options *options) {
    if (!options->rebound_options) return;
    CURL *easy = transfer->easy;
    transfer->error[0] = 0;
    transfer->requests_sent = 0;
    curl_easy_setopt(easy, CURLOPT_URL, options->url);
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &transfer->body);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &transfer->head);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 60000L);
    curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(32 * 1024 * 1024));
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(easy, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, accept_encoding_list());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, NULL);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)-1);
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, NULL);
    curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
}

/* What CurlTransfer.completion reads after every request. */
static void transfer_complete(struct transfer *transfer, const struct options *options) {
    if (!options->rebound_options) return;
    long value = 0;
    curl_off_t offset = 0;
    curl_easy_getinfo(transfer->easy, CURLINFO_HTTP_VERSION, &value);
    curl_easy_getinfo(transfer->easy, CURLINFO_REDIRECT_COUNT, &value);
    curl_easy_getinfo(transfer->easy, CURLINFO_NUM_CONNECTS, &value);
    curl_easy_getinfo(transfer->easy, CURLINFO_PRETRANSFER_TIME_T, &offset);
    transfer->head.length = 0;
}

/* Judges a finished transfer and resets its buffer for the next request. */
static void finish(struct tally *tally, struct transfer *transfer, CURLcode result, const struct options *options) {
    uint64_t elapsed = now_ns() - transfer->started_ns;
    transfer_complete(transfer, options);
    long status = 0;
    curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
    int ok = result == CURLE_OK && status == 200 && (long)transfer->body.length == options->expect_bytes;
    if (!ok) {
        if (tally->failures < 5) {
            fprintf(stderr, "curl-bench: request failed: %s, status %ld, %zu bytes (expected %ld)\n",
                    curl_easy_strerror(result), status, transfer->body.length, options->expect_bytes);
        }
        tally->failures++;
    }
    if (tally->record) {
        tally->latencies_ns[tally->completed] = elapsed;
        tally->body_bytes += transfer->body.length;
    }
    tally->completed++;
    transfer->body.length = 0;
}

static void run_sequential(struct transfer *transfer, struct tally *tally, long count, const struct options *options) {
    for (long i = 0; i < count; i++) {
        transfer->started_ns = now_ns();
        transfer_prepare(transfer, options);
        CURLcode result = curl_easy_perform(transfer->easy);
        finish(tally, transfer, result, options);
    }
}

static void run_concurrent(CURLM *multi, struct transfer *transfers, struct tally *tally, long count,
                           const struct options *options) {
    long started = 0;
    for (long i = 0; i < options->concurrency && started < count; i++, started++) {
        transfers[i].started_ns = now_ns();
        transfer_prepare(&transfers[i], options);
        curl_multi_add_handle(multi, transfers[i].easy);
    }
    size_t target = tally->completed + (size_t)count;
    while (tally->completed < target) {
        int running = 0;
        CURLMcode code = curl_multi_perform(multi, &running);
        if (code != CURLM_OK) {
            fprintf(stderr, "curl-bench: curl_multi_perform: %s\n", curl_multi_strerror(code));
            exit(1);
        }
        int finished_any = 0;
        int queued = 0;
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            CURLcode result = message->data.result;
            struct transfer *transfer = NULL;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&transfer);
            curl_multi_remove_handle(multi, easy); /* invalidates message */
            finish(tally, transfer, result, options);
            finished_any = 1;
            if (started < count) {
                started++;
                transfer->started_ns = now_ns();
                transfer_prepare(transfer, options);
                curl_multi_add_handle(multi, easy);
            }
        }
        /* Re-added handles start on the next curl_multi_perform; wait only when nothing finished. */
        if (!finished_any) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values, in microseconds: the smallest value with at least that share at or below it. */
static double percentile_us(const uint64_t *sorted, size_t count, size_t percent) {
    if (count == 0) return 0;
    size_t rank = (percent * count + 99) / 100; /* ceil(percent/100 * count) */
    if (rank < 1) rank = 1;
    return (double)sorted[rank - 1] / 1000.0;
}

static long parse_long(const char *flag, const char *text) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0) {
        fprintf(stderr, "curl-bench: %s needs a non-negative integer, not '%s'\n", flag, text);
        exit(2);
    }
    return value;
}

static void usage(void) {
    fprintf(stderr,
            "usage: curl-bench [--client c|c-options] --workload NAME --url URL --expect-bytes N\n"
            "                  [--requests N] [--warmup N] [--concurrency N]\n"
            "workloads and their defaults:\n"
            "  sequential: 20000 requests after 500, 1 in flight\n"
            "  concurrent16: 40000 requests after 500, 16 in flight\n"
            "  download1m: 500 requests after 20, 1 in flight\n"
            "an unknown workload needs --requests and --warmup\n");
    exit(2);
}

/* The defaults of the known workloads, the same as the Swift clients' (see Workload in BenchmarkOptions.swift). */
static void apply_workload_defaults(struct options *options) {
    if (strcmp(options->workload, "sequential") == 0) {
        options->requests = 20000, options->warmup = 500, options->concurrency = 1;
    } else if (strcmp(options->workload, "concurrent16") == 0) {
        options->requests = 40000, options->warmup = 500, options->concurrency = 16;
    } else if (strcmp(options->workload, "download1m") == 0) {
        options->requests = 500, options->warmup = 20, options->concurrency = 1;
    }
}

static struct options parse_options(int argc, char **argv) {
    struct options options = {NULL, NULL, -1, -1, -1, 1, 0};
    /* The workload comes first, so that flags given later override its defaults. */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--workload") == 0) {
            options.workload = argv[i + 1];
            apply_workload_defaults(&options);
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        if (i + 1 >= argc) usage();
        const char *value = argv[++i];
        if (strcmp(flag, "--workload") == 0) continue; /* read above */
        else if (strcmp(flag, "--client") == 0 && strcmp(value, "c") == 0) options.rebound_options = 0;
        else if (strcmp(flag, "--client") == 0 && strcmp(value, "c-options") == 0) options.rebound_options = 1;
        else if (strcmp(flag, "--url") == 0) options.url = value;
        else if (strcmp(flag, "--expect-bytes") == 0) options.expect_bytes = parse_long(flag, value);
        else if (strcmp(flag, "--requests") == 0) options.requests = parse_long(flag, value);
        else if (strcmp(flag, "--warmup") == 0) options.warmup = parse_long(flag, value);
        else if (strcmp(flag, "--concurrency") == 0) options.concurrency = parse_long(flag, value);
        else usage();
    }
    if (options.workload == NULL || options.url == NULL || options.expect_bytes < 0
        || options.requests < 1 || options.warmup < 0 || options.concurrency < 1) {
        usage();
    }
    return options;
}

int main(int argc, char **argv) {
    long start_rss_kib = peak_rss_kib();
    struct options options = parse_options(argc, argv);
    /* Single-threaded, so the cache needs no lock. */
    if (curl_global_init_mem(CURL_GLOBAL_DEFAULT, cache_malloc, cache_free, cache_realloc, cache_strdup,
                             cache_calloc) != CURLE_OK) {
        fprintf(stderr, "curl-bench: curl_global_init failed\n");
        return 1;
    }

    long handles = options.concurrency;
    struct transfer *transfers = calloc((size_t)handles, sizeof *transfers);
    struct tally tally = {calloc((size_t)options.requests, sizeof(uint64_t)), 0, 0, 0, 0};
    if (transfers == NULL || tally.latencies_ns == NULL) {
        fprintf(stderr, "curl-bench: out of memory\n");
        return 1;
    }
    for (long i = 0; i < handles; i++) {
        if (transfer_init(&transfers[i], &options) != 0) {
            fprintf(stderr, "curl-bench: curl_easy_init failed\n");
            return 1;
        }
    }

    CURLM *multi = NULL;
    if (options.concurrency > 1) {
        multi = curl_multi_init();
        /* One cached connection per easy handle: without these a busy multi opens far more. */
        curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, handles);
        curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, handles);
    }

    /* Warm-up: opens the connections and grows the buffers; not measured, but judged. */
    if (multi) run_concurrent(multi, transfers, &tally, options.warmup, &options);
    else run_sequential(&transfers[0], &tally, options.warmup, &options);
    size_t warmup_failures = tally.failures;

    tally.completed = 0;
    tally.record = 1;
    double cpu_before = cpu_seconds();
    uint64_t started = now_ns();
    if (multi) run_concurrent(multi, transfers, &tally, options.requests, &options);
    else run_sequential(&transfers[0], &tally, options.requests, &options);
    double seconds = (double)(now_ns() - started) / 1e9;
    double cpu = cpu_seconds() - cpu_before;

    qsort(tally.latencies_ns, tally.completed, sizeof(uint64_t), compare_u64);
    printf("{\"client\":\"%s\",\"workload\":\"%s\",\"requests\":%zu,\"seconds\":%.6f,\"rps\":%.1f,"
           "\"p50_us\":%.1f,\"p99_us\":%.1f,\"mbps\":%.1f,\"peak_rss_kib\":%ld,\"start_rss_kib\":%ld,"
           "\"cpu_seconds\":%.6f,\"failures\":%zu}\n",
           options.rebound_options ? "c-options" : "c", options.workload, tally.completed, seconds, (double)tally.completed / seconds,
           percentile_us(tally.latencies_ns, tally.completed, 50),
           percentile_us(tally.latencies_ns, tally.completed, 99),
           (double)tally.body_bytes / seconds / 1e6, peak_rss_kib(), start_rss_kib, cpu,
           tally.failures);
    fflush(stdout);

    for (long i = 0; i < handles; i++) {
        if (multi) curl_multi_remove_handle(multi, transfers[i].easy);
        curl_easy_cleanup(transfers[i].easy);
        curl_url_cleanup(transfers[i].url);
        free(transfers[i].body.bytes);
    }
    if (multi) curl_multi_cleanup(multi);
    free(transfers);
    free(tally.latencies_ns);
    curl_global_cleanup();

    size_t failures = tally.failures; /* warm-up included */
    if (failures > 0) {
        fprintf(stderr, "curl-bench: %zu of %ld requests failed (%zu in warm-up)\n", failures,
                options.requests + options.warmup, warmup_failures);
        return 1;
    }
    return 0;
}
