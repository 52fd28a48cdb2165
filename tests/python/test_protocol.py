"""Record codec: CRC framing, escapes, sample lists, candidate splitting."""

import zlib

import pytest

from bmharness.stream import protocol as P


def test_encode_parse_roundtrip():
    line = P.encode_record(7, "msg", {"level": "warn", "text": "a b|c%d=e\tf"})
    body, crc = line.rsplit(" |", 1)
    assert crc == "%08x" % zlib.crc32(body.encode())
    assert " " not in body.split("text=")[1]
    rec = P.parse_candidate(line + "\r\n")
    assert rec["seq"] == 7 and rec["type"] == "msg" and rec["version"] == 1
    assert rec["fields"] == {"level": "warn", "text": "a b|c%d=e\tf"}


def test_escape_unescape():
    assert P.escape("EDK II") == "EDK%20II"
    assert P.escape("100%|x") == "100%25%7Cx"
    assert P.escape("\x7f\x00") == "%7F%00"
    assert P.unescape("EDK%20II") == "EDK II"
    assert P.unescape("a%7cb%7Cc") == "a|b|c"  # either case of hex digits
    assert P.unescape("k=v=w") == "k=v=w"
    for bad in ("%", "%2", "%zz", "a%G0"):
        with pytest.raises(ValueError):
            P.unescape(bad)


def test_value_may_contain_equals():
    rec = P.parse_candidate(P.encode_record(1, "cfg", [("expr", "a=b=c")]))
    assert rec["fields"]["expr"] == "a=b=c"


def test_decode_values_run_length():
    assert P.decode_values("31*4,32") == [31, 31, 31, 31, 32]
    assert P.decode_values("5") == [5]
    assert P.decode_values("") == []
    assert P.decode_values("0*3,18446744073709551615") == [0, 0, 0, 2 ** 64 - 1]
    for bad in ("1,,2", "1*0", "a", "1*", "-1", "01", "18446744073709551616", "1*2*3"):
        with pytest.raises(ValueError):
            P.decode_values(bad)


def test_encode_values_compresses_runs():
    vals = [31, 31, 31, 31, 32, 5, 5, 7]
    text = P.encode_values(vals)
    assert text == "31*4,32,5*2,7"
    assert P.decode_values(text) == vals


def test_split_candidates_and_noise():
    good = P.encode_record(0, "begin", {"proto": 1})
    assert P.split_candidates("\x1b[2J\x1b[01;01H" + good) == [good]
    # A record whose line ending was lost is followed by the next on the same line.
    two = "noise@BM 1 5 msg text=cut" + good
    assert P.split_candidates(two) == ["@BM 1 5 msg text=cut", good]
    assert P.split_candidates("BdsDxe: loading Boot0001") == []


def test_parse_errors():
    good = P.encode_record(3, "msg", {"text": "hello"})
    with pytest.raises(P.RecordError) as e:
        P.parse_candidate(good[:-5])
    assert e.value.kind == "corrupt"
    with pytest.raises(P.RecordError) as e:
        P.parse_candidate(good.replace("hello", "hellO"))
    assert e.value.kind == "corrupt" and "CRC" in str(e.value)
    with pytest.raises(P.RecordError) as e:
        P.parse_candidate(P.encode_record(3, "msg", {"text": "x"}, version=2))
    assert e.value.kind == "version" and e.value.version == 2 and e.value.seq == 3
    body = "@BM 1 3 msg BAD"
    with pytest.raises(P.RecordError) as e:
        P.parse_candidate("%s |%s" % (body, P.crc_hex(body)))
    assert e.value.kind == "malformed"


def test_trailing_noise_after_crc_is_tolerated():
    good = P.encode_record(1, "msg", {"text": "x"})
    rec = P.parse_candidate(good + "\x1b[0m\r")
    assert rec["fields"] == {"text": "x"}


def test_repeated_key_kept():
    body = "@BM 1 9 plat kind=serial kind=io base=0x3f8"
    rec = P.parse_candidate("%s |%s" % (body, P.crc_hex(body)))
    assert rec["fields"]["kind"] == "serial" and rec["fields"]["kind.2"] == "io"
    assert rec["repeated"] == ["kind"]
