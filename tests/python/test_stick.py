"""Runs on the boot stick (harness/bmharness/stream/stick/): images built here with the real tools
(scripts/mkimage.sh's GPT + FAT32 with sgdisk and mformat, an MBR + FAT16 with mpartition and
mkfs.fat, FAT12 and 4096-byte-sector FAT16 "superfloppies" with mkfs.fat, files put with mtools)
hold RUN_NNN.LOG files in the header format of docs/saving.md (format 2, two header blocks; run 4
in the older format 1) around record streams from synth.py. Checked: every run is listed with its header and begin record, the newest is taken and
--run picks another, a mounted directory works like an image, a fragmented run and a long-named
neighbour are read right (mshowfat proves the fragmentation), a cut run (state=open) parses as
truncated with every record in it valid, valid=0 says nothing was written, a run with no header
that checks and no stream to scan is an error naming its file (torn and damaged headers:
test_stick_torn.py), an unreadable device exits 2 with what to do, and report and compare take
a stick too."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

import pytest
import synth

from bmharness import cli
from bmharness.stream import parse
from bmharness.stream.stick import fat, runlog, runs
from bmharness.stream.stick.device import StickError, open_device

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MKIMAGE = os.path.join(REPO, "scripts", "mkimage.sh")
HARNESS = os.path.join(REPO, "harness", "baremetric")
NONCE = "00112233445566778899aabbccddeeff"
OTHER_NONCE = "ffeeddccbbaa99887766554433221100"  # run 4's
BLOCK = 512
PART_START = 2048            # sectors: the FAT16 partition of the MBR image starts at 1 MiB
LONG_NAME = "A long file name, next to the runs.txt"
NOBODY = 65534               # uid and gid of nobody/nogroup (Debian)
CUT_RECORDS = 20             # records kept of the cut run (state=open): a record boundary


def _need(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.fail("%s is missing: scripts/deps.sh image installs it (make test does)" % tool)


def _sh(*cmd, env=None):
    subprocess.run(cmd, check=True, capture_output=True, env=env)


def _crc_line(text):
    return "crc32=%08x\n" % (zlib.crc32(text.encode()) & 0xFFFFFFFF)


def header_block(valid, capacity, state="closed", block=BLOCK, nonce=NONCE, seq=None):
    """One header block of a RUN_NNN.LOG: format 2 (with seq, and its CRC line) or, seq None,
    format 1; the header lines, then NULs to the block's end."""
    if seq is None:
        head = ("baremetric-log 1\nnonce=%s\nblock=%d\ndata_offset=%d\ncapacity=%d\nvalid=%020d\n"
                "state=%s\n" % (nonce, block, block, capacity, valid, state))
    else:
        head = ("baremetric-log 2\nnonce=%s\nblock=%d\ndata_offset=%d\ncapacity=%d\nseq=%020d\n"
                "valid=%020d\nstate=%s\n" % (nonce, block, 2 * block, capacity, seq, valid, state))
        head += _crc_line(head)
    return head.encode() + bytes(block - len(head))


