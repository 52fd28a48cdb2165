"""Every record on the boot stick (docs/saving.md): QEMU boots the USB image from qemu-xhci +
usb-storage, the firmware writes \\BAREMETRIC\\RUN_NNN.LOG through its own xHCI and mass-storage
drivers after ExitBootServices, and the harness reads the image back (bmharness.stream.stick).

Asserted: with serial, the stick's stream equals the serial stream's record lines byte for byte
from the begin record on; with -serial none the stick alone gives a complete, valid run; the stick behind a (full-speed) hub,
at high speed and at SuperSpeed (and with no USB 2 ports at all), two hubs deep on QEMU's NEC
controller; the other files on the stick are unchanged and fsck.fat -n is clean; a
second stick and a usb-uas disk beside the stick are never written; a stick too small for the pre-allocation gives a reason and an
intact serial log; QEMU killed mid-run leaves a prefix that parses as truncated, every record in
it valid. AArch64 (virt + AAVMF, PCIe qemu-xhci) saves the same way."""

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess

import pytest

from bmharness.stream.stick import runs as stick_runs
from bmharness.stream.stick.device import StickError

from configs import CONFIGS, SAVE_NEC_PCI_ID, SAVE_SHORT as SHORT
from conftest import IMAGE, boot, boot_config

# The boots are entries of configs.py (SAVE: save_serial, save_hub, ..., a64_save_hub), booted in
# the session's pool; the fixtures below give them the names the tests use.
ESP = "@@1M"  # the image's partition starts at 1 MiB (scripts/mkimage.sh)
BEGIN = re.compile(rb"@BM [0-9]+ 0 begin ")  # any protocol version

pytestmark = pytest.mark.save


def plats(b, status=None):
    return [p for p in b.plats("save") if status is None or p["status"] == status]


def stick_run(b):
    """(Stick, newest Run) of the boot's image copy."""
    st = stick_runs.open_stick(os.path.join(b.out_dir, "baremetric.img"))
    return st, st.select()


def stick_bytes(b):
    st, run = stick_run(b)
    with run.open_stream() as fh:
        data = fh.read()
    st.close()
    return run, data


def serial_records(b):
    """The serial log's record lines from begin on, as sent (the firmware's console lines before
    ExitBootServices, which OVMF mirrors to the same port, are not records)."""
    with open(b.run["serial_log"], "rb") as fh:
        data = fh.read()
    m = BEGIN.search(data)
    assert m, "no begin record on serial"
    start = m.start()
    return b"".join(line for line in data[start:].splitlines(keepends=True) if line.startswith(b"@BM "))


def check_live(b):
    planned, live = plats(b, "planned"), plats(b, "live")
    assert len(planned) == 1 and len(live) == 1, b.plats("save")
    assert not plats(b, "failed"), plats(b, "failed")
    assert planned[0]["file"].upper().startswith("\\BAREMETRIC\\RUN_")
    return planned[0], live[0]


def check_complete(summary):
    v = summary["validation"]
    assert v["counts"]["corrupt"] == 0 and not v["truncated"], v
    assert summary["end"]["status"] == "ok", summary["end"]


@pytest.fixture(scope="module")
def saved(save_serial):
    return save_serial


@pytest.fixture(scope="module")
def saved_noserial(save_noserial):
    return save_noserial


def test_plan_then_live(saved):
    planned, live = check_live(saved)
    assert planned["capacity"] == 16 * 1024 * 1024 and planned["block"] == 512
    assert planned["extents"] >= 1 and planned["usb_port"]
    assert live["blocks"] > 0


def test_stick_equals_serial(saved):
    run, data = stick_bytes(saved)
    assert run.header["state"] == "closed", run.header
    assert data == serial_records(saved)


def test_stick_run_parses_complete(saved, tmp_path):
    st, run = stick_run(saved)
    summary = stick_runs.parse_run(st, run, str(tmp_path / "parsed"))
    st.close()
    check_complete(summary)


