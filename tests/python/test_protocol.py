"""Record codec: CRC framing, escapes, sample lists, candidate splitting."""

import random
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
        P.parse_candidate(P.encode_record(3, "msg", {"text": "x"}, version=3))
    assert e.value.kind == "version" and e.value.version == 3 and e.value.seq == 3
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


# --- version 2 value lists (docs/protocol.md "Sample values"; lib/emit.c) ---------------------

U64 = 2 ** 64 - 1


def test_v2_example_from_the_docs():
    # 31: zigzag 62 = 52 + 10 -> continuation digit 10 '/', final digit 0 'A'; 3 more copies
    # '*D'; 32: delta +1, zigzag 2 'C'; 7: delta -25, zigzag 49 'x'; 7 again: zero delta 'A'
    vals = [31, 31, 31, 31, 32, 7, 7]
    assert P.encode_values(vals, version=2) == "/A*DCxA"
    assert P.decode_values("/A*DCxA", version=2) == vals
    assert P.decode_values("", version=2) == []
    assert P.encode_number(0) == "A" and P.encode_number(51) == "z"
    assert P.encode_number(52) == "!A" and P.encode_number(52 + 34 * 52 - 1) == "~z"


def _distributions():
    r = random.Random(18)
    yield [r.randint(24, 26) for _ in range(3000)]                       # a timer's few values
    yield [r.choice((24, 49, 49, 49, 74)) for _ in range(3000)]          # runs of every length
    yield [int(r.gauss(60000, 9000)) for _ in range(3000)]               # interrupt latencies
    yield [r.randint(0, U64) for _ in range(500)]                        # any 64-bit value
    yield [r.choice((0, U64, 2 ** 63, 2 ** 63 - 1, 1)) for _ in range(500)]  # extremes, wrapped
    acc, ts = 0, []
    for _ in range(2000):                                                # rising time stamps
        acc += r.randint(1, 10 ** 7)
        ts.append(acc)
    yield ts
    yield [int(r.paretovariate(1.2) * 500) for _ in range(3000)]         # heavy-tailed gaps
    yield [5] * 5000 + [6] + [5] * 17                                    # one long run
    yield list(range(1000, 0, -1))                                       # falling by one
    yield [U64 - k for k in range(100)] + [k for k in range(100)]        # across the wrap


def test_v2_round_trip_over_distributions():
    allowed = set(P.DIGITS_MORE) | set(P.DIGITS_FINAL) | {P.RUN_MARK}
    for vals in _distributions():
        text = P.encode_values(vals, version=2)
        assert P.decode_values(text, version=2) == vals
        assert set(text) <= allowed and "@" not in text and "%" not in text
        assert P.decode_values(P.encode_values(vals), version=1) == vals  # version 1 the same


def test_v2_shorter_than_v1_for_measured_values():
    r = random.Random(1)
    lat = [int(r.gauss(60000, 9000)) for _ in range(3000)]
    v1, v2 = P.encode_values(lat), P.encode_values(lat, version=2)
    assert len(v2) < 0.55 * len(v1)


def test_v2_decoder_refuses_damage():
    for bad in ("!", "A*", "*B", "A*A", "A@", "A B", "A\x7fB", "AA*" + "~" * 12 + "z",
                "~" * 13 + "z"):
        with pytest.raises(ValueError):
            P.decode_values(bad, version=2)
    with pytest.raises(ValueError):
        P.decode_values("A*" + P.encode_number(1 << 20), version=2)  # past MAX_DECODE
    assert P.decode_values("B", version=2) == [U64]  # zigzag 1 = -1: 0 - 1 wraps to 2^64 - 1
    assert P.decode_values(P.encode_number(U64), version=2) == [2 ** 63]  # the largest number
