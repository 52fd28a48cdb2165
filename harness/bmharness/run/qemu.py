"""Run the firmware image under QEMU (q35 + OVMF, TCG) with the image's config file and the
harness's settings on top.

`run_qemu` copies the image into the output directory, reads the image's own baremetric.cfg and
writes it back with the harness's settings on top (runconfig.overlay: `--set`, and the QEMU
defaults for keys the file does not set; run.json's config_changes says which) into the copy's FAT
partition with mtools (or, without USB, into a host directory served as a `fat:` drive), starts
QEMU with the serial port going to DIR/serial.log, kills it on timeout, and writes DIR/run.json.
The firmware's status comes from the isa-debug-exit device: QEMU exits with (v << 1) | 1.

arch="aarch64" runs build/aarch64/baremetric.img on `-machine virt,gic-version=3 -cpu max` with
Debian's AAVMF instead (ARCHES). That machine has no exit device: the firmware powers off through
PSCI (QEMU exits 0) and its status is the `end` record's.
"""

import contextlib
import datetime
import json
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time

from . import runconfig
from .sparse_copy import copy_sparse
from ..analysis import run_verdict
from ..stream import registry
from ..analysis.run_verdict import EXIT_DEVICE

# harness/bmharness/<subpackage>/<module>.py: four levels up is the source tree's root.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEFAULT_IMAGE = os.path.join(REPO_ROOT, "build", "x86_64", "baremetric.img")
QEMU = "qemu-system-x86_64"
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
ESP_OFFSET = "@@1M"            # the FAT partition starts at 1 MiB in the image
CFG_IN_ESP = "::/EFI/BOOT/baremetric.cfg"
CFG_IN_ROOT = "::/baremetric.cfg"  # where the firmware looks next (efi/boot_options.c)
CFG_MAX = 16384  # bytes of the file the firmware reads (efi/boot_options.c CONFIG_FILE_MAX)
EFI_IN_ESP = "::/EFI/BOOT/BOOTX64.EFI"
DEFAULT_TIMEOUT = 120
DEFAULT_TIMEOUT_ICOUNT = 600
ICOUNT_SHIFT_MAX = 10  # QEMU's -icount shift=N takes 0..10 (MAX_ICOUNT_SHIFT)
# AArch64 under TCG is slower: the default run takes ~80 s with --smp 2 (an idle core's wfe only
# yields, so its vCPU thread spins on the host) and a loaded host doubles that.
DEFAULT_TIMEOUT_AARCH64 = 300
STATUS_NAMES = {0: "ok", 1: "fail", 2: "fatal"}
# The run's verdict is analysis/run_verdict.py's (the report judges run.json without this module).
TIMEOUT_OPTION = run_verdict.TIMEOUT_OPTION
run_failed = run_verdict.run_failed
VARS_COPY = "OVMF_VARS_4M.fd"  # the writable variable store, copied into the run directory

# What differs between the architectures' QEMU runs. x86_64's entry is filled from the module's
# constants above when asked for (arch_info), so they stay the one place to change (or patch).
ARCHES = {
    "x86_64": None,
    "aarch64": {"qemu": "qemu-system-aarch64", "qemu_pkg": "qemu-system-arm",
                "code": "/usr/share/AAVMF/AAVMF_CODE.fd", "vars": "/usr/share/AAVMF/AAVMF_VARS.fd",
                "fw_pkg": "qemu-efi-aarch64", "machine": ["-machine", "virt,gic-version=3"],
                # AAVMF waits ~4.5 s, idle, before its boot options (its boot time-out) unless QEMU
                # hands it one: -boot menu=on passes splash-time as the boot-menu wait, 0 here
                # (measured: our first record at 1.9 s instead of 6.3 s). OVMF does not wait.
                "boot": ["-boot", "menu=on,splash-time=0"],
                "cpu": "max", "efi_name": "BOOTAA64.EFI",
                "image": os.path.join(REPO_ROOT, "build", "aarch64", "baremetric.img"),
                "exit_device": EXIT_DEVICE["aarch64"], "timeout": DEFAULT_TIMEOUT_AARCH64},
}


def default_timeout(arch="x86_64", icount=False):
    """Seconds before QEMU is killed when no timeout is given: the architecture's default, or
    the -icount one (10x slower boots) where that is larger."""
    base = arch_info(arch).get("timeout", DEFAULT_TIMEOUT)
    return max(base, DEFAULT_TIMEOUT_ICOUNT) if icount else base


