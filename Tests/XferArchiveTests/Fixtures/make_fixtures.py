#!/usr/bin/env python3
"""Writes the archives the extraction tests read (run from this folder; output committed).

Each hostile archive tries one way out of the target folder or one kind of bomb; the
tests expect every one to be refused with nothing written outside (or left behind).
Python's tarfile and zipfile write them: a writer we did not write, able to store names
that our own writer would never produce.
"""
import io
import tarfile
import zipfile

MTIME = 1_700_000_000


def tar(name, members, mode="w"):
    with tarfile.open(name, mode, format=tarfile.GNU_FORMAT) as t:
        for info, data in members:
            info.mtime = MTIME
            t.addfile(info, io.BytesIO(data) if data is not None else None)


def file(name, data=b"x\n", mode=0o644):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    return info, data


def entry(name, kind, target="", mode=0o777):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    info.mode = mode
    return info, None


def zipped(name, members):
    with zipfile.ZipFile(name, "w", zipfile.ZIP_DEFLATED) as z:
        for member, data in members:
            z.writestr(zipfile.ZipInfo(member, date_time=(2023, 11, 14, 22, 13, 20)), data)


# A well-formed tarball: folders, modes, a link inside, a hard link, a read-only folder.
tar("good.tar.gz", [
    entry("top/", tarfile.DIRTYPE, mode=0o755),
    entry("top/bin/", tarfile.DIRTYPE, mode=0o755),
    file("top/bin/tool", b"#!/bin/sh\necho hi\n", mode=0o755),
    file("top/README", b"read me\n"),
    entry("top/docs", tarfile.SYMTYPE, "README"),
    entry("top/bin/tool-again", tarfile.LNKTYPE, "top/bin/tool"),
    entry("top/locked/", tarfile.DIRTYPE, mode=0o555),
    file("top/locked/inside.txt", b"inside\n"),
], mode="w:gz")

# Zip-slip: a name climbing out with "..", in both formats, and with Windows separators.
zipped("zip-slip.zip", [("ok.txt", b"ok\n"), ("../evil.txt", b"evil\n")])
tar("zip-slip.tar", [file("ok.txt"), file("a/../../evil.txt")])
zipped("backslash-slip.zip", [("..\\..\\evil.txt", b"evil\n")])

# Absolute paths.
tar("absolute.tar", [file("/tmp/xferbatch-evil.txt")])

# A symbolic link out, then a file written through it.
tar("symlink-escape.tar", [entry("link", tarfile.SYMTYPE, "../../outside"), file("link/evil.txt")])
tar("symlink-absolute.tar", [entry("passwd", tarfile.SYMTYPE, "/etc/passwd")])
# A link that stays inside, then a file written through it (still refused: never through links).
tar("through-link.tar", [entry("sub/", tarfile.DIRTYPE, mode=0o755), entry("alias", tarfile.SYMTYPE, "sub"), file("alias/x.txt")])
# Each link looks harmless by name; together b resolves to the folder above: a -> ., b -> a/..
tar("symlink-chain.tar", [entry("a", tarfile.SYMTYPE, "."), entry("b", tarfile.SYMTYPE, "a/..")])

# A link out hidden from checks that split text into characters: U+0600 (a "prepend" mark)
# joins the "/" after it into one grapheme, so "a\u0600/.." reads as one name, while the
# kernel sees "a\u0600" then "..": two such pairs pay for the two ".." that climb out.
tar("symlink-grapheme.tar", [entry("a\u0600", tarfile.DIRTYPE, mode=0o755),
                             entry("l", tarfile.SYMTYPE, "a\u0600/../a\u0600/../../../outside")])

# A hard link to a file outside.
tar("hardlink-escape.tar", [entry("h", tarfile.LNKTYPE, "../../etc/passwd")])

# A device node.
tar("device.tar", [entry("dev/null", tarfile.CHRTYPE, mode=0o666)])

# Bombs: 64 MiB of zeros in a 64 KiB zip, and 200 entries.
with zipfile.ZipFile("bomb.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr("zeros.bin", bytes(64 << 20))
tar("many-entries.tar.gz", [file(f"f{i:03}") for i in range(200)], mode="w:gz")

# Sparse files as GNU tar stores them (`--sparse`: a VM disk image, a cloud image's disk.raw):
# 16 MiB with 4 KiB of A at 0, of B at 5 MiB and of C at the end; holes everywhere else.
# Python's tarfile cannot write sparse entries, so GNU tar does, in both of its formats.
import os, subprocess, tempfile
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "disk.img"), "wb") as f:
        f.truncate(16 << 20)
        for offset, byte in [(0, b"A"), (5 << 20, b"B"), ((16 << 20) - 4096, b"C")]:
            f.seek(offset)
            f.write(byte * 4096)
    common = ["--sparse", "--owner=0", "--group=0", f"--mtime=@{MTIME}", "-C", d, "disk.img"]
    subprocess.run(["tar", "--format=gnu", "-czf", "sparse-gnu.tar.gz"] + common, check=True)
    subprocess.run(["tar", "--format=posix", "--sparse-version=1.0", "--pax-option=delete=atime,delete=ctime",
                    "-czf", "sparse-pax.tar.gz"] + common, check=True)

# One that ends in a hole, which no data block follows: 8 MiB, 4 KiB of D at 1 MiB.
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "tail.img"), "wb") as f:
        f.truncate(8 << 20)
        f.seek(1 << 20)
        f.write(b"D" * 4096)
    subprocess.run(["tar", "--format=gnu", "--sparse", "--owner=0", "--group=0", f"--mtime=@{MTIME}",
                    "-czf", "sparse-tail.tar.gz", "-C", d, "tail.img"], check=True)

# A zip whose entry is encrypted (ZipCrypto, passphrase "pw"), as bsdtar writes it.
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "a.txt"), "w") as f:
        f.write("secret\n")
    subprocess.run(["bsdtar", "--format", "zip", "--options", "zip:encryption=zipcrypt", "--passphrase", "pw",
                    "-cf", os.path.abspath("encrypted.zip"), "-C", d, "a.txt"], check=True)
