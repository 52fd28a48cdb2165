"""An unattended fleet boot (docs/fleet.md, section 1) under QEMU, with short options: one stick
whose baremetric.cfg is overridden by a file named after the machine's SMBIOS system product
(QEMU's -smbios type=1,product=...), repeat=2 and after=boot-os. Asserted: the cfg_choice record
names the product file and why; the product file's values took effect over baremetric.cfg; each
pass is announced and its sets carry pass=k, both passes alike; BootNext in the OVMF variable store
after the run is the option the `plat kind=after` record names, an active boot option of BootOrder
other than this boot's; the serial console from our first line on is plain text (no escape
sequence, no control byte but CR and LF), the progress lines are plain lines, and the fixed done
line comes after the end record. A second boot on a machine whose product has no file: the choice
says so and the base file's options stand."""

import os
import re
import struct

import pytest

from configs import DONE_LINE as _DONE, FLEET_BOARD as BOARD, FLEET_PRODUCT as PRODUCT, HOLD_AFTER_S

DONE_LINE = _DONE.encode()

# OVMF's authenticated variable store (EDK II MdeModulePkg/Include/Guid/VariableFormat.h:
# AUTHENTICATED_VARIABLE_HEADER): StartId 0x55AA, State (VAR_ADDED 0x3F once fully written,
# bits cleared as it is deleted), ..., NameSize at 36, DataSize at 40, VendorGuid; then the
# UCS-2 name and the data.
VAR_HEADER = 60
VAR_START_ID = 0x55AA
VAR_ADDED = 0x3F


def uefi_var(store, name):
    """The data of the live (State VAR_ADDED) variable `name` in an OVMF vars file, or None."""
    key = (name + "\0").encode("utf-16-le")
    i = store.find(key)
    while i >= 0:
        h = i - VAR_HEADER
        if h >= 0 and struct.unpack_from("<H", store, h)[0] == VAR_START_ID and store[h + 2] == VAR_ADDED:
            name_size, data_size = struct.unpack_from("<II", store, h + 36)
            if name_size == len(key):
                return store[i + name_size:i + name_size + data_size]
        i = store.find(key, i + 1)
    return None


# The boots: configs.py UNATTENDED (booted in the pool).
@pytest.fixture(scope="module")
def fleet(unattended):
    return unattended


@pytest.fixture(scope="module")
def unmatched(unattended_other):
    return unattended_other


@pytest.fixture(scope="module")
def fleet_a64(unattended_a64):
    return unattended_a64


def serial(b):
    with open(b.run["serial_log"], "rb") as fh:
        return fh.read()


def ours(log):
    """The serial log from the firmware's first console line on (before it: OVMF's own output)."""
    i = log.find(b"baremetric ")
    assert i >= 0, "our start line is not on the serial console"
    return log[i:]


def test_product_file_chosen(fleet):
    choice = fleet.plat("cfg_choice")
    choice = choice[0] if isinstance(choice, list) else choice
    assert choice["file"].replace("/", "\\").lower() == ("\\EFI\\BOOT\\cfg\\%s.cfg" % PRODUCT).lower()
    assert "system product" in choice["why"]
    assert choice["system_product"] == PRODUCT and choice["board_product"] == BOARD
    cfg = fleet.summary["cfg"]
    assert str(cfg["repeat"]) == "2" and str(cfg["samples"]) == "5"  # the product file's
    assert str(cfg["timer_samples"]) == "64" and cfg["after"] == "boot-os"  # baremetric.cfg's
    assert any("options from" in m["text"] and PRODUCT in m["text"] for m in fleet.summary["messages"])


def test_no_product_file(unmatched):
    choice = unmatched.plat("cfg_choice")
    choice = choice[0] if isinstance(choice, list) else choice
    assert choice["file"] == "none" and "no cfg" in choice["why"]
    assert choice["system_product"] == "Other Box"
    cfg = unmatched.summary["cfg"]
    assert str(cfg["repeat"]) == "1" and str(cfg["samples"]) == "4"
    assert not any(s["params"].get("pass") for s in unmatched.summary["sets"])
    assert unmatched.summary["end"]["status"] == "ok"


def test_reboot_resets_without_boot_next(unmatched):
    after = unmatched.plat("after")
    after = after[0] if isinstance(after, list) else after
    assert after["mode"] == "reboot" and after["status"] == "ok"
    with open(os.path.join(unmatched.out_dir, "OVMF_VARS_4M.fd"), "rb") as fh:
        assert uefi_var(fh.read(), "BootNext") is None
    # a reset (QEMU -no-reboot exits 0), not the debug-exit of a power-off ((0 << 1) | 1 for ok)
    assert unmatched.run["exit_code"] == 0 and not unmatched.run["timed_out"]


@pytest.fixture(scope="module")
def held(unattended_held):
    """after=hold: the done line, then the machine stays: stopped HOLD_AFTER_S after that line."""
    return unattended_held