# This thread's firmware swaps ({arch: (code, vars)}, firmware_override): a boot started by another
# thread (the test suite boots configurations in background threads) keeps the defaults.
_swaps = threading.local()


@contextlib.contextmanager
def firmware_override(arch, code, vars_file):
    """Within the block, boots of `arch` that this thread starts use another firmware build and
    variable store (the Secure Boot tests' snakeoil ones); other threads' boots are not touched."""
    saved = getattr(_swaps, "fw", {})
    _swaps.fw = dict(saved, **{arch: (code, vars_file)})
    try:
        yield
    finally:
        _swaps.fw = saved


def arch_info(arch):
    """The QEMU/firmware facts of one architecture (ARCHES), with this thread's firmware swap."""
    if arch not in ARCHES:
        raise HarnessError("unknown architecture %r (known: %s)" % (arch, ", ".join(sorted(ARCHES))))
    if arch == "x86_64":
        info = {"qemu": QEMU, "qemu_pkg": "qemu-system-x86", "code": OVMF_CODE, "vars": OVMF_VARS,
                "fw_pkg": "ovmf", "machine": ["-machine", "q35"], "cpu": None,
                "efi_name": "BOOTX64.EFI", "image": DEFAULT_IMAGE,
                "exit_device": EXIT_DEVICE["x86_64"]}
    else:
        info = ARCHES[arch]
    swap = getattr(_swaps, "fw", {}).get(arch)
    return dict(info, code=swap[0], vars=swap[1]) if swap else info


class HarnessError(Exception):
    """Setup problem (missing tool or file, mtools failure): the CLI reports it and exits 2."""


def missing_tools(need_mtools=True, qemu=None, arch="x86_64"):
    """[(what is missing, Debian package), ...] for QEMU (the system's, or the binary `qemu`),
    OVMF (AAVMF) and (optionally) mtools."""
    a = arch_info(arch)
    missing = []
    if shutil.which(qemu or a["qemu"]) is None:
        missing.append((qemu or a["qemu"], a["qemu_pkg"]))
    for path in (a["code"], a["vars"]):
        if not os.path.isfile(path):
            missing.append((path, a["fw_pkg"]))
    if need_mtools and shutil.which("mcopy") is None:
        missing.append(("mcopy", "mtools"))
    return missing


def apt_hint(missing):
    pkgs = []
    for _, pkg in missing:
        if pkg not in pkgs:
            pkgs.append(pkg)
    return "sudo apt-get install " + " ".join(pkgs)


def check_tools(need_mtools=True, qemu=None, arch="x86_64"):
    missing = missing_tools(need_mtools, qemu, arch)
    if missing:
        raise HarnessError("missing: %s\ninstall with: %s" % (
            ", ".join(m for m, _ in missing), apt_hint(missing)))


def _mtools(args):
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")  # our images need not match a floppy geometry
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise HarnessError("%s failed: %s"
                           % (shlex.join(args), (proc.stderr or proc.stdout).strip()))


def image_config(image):
    """The image's own baremetric.cfg as text ("" when it has none), from where the firmware
    reads it: the boot folder, else the root of the partition. Bytes that are not UTF-8 are
    kept as they are (surrogateescape)."""
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    for path in (CFG_IN_ESP, CFG_IN_ROOT):
        proc = subprocess.run(["mtype", "-i", image + ESP_OFFSET, path], env=env,
                              capture_output=True)
        if proc.returncode == 0:
            return proc.stdout.decode("utf-8", "surrogateescape")
    return ""


def decode_exit(code, timed_out=False, interrupted=False):
    """QEMU exit code -> (firmware status 0/1/2 or None, name)."""
    if timed_out:
        return None, "killed (timeout)"
    if interrupted:
        return None, "killed (interrupted)"
    if code is not None and code > 0 and code & 1 and (code >> 1) in STATUS_NAMES:
        return code >> 1, STATUS_NAMES[code >> 1]
    if code == 0:
        return None, "unknown (exit 0: no debug-exit; ACPI off, reset or halt)"
    if code is not None and code < 0:
        return None, "unknown (QEMU killed by signal %d)" % -code
    return None, "unknown (exit %s)" % code


