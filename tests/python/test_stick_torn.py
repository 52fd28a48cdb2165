"""Torn and damaged run log headers (docs/saving.md, "Power cuts"; the reader is
harness/bmharness/stream/stick/runlog.py and scan.py): format 2 keeps two header blocks with a
sequence number and a CRC, so a header that does not check, in either block and for any reason
(a write cut half-way, a changed byte, a field out of form, a sequence number in the wrong block),
leaves the other; the run then reads to the flush that header counts, every record valid, and
says which header it used. With neither checking, the stream is found by its begin record where
the data starts (one or two blocks of 512..4096 bytes in) and read up to the first record whose
CRC fails. Two headers of different runs, or nothing to scan, are errors naming the file.

Run logs are built with test_stick.py's writer (the layout of drivers/storage/save_log.c); the
header text of the C unit test (tests/unit/test_save_log.c, header_format) is parsed here too, so
the C writer and this reader agree on one known header."""

import json

import pytest
import synth

from bmharness import cli
from bmharness.stream.stick import runlog, runs
from test_stick import (BAD_HEADERS, BLOCK, NONCE, OTHER_NONCE, bad_block, header_block,
                        run_log)

OLDER_RECORDS = 20  # records counted by the older header: a record boundary


def stream_and_older():
    """The full synthetic stream and the byte count of its first OLDER_RECORDS records."""
    full = synth.full_stream()
    older = sum(len(line) + 2 for line in full.lines[:OLDER_RECORDS])
    return full.data(), older


def write_run(tmp_path, data, name="RUN_001.LOG"):
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


def parse_run_file(tmp_path, path, expect):
    out = tmp_path / "o"
    assert cli.main(["parse", str(path), "--out", str(out)]) == expect
    return json.loads((out / "summary.json").read_text())


TEAR_AT = 130  # inside the valid line (the header text is about 175 bytes)


def torn(newer, older):
    """A header write cut inside its text: the first TEAR_AT bytes new, the rest as before."""
    return newer[:TEAR_AT] + older[TEAR_AT:]


def damaged_newer(what):
    """(file bytes with the newer header block damaged by `what`, stream, older count)."""
    stream, older = stream_and_older()
    data = bytearray(run_log(stream, older=older))
    at = BLOCK  # run_log's newer header is seq 5: header block 1
    blk = bytes(data[at:at + BLOCK])
    if what == "torn":
        # the write of header 5 cut: half of it over header 3, which that block held before
        before = header_block(older - 100, len(data) - 2 * BLOCK, "open", seq=3)
        blk = torn(blk, before)
    elif what == "byte":
        blk = blk.replace(b"valid=0000", b"valid=0001", 1)  # one digit: the CRC catches it
    elif what == "zeros":
        blk = bytes(BLOCK)
    elif what == "wrong block":  # a header whose seq belongs in the other block
        blk = header_block(len(stream), len(data) - 2 * BLOCK, "closed", seq=6)
    else:
        blk = bad_block(blk, what)
    data[at:at + BLOCK] = blk
    return data, stream, older


DAMAGE = ["torn", "byte", "zeros", "wrong block"] + sorted(BAD_HEADERS)


def test_the_c_writers_header_parses():
    """The exact header of tests/unit/test_save_log.c header_format (CRC from zlib there)."""
    text = ("baremetric-log 2\nnonce=00112233445566778899aabbccddeeff\nblock=512\n"
            "data_offset=1024\ncapacity=4096\nseq=00000000000000000005\n"
            "valid=00000000000000001234\nstate=closed\ncrc32=ca17fe69\n")
    version, fields = runlog.parse_lines(text)
    assert version == 2 and fields["seq"] == "00000000000000000005"
    assert fields["crc32"] == "ca17fe69"


def test_both_headers_good_the_newer_is_read(tmp_path):
    stream, older = stream_and_older()
    path = write_run(tmp_path, run_log(stream, older=older))
    with runs.open_stick(str(path)) as st:
        run = st.select()
        assert run.header["seq"] == 5 and run.header["header_block"] == 1
        assert run.header["valid"] == len(stream) and run.header["state"] == "closed"
        assert not run.header["notes"]
    summary = parse_run_file(tmp_path, path, 0)
    assert summary["source"]["stick"]["header"] == "block 1 seq 5"


