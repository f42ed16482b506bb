// A thin, non-variadic face over libcurl for Swift.
//
// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic C
// functions, which Swift cannot call. Each wrapper below fixes the type of the
// variadic argument, so Swift sees an ordinary function. They are static
// inline: the compiler folds them away and calling libcurl costs nothing more.
#ifndef REBOUND_CCURL_SHIM_H
#define REBOUND_CCURL_SHIM_H

#include <curl/curl.h>
#include <malloc.h>
// epoll and eventfd, which Swift's Glibc module does not bring in: the transport's loop waits on
// them for libcurl's sockets and for its own wake-ups.
#include <sys/epoll.h>
#include <sys/eventfd.h>

// The usable size of a block from malloc (glibc's malloc_usable_size, which Swift's Glibc module
// does not bring in): how CurlMemory recognises a freed receive buffer.
static inline size_t rebound_malloc_usable_size(void *pointer) {
    return malloc_usable_size(pointer);
}

static inline CURLcode rebound_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rebound_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rebound_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rebound_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rebound_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rebound_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rebound_easy_setopt_prereq_function(CURL *handle, CURLoption option, curl_prereq_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rebound_easy_setopt_sockopt_function(CURL *handle, curl_sockopt_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, value);
}

static inline CURLcode rebound_easy_setopt_closesocket_function(CURL *handle, curl_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}

static inline CURLcode rebound_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode rebound_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode rebound_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode rebound_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLSHcode rebound_share_setopt_long(CURLSH *share, CURLSHoption option, long value) {
    return curl_share_setopt(share, option, value);
}

static inline CURLSHcode rebound_share_setopt_pointer(CURLSH *share, CURLSHoption option, void *value) {
    return curl_share_setopt(share, option, value);
}

static inline CURLSHcode rebound_share_setopt_lock_function(CURLSH *share, curl_lock_function value) {
    return curl_share_setopt(share, CURLSHOPT_LOCKFUNC, value);
}

static inline CURLSHcode rebound_share_setopt_unlock_function(CURLSH *share, curl_unlock_function value) {
    return curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, value);
}

static inline CURLMcode rebound_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLMcode rebound_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLMcode rebound_multi_setopt_socket_function(CURLM *handle, curl_socket_callback value) {
    return curl_multi_setopt(handle, CURLMOPT_SOCKETFUNCTION, value);
}

static inline CURLMcode rebound_multi_setopt_timer_function(CURLM *handle, curl_multi_timer_callback value) {
    return curl_multi_setopt(handle, CURLMOPT_TIMERFUNCTION, value);
}

#endif