def build_command(out_dir, mem=1024, smp=1, icount=False, cpu=None, usb=True, extra_args=None,
                  exit_port="0xf4", qemu=None, qemu_datadir=None, arch="x86_64", serial=True,
                  usb_devices=None, xhci_props="", pci_devices=None, icount_shift=0):
    """The QEMU argument list for a prepared out_dir. qemu: another QEMU binary (e.g. QEMU 10
    unpacked by scripts/qemu10.sh); qemu_datadir: its data directory (-L: firmware blobs, keymaps).
    serial=False: no serial port at all (-serial none). usb_devices: QEMU arguments that attach the
    stick (drive id `stick`) in place of a plain usb-storage on the controller (a hub, a port, a
    second stick); xhci_props: ",key=value..." for the qemu-xhci controller (id xhci);
    pci_devices: QEMU arguments placed before the controller (QEMU creates devices in order): the
    bridge or root port it sits behind (xhci_props then names it, ",bus=ID"), an IOMMU.
    icount_shift: with icount, each guest instruction is 2**shift ns of virtual time."""
    a = arch_info(arch)
    cmd = [qemu or a["qemu"]]
    if qemu_datadir:
        cmd += ["-L", qemu_datadir]
    cmd += a["machine"] + a.get("boot", []) + ["-m", str(mem), "-smp", str(smp)]
    if cpu or a["cpu"]:
        cmd += ["-cpu", cpu or a["cpu"]]
    cmd += ["-nographic", "-no-reboot",
            "-drive", "if=pflash,format=raw,readonly=on,file=%s" % a["code"],
            "-drive", "if=pflash,format=raw,file=%s" % os.path.join(out_dir, VARS_COPY)]
    if usb:
        cmd += list(pci_devices or ())
        cmd += ["-device", "qemu-xhci,id=xhci" + xhci_props,
                "-drive", "if=none,id=stick,format=raw,file=%s"
                % os.path.join(out_dir, "baremetric.img")]
        # bootindex: QEMU hands the firmware a boot order (fw_cfg bootorder), and OVMF then
        # connects that device rather than every one: our first record ~0.25 s sooner (measured,
        # 4.22-4.37 s against 4.49-4.69 s), as on a machine whose boot order names the stick
        cmd += list(usb_devices) if usb_devices else ["-device", "usb-storage,drive=stick,bootindex=0"]
    else:
        # QEMU's vvfat serves a host directory; writes to it are lost (see qemu-facts).
        cmd += ["-drive", "if=none,id=esp,format=raw,file=fat:rw:%s" % os.path.join(out_dir, "esp"),
                "-device", "virtio-blk-pci,drive=esp"]
    if a["exit_device"]:
        cmd += ["-device", "isa-debug-exit,iobase=%s,iosize=0x04" % exit_port]
    cmd += ["-serial", "file:%s" % os.path.join(out_dir, "serial.log") if serial else "none",
            "-monitor", "none", "-display", "none", "-net", "none"]
    if icount:
        cmd += ["-icount", "shift=%d" % icount_shift]
    return cmd + list(extra_args or ())