def test_hold_stays_after_the_done_line(held):
    assert held.run["timed_out"], "after=hold ended the machine"
    assert held.run["stopped_after"] == [_DONE, HOLD_AFTER_S], "no done line: %s" % held.run["stopped_after"]
    assert held.summary["end"]["status"] == "ok"
    assert ours(serial(held)).rstrip(b"\r\n").endswith(DONE_LINE)


def test_two_passes(fleet):
    texts = [m["text"] for m in fleet.summary["messages"]]
    assert "pass 1 of 2" in texts and "pass 2 of 2" in texts
    by_pass = {}
    for s in fleet.summary["sets"]:
        by_pass.setdefault(str(s["params"].get("pass")), []).append(s)
    assert sorted(by_pass) == ["1", "2"]
    shape = [sorted((s["name"], s["n"]) for s in by_pass[k]) for k in ("1", "2")]
    assert shape[0] == shape[1] and shape[0]
    assert all(s["n"] == 5 for s in by_pass["1"] if s["name"] == "spin")
    end = fleet.summary["end"]
    assert end["status"] == "ok" and int(end["probes_run"]) == 4  # timer, spin twice


def test_boot_next_set(fleet):
    after = fleet.plat("after")
    after = after[0] if isinstance(after, list) else after
    assert after["mode"] == "boot-os" and after["status"] == "set", after
    nxt, cur = int(str(after["boot_next"]), 0), int(str(after["boot_current"]), 0)
    assert nxt != cur
    with open(os.path.join(fleet.out_dir, "OVMF_VARS_4M.fd"), "rb") as fh:
        store = fh.read()
    data = uefi_var(store, "BootNext")
    assert data is not None and len(data) == 2, "no BootNext in the variable store after the run"
    assert struct.unpack("<H", data)[0] == nxt
    order = uefi_var(store, "BootOrder")
    assert order and nxt in struct.unpack("<%dH" % (len(order) // 2), order)
    # after=boot-os resets (QEMU -no-reboot exits 0), never the debug-exit of a power-off
    assert fleet.run["exit_code"] == 0 and not fleet.run["timed_out"]


def test_a64_unattended(fleet_a64):
    b = fleet_a64
    choice = b.plat("cfg_choice")
    choice = choice[0] if isinstance(choice, list) else choice
    assert PRODUCT in choice["file"] and str(b.summary["cfg"]["repeat"]) == "2"
    assert sorted({str(s["params"].get("pass")) for s in b.summary["sets"]}) == ["1", "2"]
    after = b.plat("after")
    after = after[0] if isinstance(after, list) else after
    assert after["status"] == "set"
    with open(os.path.join(b.out_dir, "OVMF_VARS_4M.fd"), "rb") as fh:
        data = uefi_var(fh.read(), "BootNext")
    assert data is not None and struct.unpack("<H", data)[0] == int(str(after["boot_next"]), 0)
    text = ours(serial(b))
    assert b"\x1b" not in text and text.rstrip(b"\r\n").endswith(DONE_LINE)


def test_console_plain(fleet):
    text = ours(serial(fleet))
    assert b"\x1b" not in text, "an escape sequence on the serial console after our start"
    bad = set(re.findall(rb"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]", text))
    assert not bad, "control bytes on the serial console: %r" % bad
    lines = text.split(b"\r\n")
    progress = [ln for ln in lines if ln.startswith(b"baremetric progress: ")]
    assert progress and all(b"probe " in ln for ln in progress)
    assert not any(b"\r" in ln or b"\n" in ln for ln in progress)


def test_done_line_last(fleet, unmatched):
    for b in (fleet, unmatched):
        lines = [ln.rstrip(b"\r") for ln in ours(serial(b)).split(b"\n")]
        assert lines.count(DONE_LINE) == 1
        end = max(i for i, ln in enumerate(lines) if b" end records=" in ln)
        assert lines.index(DONE_LINE) > end


def test_hosted_repeat(tmp_path):
    """repeat=N in the hosted build (the suite is shared): N announced passes, the same sets each."""
    import subprocess
    from conftest import ROOT
    from bmharness.stream import parse
    exe = os.path.join(ROOT, "build", "hosted", "baremetric")
    if not os.access(exe, os.X_OK):
        pytest.fail("%s is missing: run `make hosted`" % exe)
    log = tmp_path / "hosted.log"
    with open(log, "wb") as fh:
        subprocess.run([exe, "probes=timer,spin", "timer_samples=64", "samples=4", "repeat=3"],
                       stdout=fh, stderr=subprocess.DEVNULL, timeout=120, check=False)
    s = parse.parse_log(str(log), str(tmp_path / "parsed"))
    assert [m["text"] for m in s["messages"] if m["text"].startswith("pass ")] == \
        ["pass 1 of 3", "pass 2 of 3", "pass 3 of 3"]
    shapes = {k: sorted((x["name"], x["n"]) for x in s["sets"] if str(x["params"].get("pass")) == k)
              for k in ("1", "2", "3")}
    assert shapes["1"] and shapes["1"] == shapes["2"] == shapes["3"]
    assert s["end"]["status"] == "ok" and int(s["end"]["probes_run"]) == 6
