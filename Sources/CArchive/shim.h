// libarchive's headers, for the XferArchive module only, and the one system call Swift's
// Glibc module does not declare.
#ifndef XFERBATCH_CARCHIVE_SHIM_H
#define XFERBATCH_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

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