def put_files(img, files, out_dir):
    """Copy {path on the stick's FAT ("EFI/BOOT/cfg/<product>.cfg"): text} into the image,
    making the folders (a product's own options file: efi/boot_options.c)."""
    made = set()
    for i, (path, text) in enumerate(sorted(files.items())):
        parts = path.strip("/").split("/")
        for k in range(1, len(parts)):
            folder = "::/" + "/".join(parts[:k])
            if folder not in made:
                made.add(folder)
                # mmd fails on a folder the image has: only a missing one needs making
                subprocess.run(["mmd", "-i", img + ESP_OFFSET, folder], capture_output=True,
                               env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
        local = os.path.join(out_dir, "extra_file_%d" % i)
        with open(local, "wb") as fh:
            fh.write(text.encode("utf-8"))
        _mtools(["mcopy", "-o", "-i", img + ESP_OFFSET, local, "::/" + "/".join(parts)])


def prepare(out_dir, image=None, settings=None, usb=True, efi=None, extra_config="", arch="x86_64",
            extra_files=None):
    """Copy image + OVMF vars into out_dir and install the config: the image's own file with the
    harness's settings on top (runconfig.overlay). Returns (settings, cfg text, changes).

    extra_config: raw text appended to the file unchecked (to test the firmware's handling of
    unknown keys and bad values); extra_files: more files for the stick (put_files; USB only)."""
    a = arch_info(arch)
    image = os.path.abspath(image or a["image"])
    os.makedirs(out_dir, exist_ok=True)
    # Without an exit device the firmware powers off (PSCI): ask for that, not for debug-exit.
    defaults = None if a["exit_device"] else dict(runconfig.QEMU_DEFAULTS, shutdown="auto")
    runconfig.validate(settings or {})
    has_image = os.path.isfile(image)
    if not has_image and (usb or not efi):
        raise HarnessError("image not found: %s (build it first%s)" % (
            image, "" if usb else "; or pass --efi"))
    own = image_config(image) if has_image else ""
    text, settings, changes = runconfig.overlay(own, settings, defaults)
    if extra_config:
        text += extra_config if extra_config.endswith("\n") else extra_config + "\n"
    data = text.encode("utf-8", "surrogateescape")
    if len(data) > CFG_MAX:
        raise HarnessError("the image's baremetric.cfg with the harness's settings is %d bytes; "
                           "the firmware reads %d" % (len(data), CFG_MAX))
    cfg_path = os.path.join(out_dir, "baremetric.cfg")
    with open(cfg_path, "wb") as fh:
        fh.write(data)
    shutil.copyfile(a["vars"], os.path.join(out_dir, VARS_COPY))
    if usb:
        img = os.path.join(out_dir, "baremetric.img")
        copy_sparse(image, img)  # the stick's holes stay holes
        _mtools(["mcopy", "-o", "-i", img + ESP_OFFSET, cfg_path, CFG_IN_ESP])
        if extra_files:
            put_files(img, extra_files, out_dir)
    else:
        boot_dir = os.path.join(out_dir, "esp", "EFI", "BOOT")
        os.makedirs(boot_dir, exist_ok=True)
        target = os.path.join(boot_dir, a["efi_name"])
        if efi:
            if not os.path.isfile(efi):
                raise HarnessError("EFI binary not found: %s" % efi)
            shutil.copyfile(efi, target)
        else:
            _mtools(["mcopy", "-o", "-i", image + ESP_OFFSET, "::/EFI/BOOT/" + a["efi_name"], target])
        shutil.copyfile(cfg_path, os.path.join(boot_dir, "baremetric.cfg"))
    return settings, text, changes


STOP_POLL_S = 0.5  # how often the serial log is read for stop_after's text


def _seen(path, text, pos):
    """(True if text is in path's bytes from pos on, the position to read from next)."""
    start = max(0, pos - len(text))  # a text split across two reads is still found
    try:
        with open(path, "rb") as fh:
            fh.seek(start)
            data = fh.read()
    except OSError:
        return False, pos
    return text in data, start + len(data)


def _wait(proc, timeout, serial, stop_after):
    """Wait for QEMU to end, at most timeout seconds; with stop_after (text, seconds), at most
    that long after text appeared in the serial log. Returns "stopped" when stop_after ended it."""
    if not stop_after:
        proc.wait(timeout=timeout)
        return None
    text, after = stop_after[0].encode(), stop_after[1]
    deadline, pos, seen_at = time.monotonic() + timeout, 0, None
    while True:
        now = time.monotonic()
        if seen_at is None:
            found, pos = _seen(serial, text, pos)
            seen_at = now if found else None
        end = deadline if seen_at is None else min(deadline, seen_at + after)
        if now >= end:
            if seen_at is not None and now < deadline:
                return "stopped"
            raise subprocess.TimeoutExpired(proc.args, timeout)
        try:
            proc.wait(timeout=min(STOP_POLL_S, end - now))
            return None
        except subprocess.TimeoutExpired:
            pass


def _run(cmd, timeout, out_dir, stop_after=None):
    """Start QEMU in its own process group; stop it on timeout, stop_after or Ctrl-C."""
    timed_out = interrupted = stopped = False
    with open(os.path.join(out_dir, "qemu.stdout"), "wb") as so, \
            open(os.path.join(out_dir, "qemu.stderr"), "wb") as se:
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=so, stderr=se,
                                start_new_session=True)
        try:
            stopped = _wait(proc, timeout, os.path.join(out_dir, "serial.log"), stop_after) == "stopped"
        except subprocess.TimeoutExpired:
            timed_out = True
        except KeyboardInterrupt:
            interrupted = True
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)  # QEMU flushes the serial file on SIGTERM
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        duration = time.monotonic() - t0
    return proc.returncode, timed_out or stopped, interrupted, duration, stopped


