// libarchive's headers, for the XferArchive module only.
#ifndef XFERBATCH_CARCHIVE_SHIM_H
#define XFERBATCH_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

#endif
