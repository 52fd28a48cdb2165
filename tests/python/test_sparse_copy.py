"""The harness's stick copy (bmharness/run/sparse_copy.py): the copy reads the same as the
image, byte for byte, whatever mix of data and holes it has, and where the file system keeps holes
the copy's holes stay holes (a boot's 64 MiB stick copy costs its ~1 MB of data, not 64 MiB)."""

import os

import pytest

from bmharness.run.sparse_copy import copy_sparse

MIB = 1 << 20


def make(path, size, pieces):
    """A file of size bytes, holes except pieces {offset: bytes}."""
    with open(path, "wb") as fh:
        fh.truncate(size)
        for off, data in pieces.items():
            fh.seek(off)
            fh.write(data)
    return path


def same(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


@pytest.mark.parametrize("pieces", [
    {},                                                   # all hole
    {0: b"\xeb\x58\x90" + b"x" * 509},                    # data at the start only
    {8 * MIB - 100: b"tail" * 25},                        # data at the very end
    {0: b"a" * 4096, 3 * MIB + 17: b"b" * 70000, 6 * MIB: b"c" * 5},
], ids=["empty", "head", "tail", "mixed"])
def test_copy_reads_the_same(tmp_path, pieces):
    src = make(str(tmp_path / "src.img"), 8 * MIB, pieces)
    dst = str(tmp_path / "dst.img")
    with open(dst, "wb") as fh:
        fh.write(b"old contents, longer than nothing" * 1000)  # replaced, not overlaid
    copy_sparse(src, dst)
    assert os.path.getsize(dst) == 8 * MIB
    assert same(src, dst)


def test_holes_stay_holes(tmp_path):
    src = make(str(tmp_path / "src.img"), 64 * MIB, {0: b"a" * 4096, 32 * MIB: b"b" * 4096})
    if os.stat(src).st_blocks * 512 >= 64 * MIB:
        pytest.skip("this file system keeps no holes (%s)" % tmp_path)
    dst = str(tmp_path / "dst.img")
    copy_sparse(src, dst)
    assert same(src, dst)
    assert os.stat(dst).st_blocks * 512 < 2 * MIB, "the copy wrote the holes"


def test_dense_file_copied_whole(tmp_path):
    src = str(tmp_path / "src.bin")
    with open(src, "wb") as fh:
        fh.write(os.urandom(3 * MIB + 5))
    dst = str(tmp_path / "dst.bin")
    copy_sparse(src, dst)
    assert same(src, dst)