def _esp_files(image):
    """{path: sha256} of every file in the image's FAT partition outside BAREMETRIC/."""
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    listing = subprocess.run(["mdir", "-/", "-b", "-i", image + ESP, "::/"], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
    out = {}
    for path in listing:
        if path.upper().startswith("::/BAREMETRIC") or path.endswith("/"):
            continue
        data = subprocess.run(["mtype", "-i", image + ESP, path], env=env, capture_output=True)
        if data.returncode == 0:  # directories also list; they do not mtype
            out[path] = hashlib.sha256(data.stdout).hexdigest()
    return out


def test_other_files_unchanged_and_fsck_clean(saved, tmp_path):
    img = os.path.join(saved.out_dir, "baremetric.img")
    before = str(tmp_path / "before.img")
    shutil.copyfile(IMAGE, before)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    subprocess.run(["mcopy", "-o", "-i", before + ESP, os.path.join(saved.out_dir, "baremetric.cfg"),
                    "::/EFI/BOOT/baremetric.cfg"], env=env, check=True)
    want, got = _esp_files(before), _esp_files(img)
    assert want and got == want
    part = str(tmp_path / "part.img")
    subprocess.run(["dd", "if=" + img, "of=" + part, "bs=1M", "skip=1", "status=none"], check=True)
    fsck = subprocess.run(["fsck.fat", "-n", part], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


def test_noserial_stick_alone_complete(saved_noserial, tmp_path):
    assert os.path.getsize(saved_noserial.run["serial_log"]) == 0
    st, run = stick_run(saved_noserial)
    summary = stick_runs.parse_run(st, run, str(tmp_path / "parsed"))
    st.close()
    check_complete(summary)
    assert run.header["state"] == "closed"


@pytest.fixture(scope="module")
def saved_hub(save_hub):
    """The stick behind a hub on root port SAVE_HUB_PORT (configs.py)."""
    return save_hub


def test_behind_hub(saved_hub):
    planned, live = check_live(saved_hub)
    # root port, then the hub's port 1 (QEMU's usb-hub is a full-speed hub: a USB 2 root port)
    assert planned["usb_port"].count(".") == 1 and planned["usb_port"].endswith(".1"), planned
    assert live["speed"] == "full"
    # the walk found it where the device path said (OVMF numbers ports as the spec does)
    assert live["usb_port"] == planned["usb_port"] and live["lun"] == 0, live
    run, data = stick_bytes(saved_hub)
    assert run.header["state"] == "closed" and data == serial_records(saved_hub)


@pytest.fixture(scope="module")
def saved_high(save_high):
    """qemu-xhci offers each bus port at USB 2 (p2) and USB 3 (p3) speed, and usb-storage takes
    SuperSpeed where it can: with no USB 3 ports (p3=0) it attaches at high speed."""
    return save_high


def test_high_speed(saved_high):
    planned, live = check_live(saved_high)
    assert live["speed"] == "high"
    run, data = stick_bytes(saved_high)
    assert run.header["state"] == "closed" and data == serial_records(saved_high)


def test_super_speed_by_default(saved):
    assert check_live(saved)[1]["speed"] == "super"


@pytest.fixture(scope="module")
def saved_two(tmp_path_factory):
    """A second, non-bootable FAT stick on another port (created before the boot)."""
    out = tmp_path_factory.mktemp("second_stick")
    other = str(out / "other.img")
    subprocess.run(["dd", "if=/dev/zero", "of=" + other, "bs=1M", "count=40", "status=none"], check=True)
    subprocess.run(["mkfs.fat", "-F", "32", other], check=True, capture_output=True)
    before = hashlib.sha256(open(other, "rb").read()).hexdigest()
    # and a UAS disk (usb-uas + scsi-hd) on port 2, a FAT volume too: OVMF has no UAS driver and
    # ours drives Bulk-Only only, so it is left alone whatever the walk meets
    uas = str(out / "uas.img")
    shutil.copyfile(other, uas)
    devices = ["-device", "usb-storage,drive=stick,bus=xhci.0,port=1",
               "-drive", "if=none,id=other,format=raw,file=" + other,
               "-device", "usb-storage,drive=other,bus=xhci.0,port=3",
               "-drive", "if=none,id=uasdisk,format=raw,file=" + uas,
               "-device", "usb-uas,id=uas,bus=xhci.0,port=2",
               "-device", "scsi-hd,bus=uas.0,scsi-id=0,lun=0,drive=uasdisk"]
    b = boot(tmp_path_factory, "save_two", dict(SHORT), usb_devices=devices)
    return b, (other, uas), before


def test_second_stick_never_written(saved_two):
    b, others, before = saved_two
    check_live(b)
    for other in others:
        assert hashlib.sha256(open(other, "rb").read()).hexdigest() == before, other
    run, data = stick_bytes(b)
    assert data == serial_records(b)


def test_super_speed_only_ports(save_super_only):
    """qemu-xhci,p2=0: USB 3 root ports only."""
    planned, live = check_live(save_super_only)
    assert live["speed"] == "super" and live["usb_port"] == planned["usb_port"], (planned, live)
    run, data = stick_bytes(save_super_only)
    assert data == serial_records(save_super_only)


def test_nec_controller_two_hubs_deep(save_nec_hubs):
    """The stick behind two hubs on nec-usb-xhci: found by the walk where the device path said
    (root port, hub port, hub port), saved byte for byte."""
    planned, live = check_live(save_nec_hubs)
    assert int(planned["pci_id"], 16) == SAVE_NEC_PCI_ID, planned
    assert planned["usb_port"].count(".") == 2 and planned["usb_port"].endswith(".1.3"), planned
    assert live["usb_port"] == planned["usb_port"] and live["lun"] == 0, live
    assert live["speed"] == "full", live  # QEMU's usb-hub is a USB 1.1 hub
    run, data = stick_bytes(save_nec_hubs)
    assert data == serial_records(save_nec_hubs)


@pytest.fixture(scope="module")
def saved_too_small(save_too_small):
    return save_too_small


def test_too_small_stick_gives_reason(saved_too_small):
    off = plats(saved_too_small, "off")
    assert len(off) == 1 and "free space" in off[0]["reason"], saved_too_small.plats("save")
    check_complete(saved_too_small.summary)
    # nothing was created: not even the BAREMETRIC directory
    with pytest.raises(StickError, match="without a BAREMETRIC directory"):
        stick_runs.open_stick(os.path.join(saved_too_small.out_dir, "baremetric.img"))


@pytest.fixture(scope="module")
def saved_killed(save_killed):
    """QEMU killed after SAVE_KILL_AFTER_S while the noise probe still runs (configs.py)."""
    return save_killed


def test_killed_run_leaves_valid_prefix(saved_killed, tmp_path):
    assert saved_killed.run["timed_out"]
    st, run = stick_run(saved_killed)
    assert run.header["state"] == "open" and run.header["valid"] > 0, run.header
    summary = stick_runs.parse_run(st, run, str(tmp_path / "parsed"))
    st.close()
    v = summary["validation"]
    assert v["truncated"] and v["counts"]["corrupt"] == 0, v
    assert v["counts"]["sets"] > 0  # the timer and spin sets were flushed before noise began
    _, data = stick_bytes(saved_killed)
    assert serial_records(saved_killed).startswith(data)


@pytest.fixture(scope="module")
def a64_saved(a64_save_serial):
    return a64_save_serial


@pytest.fixture(scope="module")
def a64_saved_noserial(a64_save_noserial):
    return a64_save_noserial


@pytest.mark.aarch64
def test_a64_nec_super_only(a64_save_nec_super_only):
    """AArch64, nec-usb-xhci with p2=0: SuperSpeed on another vendor's controller, byte for byte."""
    b = a64_save_nec_super_only
    planned, live = check_live(b)
    assert int(planned["pci_id"], 16) == SAVE_NEC_PCI_ID and live["speed"] == "super", (planned, live)
    assert live["usb_port"] == planned["usb_port"], (planned, live)
    run, data = stick_bytes(b)
    assert data == serial_records(b)


@pytest.mark.aarch64
def test_a64_stick_equals_serial(a64_saved):
    check_live(a64_saved)
    run, data = stick_bytes(a64_saved)
    assert run.header["state"] == "closed" and data == serial_records(a64_saved)


@pytest.fixture(scope="module")
def a64_saved_hub(a64_save_hub, tmp_path_factory):
    return _booted_or_again(a64_save_hub, "a64_save_hub", tmp_path_factory)


def _booted_or_again(b, name, tmp_path_factory):
    """The boot, or when AAVMF never started our image, one more boot of the same configuration.
    AAVMF's boot manager sometimes lists its boot options before the stick behind the hub has
    enumerated and starts its UEFI Shell instead (2 of 6 boots here, unchanged image and command
    line); the shell then runs the stick's startup.nsh (scripts/mkimage.sh), which starts our image,
    and that boot is judged like any other. Only a shell that did not see the stick either (no
    record at all) boots again: our image never ran, there is nothing of ours to judge; a stick
    really not found fails both."""
    if not _fell_to_shell(b):
        return b
    print("AAVMF started its shell, not the stick (%s): booting once more" % name)
    again = dataclasses.replace(CONFIGS[name], name=name + "_again")
    b = boot_config(tmp_path_factory, again)
    if _fell_to_shell(b):
        # AAVMF never listed the stick in either boot, so our image never ran. This is an
        # expected failure of the firmware's boot manager, not a verdict on our saving: 2 fresh-clone
        # make tests of 5 saw it, beside another boot and alone.
        pytest.xfail("AAVMF started its UEFI Shell in both boots of %s: the stick behind the hub "
                     "was never offered as a boot option, our image never ran" % name)
    return b


def _fell_to_shell(b):
    """The firmware started its UEFI Shell and never our image (no record in the serial log)."""
    with open(b.run["serial_log"], "rb") as fh:
        text = fh.read()
    return b"@BM " not in text and b'"EFI Internal Shell"' in text


@pytest.mark.aarch64
def test_a64_behind_hub(a64_saved_hub):
    planned, live = check_live(a64_saved_hub)
    assert planned["usb_port"].endswith(".1") and live["speed"] == "full"
    run, data = stick_bytes(a64_saved_hub)
    assert run.header["state"] == "closed" and data == serial_records(a64_saved_hub)


@pytest.mark.aarch64
def test_a64_noserial_stick_alone_complete(a64_saved_noserial, tmp_path):
    st, run = stick_run(a64_saved_noserial)
    summary = stick_runs.parse_run(st, run, str(tmp_path / "parsed"))
    st.close()
    check_complete(summary)
