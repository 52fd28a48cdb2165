"""Read-only random access to a stick: an image file, a block device or one file on a mounted
stick, and file objects over extents of it (a FAT file's clusters, a run's stream).

open_device() raises StickError when the path cannot be opened; its message says what to do (a
block device readable only by root or the disk group). Nothing is ever opened for writing."""

import io
import os
import stat


class StickError(Exception):
    """A stick, or a run on it, that cannot be read; the message names the file and says why
    (the command line exits with status 2)."""


NO_ACCESS_HINT = "run as root or add yourself to the disk group, or give the mounted directory"


class Device:
    """An open file or block device, read with pread; `size` in bytes."""

    def __init__(self, path, fd):
        self.path, self.fd = path, fd
        self.is_block = stat.S_ISBLK(os.fstat(fd).st_mode)
        self.size = os.lseek(fd, 0, os.SEEK_END)  # a block device has no st_size

    def read(self, offset, n):
        """Up to n bytes at offset (fewer at the end of the device)."""
        out = b""
        while len(out) < n:
            got = os.pread(self.fd, n - len(out), offset + len(out))
            if not got:
                break
            out += got
        return out

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_device(path):
    """Open path read-only. Raises StickError (no such file, permission denied: with the hint)."""
    try:
        return Device(path, os.open(path, os.O_RDONLY))
    except PermissionError:
        raise StickError("%s: permission denied: %s" % (path, NO_ACCESS_HINT)) from None
    except FileNotFoundError:
        raise StickError("%s: no such file or directory" % path) from None
    except OSError as exc:
        raise StickError("%s: %s" % (path, exc.strerror or exc)) from None


def slice_extents(extents, start, length):
    """The part [start, start + length) of the byte sequence that extents [(offset, length)]
    lay out on the device, as extents again."""
    out, pos, end = [], 0, start + length
    for off, n in extents:
        lo, hi = max(start, pos), min(end, pos + n)
        if lo < hi:
            out.append((off + lo - pos, hi - lo))
        pos += n
        if pos >= end:
            break
    return out


class ExtentReader(io.RawIOBase):
    """A readable, seekable file object over extents [(device offset, length)] of a Device."""

    def __init__(self, dev, extents, owns_dev=False):
        super().__init__()
        self.dev, self.extents, self.owns_dev = dev, list(extents), owns_dev
        self.length = sum(n for _, n in self.extents)
        self.pos = 0

    def readable(self):
        return True

    def close(self):
        if self.owns_dev and not self.closed:
            self.dev.close()
        super().close()

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.length}[whence]
        self.pos = max(0, base + offset)
        return self.pos

    def readinto(self, buf):
        want = min(len(buf), self.length - self.pos)
        if want <= 0:
            return 0
        done = 0
        for off, n in slice_extents(self.extents, self.pos, want):
            data = self.dev.read(off, n)
            buf[done:done + len(data)] = data
            done += len(data)
            if len(data) < n:
                break  # the device ends early: a short read, not zeros
        self.pos += done
        return done


def open_extents(dev, extents, owns_dev=False):
    """A buffered binary file object over extents of dev (closing it closes dev if owns_dev)."""
    return io.BufferedReader(ExtentReader(dev, extents, owns_dev), buffer_size=1 << 16)
