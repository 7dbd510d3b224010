// Typed wrappers for libcurl's variadic functions, which Swift cannot call, and glibc's
// mallopt for libcurl's receive buffers (malloc.h is not in Swift's Glibc module; see
// ReceiveBufferMemory.swift). Nothing else lives here: all logic is in the XferCurl module.
#ifndef XFERBATCH_CCURL_SHIM_H
#define XFERBATCH_CCURL_SHIM_H

#include <curl/curl.h>
#include <malloc.h>

static inline CURLcode xb_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode xb_easy_setopt_mime(CURL *h, curl_mime *v) { return curl_easy_setopt(h, CURLOPT_MIMEPOST, v); }
static inline CURLcode xb_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }
static inline CURLcode xb_easy_setopt_read_function(CURL *h, curl_read_callback f) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode xb_easy_setopt_seek_function(CURL *h, curl_seek_callback f) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f); }
static inline CURLcode xb_easy_setopt_sshkey_function(CURL *h, curl_sshkeycallback f) { return curl_easy_setopt(h, CURLOPT_SSH_KEYFUNCTION, f); }
static inline CURLcode xb_easy_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode xb_easy_setopt_closesocket_function(CURL *h, curl_closesocket_callback f) { return curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, f); }

static inline CURLcode xb_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode xb_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode xb_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode xb_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

static inline curl_version_info_data *xb_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
static inline CURLMcode xb_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

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
