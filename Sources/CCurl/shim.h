// libcurl's headers; the table of libcurl's functions that XferCurl calls, filled when libcurl
// is loaded (see CurlLibrary.swift); typed wrappers for libcurl's variadic functions, which
// Swift cannot call; and glibc's mallopt for libcurl's receive buffers (malloc.h is not in
// Swift's Glibc module; see ReceiveBufferMemory.swift). Nothing else lives here: all logic
// is in the XferCurl module.
#ifndef XFERBATCH_CCURL_SHIM_H
#define XFERBATCH_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>

/// Every libcurl function XferCurl calls. A new call needs its name here too: the binary
/// does not link libcurl, so a direct call fails to link.
/// After editing the list, rebuild XferCurl and its tests from scratch (`rm -rf
/// .build/*/debug/XferCurl*.build .build/*/debug/ModuleCache`): an incremental build has kept
/// objects compiled against the old table, which then read the wrong fields (a test
/// crashed on a null function pointer).
#define XB_CURL_FUNCTIONS(F) \
    F(curl_easy_cleanup) \
    F(curl_easy_getinfo) \
    F(curl_easy_init) \
    F(curl_easy_pause) \
    F(curl_easy_reset) \
    F(curl_easy_setopt) \
    F(curl_easy_strerror) \
    F(curl_free) \
    F(curl_global_init) \
    F(curl_mime_addpart) \
    F(curl_mime_data) \
    F(curl_mime_data_cb) \
    F(curl_mime_filename) \
    F(curl_mime_free) \
    F(curl_mime_init) \
    F(curl_mime_name) \
    F(curl_mime_type) \
    F(curl_multi_add_handle) \
    F(curl_multi_cleanup) \
    F(curl_multi_info_read) \
    F(curl_multi_init) \
    F(curl_multi_perform) \
    F(curl_multi_poll) \
    F(curl_multi_remove_handle) \
    F(curl_multi_setopt) \
    F(curl_multi_strerror) \
    F(curl_multi_wakeup) \
    F(curl_slist_append) \
    F(curl_slist_free_all) \
    F(curl_url) \
    F(curl_url_cleanup) \
    F(curl_url_get) \
    F(curl_url_set) \
    F(curl_version_info)

/// libcurl's functions, one field each, typed by libcurl's own declarations (`__typeof__`),
/// so a call through the table is checked as a direct call would be. (Swift sees the
/// variadic ones as opaque pointers: the wrappers below call them.)
struct xb_curl_functions {
#define XB_CURL_FIELD(name) __typeof__(name) *_Nonnull name;
    XB_CURL_FUNCTIONS(XB_CURL_FIELD)
#undef XB_CURL_FIELD
};

/// Loads libcurl (`soname`, e.g. "libcurl.so.4") and looks up every function of the table.
/// Returns the table, allocated once and never freed (the library stays loaded for the
/// process), or NULL with `failure` set to dlopen's message, or `missing` to the name of a
/// function the library lacks (static or thread-local strings: copy them at once).
static inline const struct xb_curl_functions *_Nullable xb_curl_load(const char *_Nonnull soname,
                                                                    const char *_Nullable *_Nonnull failure,
                                                                    const char *_Nullable *_Nonnull missing) {
    *failure = NULL;
    *missing = NULL;
    // Lazy binding, as for a linked library: each library's own calls resolve on first use
    // (RTLD_NOW resolved every one of them up front, 0.5 to 1.3 ms more CPU for libcurl's).
    void *library = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) {
        *failure = dlerror();
        return NULL;
    }
    struct xb_curl_functions *table = malloc(sizeof *table);
    if (table == NULL) {
        *failure = "out of memory";
        dlclose(library);
        return NULL;
    }