@pytest.mark.parametrize("what", DAMAGE)
def test_damaged_newer_header_reads_to_the_older(tmp_path, capsys, what):
    data, stream, older = damaged_newer(what)
    path = write_run(tmp_path, data)
    summary = parse_run_file(tmp_path, path, 1)  # truncated: exit 1, as any cut run
    out = capsys.readouterr().out
    assert "header block 1 does not check" in out and "header block 0 (seq=4) is read" in out
    facts = summary["source"]["stick"]
    assert facts["header"] == "block 0 seq 4" and facts["valid"] == older
    assert facts["state"] == "open" and facts["nonce"] == NONCE
    v = summary["validation"]
    assert v["truncated"] and v["counts"]["corrupt"] == 0
    assert v["counts"]["valid_records"] == OLDER_RECORDS
    assert any("header block 1 does not check" in n for n in v["notes"])
    assert cli.main(["stick", str(path)]) == 0
    assert "from the older header" in capsys.readouterr().out


def test_damaged_older_header_is_only_noted(tmp_path, capsys):
    stream, older = stream_and_older()
    data = bytearray(run_log(stream, older=older))
    data[100] ^= 1  # inside header 4 (block 0)
    summary = parse_run_file(tmp_path, write_run(tmp_path, data), 0)
    assert summary["source"]["stick"]["valid"] == len(stream)
    assert summary["source"]["stick"]["header"] == "block 1 seq 5"
    assert "header block 0 does not check" in capsys.readouterr().out


@pytest.mark.parametrize("block", [512, 4096])
def test_no_header_checks_the_stream_is_scanned(tmp_path, capsys, block):
    """Both header blocks torn: every intact record is found from the begin record on."""
    stream, older = stream_and_older()
    data = bytearray(run_log(stream, older=older, block=block))
    data[:2 * block] = bytes(2 * block)
    path = write_run(tmp_path, data)
    with runs.open_stick(str(path)) as st:
        run = st.select()
        assert run.header["source"] == "scan" and run.header["data_offset"] == 2 * block
        assert run.header["valid"] == len(stream) and run.header["nonce"] is None
        assert "found by scanning" in run.state()
    summary = parse_run_file(tmp_path, path, 0)  # the end record was written: complete
    assert summary["source"]["stick"]["header"] == "scan"
    assert summary["validation"]["counts"]["corrupt"] == 0
    assert "found by scanning" in capsys.readouterr().out


def test_the_scan_stops_at_a_torn_record(tmp_path):
    stream, older = stream_and_older()
    data = bytearray(run_log(stream, older=older))
    data[:2 * BLOCK] = bytes(2 * BLOCK)
    data[2 * BLOCK + older + 5] ^= 0x20  # inside record OLDER_RECORDS: its CRC fails
    with runs.open_stick(str(write_run(tmp_path, data))) as st:
        run = st.select()
        assert run.header["valid"] == older
        with run.open_stream() as fh:
            assert fh.read() == stream[:older]


def test_a_format_1_header_that_does_not_parse_is_scanned(tmp_path):
    stream, _ = stream_and_older()
    data = bytearray(run_log(stream, version=1))
    data[0:1] = b"B"
    with runs.open_stick(str(write_run(tmp_path, data))) as st:
        run = st.select()
        assert run.header["source"] == "scan" and run.header["data_offset"] == BLOCK
        assert run.header["valid"] == len(stream)


def test_headers_of_two_runs_are_an_error(tmp_path, capsys):
    stream, older = stream_and_older()
    data = bytearray(run_log(stream, older=older))
    data[:BLOCK] = header_block(older, len(data) - 2 * BLOCK, "open", nonce=OTHER_NONCE, seq=4)
    path = write_run(tmp_path, data)
    assert cli.main(["parse", str(path), "--out", str(tmp_path / "o")]) == 2
    assert "two header blocks are of different runs (nonce=" in capsys.readouterr().err
