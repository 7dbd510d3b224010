// libarchive's headers, for the XferArchive module only; the table of libarchive's functions
// that module calls, filled when libarchive is first needed (see LibArchive.swift); and the
// one system call Swift's Glibc module does not declare.
#ifndef XFERBATCH_CARCHIVE_SHIM_H
#define XFERBATCH_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Every libarchive function XferArchive calls. A new call needs its name here too: the
/// binary does not link libarchive, so a direct call fails to link.
/// After editing the list, rebuild XferArchive and its tests from scratch (`rm -rf
/// .build/*/debug/XferArchive*.build .build/*/debug/ModuleCache`): an incremental build has kept
/// objects compiled against the old table, which then read the wrong fields (a test
/// crashed on a null function pointer).
#define XB_ARCHIVE_FUNCTIONS(F) \
    F(archive_entry_filetype) \
    F(archive_entry_free) \
    F(archive_entry_hardlink) \
    F(archive_entry_hardlink_utf8) \
    F(archive_entry_is_encrypted) \
    F(archive_entry_mtime) \
    F(archive_entry_mtime_is_set) \
    F(archive_entry_mtime_nsec) \
    F(archive_entry_new) \
    F(archive_entry_pathname) \
    F(archive_entry_pathname_utf8) \
    F(archive_entry_perm) \
    F(archive_entry_set_filetype) \
    F(archive_entry_set_gid) \
    F(archive_entry_set_gname) \
    F(archive_entry_set_mtime) \
    F(archive_entry_set_pathname) \
    F(archive_entry_set_pathname_utf8) \
    F(archive_entry_set_perm) \
    F(archive_entry_set_size) \
    F(archive_entry_set_uid) \
    F(archive_entry_set_uname) \
    F(archive_entry_size) \
    F(archive_entry_size_is_set) \
    F(archive_entry_symlink) \
    F(archive_entry_symlink_utf8) \
    F(archive_error_string) \
    F(archive_filter_bytes) \
    F(archive_format) \
    F(archive_read_data_block) \
    F(archive_read_free) \
    F(archive_read_new) \
    F(archive_read_next_header) \
    F(archive_read_open_filename) \
    F(archive_read_support_filter_bzip2) \
    F(archive_read_support_filter_gzip) \
    F(archive_read_support_filter_xz) \
    F(archive_read_support_filter_zstd) \
    F(archive_read_support_format_gnutar) \
    F(archive_read_support_format_tar) \
    F(archive_read_support_format_zip) \
    F(archive_version_string) \
    F(archive_write_add_filter_gzip) \
    F(archive_write_add_filter_xz) \
    F(archive_write_add_filter_zstd) \
    F(archive_write_close) \
    F(archive_write_data) \
    F(archive_write_free) \
    F(archive_write_header) \
    F(archive_write_new) \
    F(archive_write_open2) \
    F(archive_write_set_bytes_in_last_block) \
    F(archive_write_set_bytes_per_block) \
    F(archive_write_set_filter_option) \
    F(archive_write_set_format_option) \
    F(archive_write_set_format_pax_restricted) \
    F(archive_write_set_format_raw) \
    F(archive_write_set_format_zip)

/// libarchive's functions, one field each, typed by libarchive's own declarations
/// (`__typeof__`), so a call through the table is checked as a direct call would be.
struct xb_archive_functions {
#define XB_ARCHIVE_FIELD(name) __typeof__(name) *_Nonnull name;
    XB_ARCHIVE_FUNCTIONS(XB_ARCHIVE_FIELD)
#undef XB_ARCHIVE_FIELD
};

/// Loads libarchive (`soname`, e.g. "libarchive.so.13") and looks up every function of the
/// table. Returns the table, allocated once and never freed (the library stays loaded for
/// the process), or NULL with `failure` set to dlopen's message, or `missing` to the name of
/// a function the library lacks (static or thread-local strings: copy them at once).
static inline const struct xb_archive_functions *_Nullable xb_archive_load(const char *_Nonnull soname,
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
    struct xb_archive_functions *table = malloc(sizeof *table);
    if (table == NULL) {
        *failure = "out of memory";
        dlclose(library);
        return NULL;
    }
#define XB_ARCHIVE_LOOKUP(name) \
    table->name = (__typeof__(name) *)dlsym(library, #name); \
    if (table->name == NULL) { *missing = #name; free(table); dlclose(library); return NULL; }
    XB_ARCHIVE_FUNCTIONS(XB_ARCHIVE_LOOKUP)
#undef XB_ARCHIVE_LOOKUP
    return table;
}

/// Swaps two paths atomically (renameat2 with RENAME_EXCHANGE, Linux 3.15+). Returns 0,
/// or -1 with errno (ENOSYS or EINVAL where the kernel or filesystem cannot).
static inline int xb_exchange_paths(const char *a, const char *b) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