#define XB_CURL_LOOKUP(name) \
    table->name = (__typeof__(name) *)dlsym(library, #name); \
    if (table->name == NULL) { *missing = #name; free(table); dlclose(library); return NULL; }
    XB_CURL_FUNCTIONS(XB_CURL_LOOKUP)
#undef XB_CURL_LOOKUP
    return table;
}

/// libcurl's variadic functions, called through the table with typed arguments.
static inline CURLcode xb_easy_setopt_long(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLoption o, long v) { return lib->curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_off(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLoption o, curl_off_t v) { return lib->curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_string(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLoption o, const char *v) { return lib->curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_pointer(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLoption o, void *v) { return lib->curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_slist(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLoption o, struct curl_slist *v) { return lib->curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_mime(const struct xb_curl_functions *_Nonnull lib, CURL *h, curl_mime *v) { return lib->curl_easy_setopt(h, CURLOPT_MIMEPOST, v); }
static inline CURLcode xb_easy_setopt_write_function(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLoption o, curl_write_callback f) { return lib->curl_easy_setopt(h, o, f); }
static inline CURLcode xb_easy_setopt_read_function(const struct xb_curl_functions *_Nonnull lib, CURL *h, curl_read_callback f) { return lib->curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode xb_easy_setopt_seek_function(const struct xb_curl_functions *_Nonnull lib, CURL *h, curl_seek_callback f) { return lib->curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline CURLcode xb_easy_setopt_sshkey_function(const struct xb_curl_functions *_Nonnull lib, CURL *h, curl_sshkeycallback f) { return lib->curl_easy_setopt(h, CURLOPT_SSH_KEYFUNCTION, f); }
static inline CURLcode xb_easy_setopt_xferinfo_function(const struct xb_curl_functions *_Nonnull lib, CURL *h, curl_xferinfo_callback f) { return lib->curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode xb_easy_setopt_closesocket_function(const struct xb_curl_functions *_Nonnull lib, CURL *h, curl_closesocket_callback f) { return lib->curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, f); }

static inline CURLcode xb_easy_getinfo_long(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLINFO i, long *v) { return lib->curl_easy_getinfo(h, i, v); }
static inline CURLcode xb_easy_getinfo_off(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLINFO i, curl_off_t *v) { return lib->curl_easy_getinfo(h, i, v); }
static inline CURLcode xb_easy_getinfo_string(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLINFO i, char **v) { return lib->curl_easy_getinfo(h, i, v); }
static inline CURLcode xb_easy_getinfo_pointer(const struct xb_curl_functions *_Nonnull lib, CURL *h, CURLINFO i, void **v) { return lib->curl_easy_getinfo(h, i, v); }

static inline curl_version_info_data *xb_version_info(const struct xb_curl_functions *_Nonnull lib) { return lib->curl_version_info(CURLVERSION_NOW); }
static inline CURLMcode xb_multi_setopt_long(const struct xb_curl_functions *_Nonnull lib, CURLM *m, CURLMoption o, long v) { return lib->curl_multi_setopt(m, o, v); }

/// Flag macros with casts, which Swift does not import.
static const long XB_CURLAUTH_BASIC = (long)CURLAUTH_BASIC;
static const long XB_CURLAUTH_BEARER = (long)CURLAUTH_BEARER;
static const long XB_CURLSSH_AUTH_PUBLICKEY = (long)CURLSSH_AUTH_PUBLICKEY;
static const long XB_CURLSSH_AUTH_PASSWORD = (long)CURLSSH_AUTH_PASSWORD;
static const long XB_CURLSSH_AUTH_AGENT = (long)CURLSSH_AUTH_AGENT;
static const long XB_CURLPIPE_MULTIPLEX = (long)CURLPIPE_MULTIPLEX;
static const long XB_CURLUSESSL_ALL = (long)CURLUSESSL_ALL;
static const long XB_CURL_REDIR_POST_301_302 = (long)(CURL_REDIR_POST_301 | CURL_REDIR_POST_302);
static const long XB_CURL_ERROR_SIZE = CURL_ERROR_SIZE;
static const long XB_CURL_READFUNC_ABORT = (long)CURL_READFUNC_ABORT;
static const long XB_CURL_READFUNC_PAUSE = (long)CURL_READFUNC_PAUSE;
static const long XB_CURL_WRITEFUNC_PAUSE = (long)CURL_WRITEFUNC_PAUSE;
static const int XB_CURLPAUSE_CONT = CURLPAUSE_CONT;

/// The `CURLMsg.data.result` union member, which Swift imports awkwardly.
static inline CURLcode xb_msg_result(CURLMsg *m) { return m->data.result; }

#endif