def run_qemu(out_dir, image=None, settings=None, smp=1, mem=1024, icount=False, timeout=None,
             cpu=None, usb=True, efi=None, extra_args=None, extra_config="", qemu=None,
             qemu_datadir=None, arch="x86_64", serial=True, usb_devices=None, xhci_props="",
             pci_devices=None, extra_files=None, stop_after=None, icount_shift=0):
    """Prepare out_dir, run QEMU, write and return the run.json dict.

    settings: firmware config overrides ({key: value}) put over the image's own baremetric.cfg,
    which wins over runconfig.QEMU_DEFAULTS (prepare, runconfig.overlay);
    extra_config: raw lines appended to the config file unchecked; extra_args: more QEMU args;
    qemu, qemu_datadir: another QEMU binary and its -L data directory (default: the system's);
    stop_after: (text, seconds): QEMU is stopped that long after text appears in the serial log
    (a run cut on purpose, sooner than a timeout; it counts as timed out, and "stopped" says so).
    Raises HarnessError (or runconfig.ConfigError) for setup problems; nothing has run then."""
    a = arch_info(arch)
    if icount and not 0 <= icount_shift <= ICOUNT_SHIFT_MAX:
        raise HarnessError("icount shift %r: QEMU takes 0..%d" % (icount_shift, ICOUNT_SHIFT_MAX))
    check_tools(need_mtools=True, qemu=qemu, arch=arch)
    if qemu_datadir and not os.path.isdir(qemu_datadir):
        raise HarnessError("QEMU data directory not found: %s" % qemu_datadir)
    out_dir = os.path.abspath(out_dir)
    settings, cfg_text, changes = prepare(out_dir, image, settings, usb, efi, extra_config, arch,
                                          extra_files)
    if timeout is None:
        timeout = default_timeout(arch, icount)
    # The exit device sits where the firmware is told to write its status.
    port = settings.get("debug_exit_port", "0xf4")
    if runconfig.KEYS["debug_exit_port"](port):  # the image's own value, and a bad one
        port = registry.default("debug_exit_port")  # the firmware keeps the default
    port = port if port.startswith("0x") else hex(int(port))
    cmd = build_command(out_dir, mem, smp, icount, cpu, usb, extra_args, exit_port=port,
                        qemu=qemu, qemu_datadir=qemu_datadir, arch=arch, serial=serial,
                        usb_devices=usb_devices, xhci_props=xhci_props, pci_devices=pci_devices,
                        icount_shift=icount_shift)
    serial = os.path.join(out_dir, "serial.log")
    if os.path.exists(serial):
        os.remove(serial)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    code, timed_out, interrupted, duration, stopped = _run(cmd, timeout, out_dir, stop_after)
    status, name = decode_exit(code, timed_out, interrupted)
    if not a["exit_device"] and code == 0 and not (timed_out or interrupted):
        name = "in the end record (no exit device on this machine: PSCI power-off, exit 0)"
    with open(os.path.join(out_dir, "qemu.stderr"), "rb") as fh:
        stderr = fh.read().decode("utf-8", "replace")
    if not os.path.exists(serial):  # QEMU failed early: an empty log still parses and reports
        open(serial, "wb").close()
    serial_bytes = os.path.getsize(serial)
    result = {
        "command": cmd, "command_line": shlex.join(cmd), "started_utc": started,
        "exit_code": code, "firmware_status": status, "firmware_status_name": name,
        "timed_out": timed_out, "interrupted": interrupted, "timeout_s": timeout,
        "stopped_after": list(stop_after) if stopped else None,
        "duration_s": round(duration, 3),
        # QEMU itself exits 1 on a startup error, which looks like debug-exit "ok": tell apart.
        "qemu_error": bool(code == 1 and serial_bytes == 0 and stderr.strip()),
        "qemu_stderr": stderr[-4000:], "serial_log": serial, "serial_bytes": serial_bytes,
        "image": os.path.abspath(image or a["image"]), "boot": "usb" if usb else "fat", "arch": arch,
        "efi": os.path.abspath(efi) if efi else None,
        "smp": smp, "mem_mb": mem, "icount": icount,
        "icount_shift": icount_shift if icount else None, "cpu": cpu, "qemu": cmd[0],
        "config": settings, "config_text": cfg_text,
        # what the harness changed of the image's own file: [key, the image's value, ours, why]
        "config_changes": [list(c) for c in changes],
    }
    if result["qemu_error"]:
        result["firmware_status"], result["firmware_status_name"] = None, "unknown (QEMU error)"
    with open(os.path.join(out_dir, "run.json"), "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    return result
