"""Copy a disk image keeping its holes. A boot works on its own copy of the 64 MiB stick image,
which is almost all zeros (the FAT and a few hundred KB of files): a plain copy writes every byte
(make test's ~170 boots wrote ~11 GB), this one only the data extents the file system reports
(lseek SEEK_DATA/SEEK_HOLE), and the copy reads the same everywhere. Where the file system cannot
say, the whole file is copied."""

import errno
import os
import shutil


def copy_sparse(src, dst):
    """Copy src to dst (replaced), writing only src's data extents; dst has src's size."""
    with open(src, "rb") as fin:
        size = os.fstat(fin.fileno()).st_size
        try:
            extents = _extents(fin.fileno(), size)
        except OSError:
            extents = None
        if extents is not None:
            _copy_extents(fin, dst, extents, size)
            return
    shutil.copyfile(src, dst)


def _copy_extents(fin, dst, extents, size):
    with open(dst, "wb") as fout:
        for start, end in extents:
            fin.seek(start)
            fout.seek(start)
            left = end - start
            while left:
                chunk = fin.read(min(left, 1 << 20))
                if not chunk:
                    raise OSError("%s changed while it was copied" % fin.name)
                fout.write(chunk)
                left -= len(chunk)
        fout.truncate(size)


def _extents(fd, size):
    """[(start, end)] of fd's data, or None where the file system does not report holes."""
    if not hasattr(os, "SEEK_DATA"):
        return None
    out = []
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError as e:
            if e.errno == errno.ENXIO:  # no data after pos
                break
            raise
        end = os.lseek(fd, start, os.SEEK_HOLE)
        out.append((start, min(end, size)))
        pos = end
    return out