def run_log(stream, state="closed", capacity=None, nonce=NONCE, version=2, older=None,
            seq=5, block=BLOCK):
    """A RUN_NNN.LOG as the firmware writes it: the header(s), the stream, zeros to the end of
    the capacity. Format 2: header `seq` counts the stream; the other header block holds header
    seq - 1, which counted `older` bytes (default: all of them) in state open."""
    capacity = capacity or (len(stream) // block + 2) * block
    if version == 1:
        head = header_block(len(stream), capacity, state, block, nonce=nonce)
    else:
        newer = header_block(len(stream), capacity, state, block, nonce, seq)
        prev = header_block(len(stream) if older is None else older, capacity, "open", block,
                            nonce, seq - 1)
        head = prev + newer if seq % 2 else newer + prev
    return head + stream + bytes(capacity - len(stream))


def initial_log(capacity, nonce=NONCE):
    """A format 2 RUN_NNN.LOG as left before boot services: headers 0 and 1, nothing valid."""
    return (header_block(0, capacity, "open", BLOCK, nonce, 0)
            + header_block(0, capacity, "open", BLOCK, nonce, 1) + bytes(capacity))


def streams():
    """The streams of runs 1-4: complete, cut at a record boundary, empty, complete again with
    other timer values (the fragmented file)."""
    full = synth.full_stream()
    cut = "".join(line + "\r\n" for line in full.lines[:CUT_RECORDS]).encode()
    other = synth.full_stream(n_timer=300).data()
    return {1: full.data(), 2: cut, 3: b"", 4: other}


def run_files(d):
    """RUN_001..RUN_004.LOG in directory d; returns {number: file contents}."""
    st = streams()
    files = {1: run_log(st[1]), 2: run_log(st[2], state="open", capacity=64 * BLOCK),
             3: initial_log(8 * BLOCK),
             4: run_log(st[4], nonce=OTHER_NONCE, version=1)}
    for n, data in files.items():
        (d / ("RUN_%03d.LOG" % n)).write_bytes(data)
    return files


def _free_bytes(target):
    out = subprocess.run(["mdir", "-i", target, "::/"], check=True, capture_output=True,
                         text=True).stdout
    return int(re.search(r"([\d ]+) bytes free", out).group(1).replace(" ", ""))


def fill_fat(target, src, wrap=False):
    """Put the runs into ::/BAREMETRIC of an mtools target (IMAGE or IMAGE@@OFFSET): run 4 goes
    where a deleted file was and further on (fragmented), lowercase as run_004.log, with a
    long-named file next to it. mtools allocates a FAT32 volume's clusters after the last one
    it used (the FSInfo hint): wrap fills the volume up to less than run 4 first, so run 4 has
    to wrap around into the hole."""
    _need("mmd", "mcopy", "mdel", "mshowfat", "mdir")
    gap = src / "gap.bin"
    gap.write_bytes(os.urandom(3 * BLOCK))
    (src / "long.txt").write_bytes(b"not a run\n" * 100)
    _sh("mmd", "-i", target, "::/BAREMETRIC")
    for name in ("RUN_001.LOG", "gap.bin", "RUN_002.LOG", "RUN_003.LOG"):
        _sh("mcopy", "-i", target, str(src / name), "::/BAREMETRIC/")
    _sh("mcopy", "-i", target, str(src / "long.txt"), "::/BAREMETRIC/" + LONG_NAME)
    if wrap:
        with open(src / "filler.bin", "wb") as fh:
            fh.truncate(_free_bytes(target) - (src / "RUN_004.LOG").stat().st_size + 2 * BLOCK)
        _sh("mcopy", "-i", target, str(src / "filler.bin"), "::/")
    _sh("mdel", "-i", target, "::/BAREMETRIC/gap.bin")
    _sh("mcopy", "-i", target, str(src / "RUN_004.LOG"), "::/BAREMETRIC/run_004.log")
    shown = subprocess.run(["mshowfat", "-i", target, "::/BAREMETRIC/run_004.log"], check=True,
                           capture_output=True, text=True).stdout
    assert len(re.findall(r"<\d+(?:-\d+)?>", shown)) >= 2, "run 4 is not fragmented: " + shown


def make_gpt_fat32(d):
    _need("sgdisk", "mformat")
    efi = d / "app.efi"
    efi.write_bytes(b"MZ" + bytes(1000))
    img = d / "gpt32.img"
    _sh("sh", MKIMAGE, str(efi), str(img), "40")
    fill_fat("%s@@1M" % img, d, wrap=True)
    return img


def make_mbr_fat16(d):
    _need("mpartition", "mkfs.fat")
    img = d / "mbr16.img"
    with open(img, "wb") as fh:
        fh.truncate(24 << 20)
    sectors = 40000  # 1-sector clusters: more than 4084 of them, FAT16
    rc = d / "mtoolsrc"
    rc.write_text('drive x: file="%s" partition=1\nmtools_skip_check=1\n' % img)
    env = dict(os.environ, MTOOLSRC=str(rc))
    _sh("mpartition", "-I", "x:", env=env)
    _sh("mpartition", "-c", "-T", "0x0e", "-b", str(PART_START), "-l", str(sectors), "x:", env=env)
    _sh("mkfs.fat", "-F", "16", "-s", "1", "--offset=%d" % PART_START, "-h", str(PART_START),
        str(img), str(sectors // 2))
    fill_fat("%s@@1M" % img, d)
    return img


def make_floppy_fat12(d):
    _need("mkfs.fat")
    img = d / "floppy12.img"
    _sh("mkfs.fat", "-C", "-F", "12", str(img), "1440")
    fill_fat(str(img), d)
    return img


def make_fat16_4k(d):
    _need("mkfs.fat")
    img = d / "fat16-4k.img"
    _sh("mkfs.fat", "-C", "-F", "16", "-S", "4096", "-s", "1", str(img), "65536")
    fill_fat(str(img), d)
    return img


def make_dir(d):
    stick = d / "mnt"
    (stick / "baremetric").mkdir(parents=True)  # a vfat mount may show short names lowercase
    for name in ("RUN_001.LOG", "RUN_002.LOG", "RUN_003.LOG"):
        shutil.copy(d / name, stick / "baremetric" / name)
    shutil.copy(d / "RUN_004.LOG", stick / "baremetric" / "run_004.log")
    (stick / "EFI").mkdir()
    return stick


KINDS = {"gpt-fat32": (make_gpt_fat32, "GPT partition 1", "FAT32"),
         "mbr-fat16": (make_mbr_fat16, "MBR partition 1: type 0x0e", "FAT16"),
         "superfloppy-fat12": (make_floppy_fat12, "whole device", "FAT12"),
         "superfloppy-fat16-4k": (make_fat16_4k, "whole device", "FAT16"),
         "directory": (make_dir, "directory", "")}


@pytest.fixture(scope="module", params=sorted(KINDS))
def stick(request, tmp_path_factory):
    """(kind, path, {run number: RUN file contents})"""
    d = tmp_path_factory.mktemp(request.param)
    files = run_files(d)
    return request.param, str(KINDS[request.param][0](d)), files


def test_every_run_is_found_and_read_exactly(stick):
    kind, path, files = stick
    with runs.open_stick(path) as s:
        assert KINDS[kind][1] in s.where and KINDS[kind][2] in s.where
        assert [r.number for r in s.runs] == [1, 2, 3, 4]
        assert s.runs[3].name.endswith("run_004.log")
        for r in s.runs:
            assert r.error is None and r.header["nonce"] in (NONCE, OTHER_NONCE)
            assert r.size == len(files[r.number])
            off = r.header["data_offset"]
            assert off == (BLOCK if r.number == 4 else 2 * BLOCK)  # run 4: format 1
            assert r.header["version"] == (1 if r.number == 4 else 2)
            with r.open_stream() as fh:  # the fragmented run 4 too, byte for byte
                assert fh.read() == files[r.number][off:off + r.header["valid"]]
        assert [r.header["state"] for r in s.runs] == ["closed", "open", "open", "closed"]
        assert [r.header["valid"] for r in s.runs] == [len(v) for _, v in sorted(
            streams().items())]
        assert s.runs[0].begin == {"build": "v0.1-3-g3f2a1c0", "arch": "x86_64"}
        assert s.runs[2].begin is None  # nothing written
        assert s.select().number == 4 and s.select(2).number == 2


def test_stick_lists_every_run(stick, capsys):
    _, path, _ = stick
    assert cli.main(["stick", path]) == 0
    out = capsys.readouterr().out
    rows = [ln.split() for ln in out.splitlines() if re.match(r"\s+\d+\s+\S*RUN_", ln, re.I)]
    assert [r[0] for r in rows] == ["1", "2", "3", "4"]
    assert rows[0][2] == str(len(streams()[1])) and rows[1][3] == str(64 * BLOCK)
    assert rows[0][4:6] == rows[3][4:6] == ["v0.1-3-g3f2a1c0", "x86_64"]
    assert "closed" in rows[0] and "open:" in rows[1]
    assert "nothing was written after boot services" in out.splitlines()[4]
    assert "newest: run 4" in out


def test_parse_takes_the_newest_and_run_picks(stick, tmp_path, capsys):
    _, path, files = stick
    assert cli.main(["parse", path, "--out", str(tmp_path / "new")]) == 0
    summary = json.loads((tmp_path / "new" / "summary.json").read_text())
    assert summary["source"]["stick"]["run"] == 4 and summary["ok"]
    assert summary["source"]["log"].endswith("run_004.log")
    ref = parse.analyse(streams()[4])["summary"]
    assert [s["n"] for s in summary["sets"]] == [s["n"] for s in ref["sets"]] == [300, 300, 16]
    assert cli.main(["parse", path, "--run", "1", "--out", str(tmp_path / "one")]) == 0
    one = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert one["source"]["stick"]["run"] == 1 and [s["n"] for s in one["sets"]] == [200, 200, 16]
    assert (tmp_path / "one" / "records.jsonl").read_text().count("\n") == 33


def test_cut_run_parses_truncated_with_every_record_valid(stick, tmp_path, capsys):
    _, path, _ = stick
    assert cli.main(["parse", path, "--run", "2", "--out", str(tmp_path / "cut")]) == 1
    out = capsys.readouterr().out
    assert "state=open: the run was cut" in out
    v = json.loads((tmp_path / "cut" / "summary.json").read_text())["validation"]
    assert v["truncated"] and not v["ok"]
    assert v["counts"]["valid_records"] == v["counts"]["records_analysed"] == CUT_RECORDS
    assert v["counts"]["corrupt"] == 0 and v["counts"]["candidates"] == CUT_RECORDS
    assert "truncated" in v["problem_counts"]


def test_empty_run_says_nothing_was_written(stick, tmp_path, capsys):
    _, path, _ = stick
    assert cli.main(["parse", path, "--run", "3", "--out", str(tmp_path / "empty")]) == 1
    out = capsys.readouterr().out
    assert "valid=0: nothing was written after boot services" in out
    v = json.loads((tmp_path / "empty" / "summary.json").read_text())["validation"]
    assert any("nothing was written after boot services" in n for n in v["notes"])
    assert v["problem_counts"] == {"no_records": 1}


def test_missing_run_is_an_error(stick, tmp_path, capsys):
    _, path, _ = stick
    assert cli.main(["parse", path, "--run", "9", "--out", str(tmp_path / "x")]) == 2
    assert "no run 9 (runs: 1, 2, 3, 4)" in capsys.readouterr().err


def test_report_and_compare_take_a_stick(stick, tmp_path, capsys):
    _, path, _ = stick
    out = tmp_path / "rep"
    assert cli.main(["report", path, "--run", "1", "--out", str(out), "--no-plots"]) == 0
    assert (out / "report.md").exists() and (out / "summary.json").exists()
    assert cli.main(["compare", path, path, "--run-a", "1", "--out", str(tmp_path / "cmp")]) == 0
    doc = (tmp_path / "cmp" / "compare.md").read_text()
    assert "RUN_001.LOG" in doc and "run_004.log" in doc
    assert cli.main(["compare", path, path, "--out", str(tmp_path / "same")]) == 2
    assert "the same run" in capsys.readouterr().err


def test_a_single_run_file_is_a_stick(tmp_path):
    """A RUN_NNN.LOG given by itself (from a mounted stick) is read through its header."""
    run_files(tmp_path)
    assert runs.is_stick(str(tmp_path / "RUN_001.LOG"))
    assert cli.main(["parse", str(tmp_path / "RUN_001.LOG"), "--out", str(tmp_path / "o")]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["ok"] and summary["source"]["stick"]["run"] == 1


def test_a_serial_log_is_not_a_stick(tmp_path):
    log = tmp_path / "serial.log"
    log.write_bytes(synth.full_stream().data())
    assert not runs.is_stick(str(log)) and not runs.is_stick(str(tmp_path))
    assert cli.main(["parse", str(log), "--out", str(tmp_path / "o")]) == 0
    assert "stick" not in json.loads((tmp_path / "o" / "summary.json").read_text())["source"]


def test_long_name_and_short_name_in_the_fat(tmp_path):
    run_files(tmp_path)
    img = make_floppy_fat12(tmp_path)
    with open_device(str(img)) as dev:
        fs = fat.probe(dev, 0, dev.size)
        rdir = fs.lookup(None, "baremetric")
        names = {e.name: e for e in fs.listdir(rdir)}
        assert LONG_NAME in names and names[LONG_NAME].short == "ALONGF~1.TXT"
        assert "run_004.log" in names and "gap.bin" not in names
        long_e = fs.lookup(rdir, "a LONG file name, next to the RUNS.TXT")
        data = b"".join(dev.read(o, n) for o, n in fs.file_extents(long_e, LONG_NAME))
        assert data == b"not a run\n" * 100


def test_image_without_baremetric_directory(tmp_path, capsys):
    img = tmp_path / "plain.img"
    _sh("mkfs.fat", "-C", "-F", "12", str(img), "1440")
    assert cli.main(["stick", str(img)]) == 2
    assert "FAT12 without a BAREMETRIC directory" in capsys.readouterr().err


# A header line replaced (or dropped: None) by its index (0 the format line, 1 nonce, ... 7 state,
# 8 crc32), and what the error says.
BAD_HEADERS = {
    "magic": (0, "baremetric-lg 2", "does not start with"),
    "version": (0, "baremetric-log 3", "this harness reads baremetric-log 1 and 2"),
    "nonce": (1, "nonce=" + NONCE.upper(), "nonce="),
    "valid digits": (6, "valid=123", "valid="),
    "state": (7, "state=half", "state="),
    "key missing": (7, None, "keys nonce,block,data_offset,capacity,seq,valid,crc32, expected"),
    "crc": (8, "crc32=00000000", "crc32=00000000, the lines above it give"),
}


def bad_block(good_block, what):
    """One header block with the BAD_HEADERS change `what` (no CRC recomputed)."""
    index, line, _ = BAD_HEADERS[what]
    lines = good_block[:good_block.index(b"\0")].decode().split("\n")
    lines[index:index + 1] = [line] if line else []
    head = "\n".join(lines).encode()
    return head + bytes(len(good_block) - len(head))


@pytest.mark.parametrize("what", sorted(BAD_HEADERS))
def test_bad_header_is_an_error_naming_the_file(tmp_path, capsys, what):
    """Both header blocks bad and no record stream where the data starts (its begin record
    damaged too): nothing is read, and the error names the file and each block's reason."""
    good = run_log(streams()[1])
    message = BAD_HEADERS[what][2]
    bad = bytearray(bad_block(good[:BLOCK], what) + bad_block(good[BLOCK:2 * BLOCK], what)
                    + good[2 * BLOCK:])
    bad[2 * BLOCK + 10] ^= 1  # inside the begin record: its CRC fails, nothing to scan from
    d = tmp_path / "mnt" / "BAREMETRIC"
    d.mkdir(parents=True)
    (d / "RUN_001.LOG").write_bytes(good)
    (d / "RUN_002.LOG").write_bytes(bytes(bad))
    assert cli.main(["parse", str(tmp_path / "mnt"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "RUN_002.LOG: not a valid run log header" in err and message in err
    assert "header block 0: " in err and "header block 1: " in err and "no record stream" in err
    assert cli.main(["stick", str(tmp_path / "mnt")]) == 1  # listed, with its error
    out = capsys.readouterr().out
    assert "header does not parse" in out and message in out
    assert cli.main(["parse", str(tmp_path / "mnt"), "--run", "1", "--out",
                     str(tmp_path / "o")]) == 0


@pytest.mark.parametrize("case", ["valid>capacity", "not NUL", "file too short"])
def test_header_consistency(case):
    """Each header block refused for its case; the stream (no records) cannot be scanned."""
    data = bytearray(run_log(b"x" * 100))
    if case == "valid>capacity":
        data = (header_block(600, BLOCK, "open", seq=0) + header_block(600, BLOCK, "open", seq=1)
                + bytes(2 * BLOCK))
    elif case == "not NUL":
        data[BLOCK - 1] = data[2 * BLOCK - 1] = ord("x")
    else:
        data = data[:BLOCK + 50]
    with pytest.raises(runlog.HeaderError, match=r"RUN_007\.LOG: not a valid run log header"):
        runlog.parse_header(lambda n: bytes(data[:n]), "RUN_007.LOG", len(data))


def test_missing_device_exits_2(capsys):
    assert cli.main(["stick", "/dev/baremetric-no-such-disk"]) == 2
    assert "/dev/baremetric-no-such-disk: no such file or directory" in capsys.readouterr().err
    with pytest.raises(StickError):
        open_device("/dev/baremetric-no-such-disk")


def _harness_as(cmd, drop):
    """(exit status, stderr) of the harness CLI on cmd: in a subprocess, or, with `drop` (as root),
    in a forked child that becomes nobody first. The child runs the already-imported harness, so
    nobody need not read this checkout (a fresh clone in a mktemp directory is mode 700)."""
    if not drop:
        res = subprocess.run(["/usr/bin/python3", HARNESS] + cmd, capture_output=True, text=True, cwd="/")
        return res.returncode, res.stderr
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 99
        try:
            os.close(rfd)
            os.chdir("/")
            drop()
            sys.stderr = os.fdopen(wfd, "w")
            code = cli.main(cmd)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stderr.flush()
            os._exit(code if isinstance(code, int) else 1)
    os.close(wfd)
    with os.fdopen(rfd) as fh:
        err = fh.read()
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), err


def test_unreadable_device_exits_2_and_says_what_to_do(tmp_path):
    """A device only root and the disk group may read, stood in for by a file of mode 000 read
    by an unprivileged user (as root: the harness as nobody, the file in a directory nobody may
    enter)."""
    drop = None
    if os.geteuid() == 0:
        tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="stick-"))
        tmp_path.chmod(0o755)
        drop = lambda: (os.setgid(NOBODY), os.setuid(NOBODY))  # noqa: E731
    try:
        img = tmp_path / "disk"
        img.write_bytes(run_log(streams()[1]))
        img.chmod(0)
        cmds = (["stick", str(img)], ["parse", "--run", "1", str(img), "--out", "/nonexistent"])
        for cmd in cmds:
            code, err = _harness_as(cmd, drop)
            assert code == 2, err
            assert "%s: permission denied: run as root or add yourself to the disk group, or " \
                   "give the mounted directory" % img in err
    finally:
        if drop:
            shutil.rmtree(tmp_path)


def test_gpt_backup_header_when_the_primary_is_gone(tmp_path):
    """With LBA 1 wiped, the GPT is read from the backup header in the last LBA."""
    run_files(tmp_path)
    img = make_gpt_fat32(tmp_path)
    with open(img, "r+b") as fh:
        fh.seek(BLOCK)
        fh.write(bytes(BLOCK))
    with runs.open_stick(str(img)) as s:
        assert s.where.startswith("GPT (backup header) partition 1") and "FAT32" in s.where
        assert [r.number for r in s.runs] == [1, 2, 3, 4]
