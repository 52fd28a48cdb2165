"""`baremetric qemu --image IMG` keeps IMG's own baremetric.cfg: the image's lines stay, `--set`
goes on top (the image's line of that key commented out: the firmware reports a key given twice),
the QEMU defaults only fill keys the file does not set (and that the firmware's default does not
already give), and the command says which keys it changed. The images are made by
scripts/mkimage.sh on a stand-in .efi (as tests/python/test_image.py does): no firmware build."""

import os
import shutil
import subprocess

import pytest

from bmharness import cli
from bmharness.run import qemu, runconfig
from test_image import MKIMAGE, MIB_SECTORS, SECTOR

ESP = "@@%d" % (MIB_SECTORS * SECTOR)
OWN = "# the user's options\r\nsamples = 64   # more samples\r\nseed=3\r\n# seed = 7\r\nprobes = spin\r\n"


def make_image(tmp_path, cfg_text, name="user.img"):
    if not (shutil.which("mformat") and shutil.which("sgdisk") and shutil.which("mtype")):
        pytest.skip("mtools or sgdisk not installed")
    efi = tmp_path / "stand-in.efi"
    efi.write_bytes(b"MZ" + bytes(100))
    cfg = tmp_path / "own.cfg"
    cfg.write_bytes(cfg_text.encode())
    img = tmp_path / name
    subprocess.run(["sh", MKIMAGE, str(efi), str(img), "40"], check=True,
                   env=dict(os.environ, MKIMAGE_TEMPLATE=str(cfg)))
    return str(img)


def esp_file(img, path="::/EFI/BOOT/baremetric.cfg"):
    return subprocess.run(["mtype", "-i", img + ESP, path], capture_output=True, check=True,
                          env=dict(os.environ, MTOOLS_SKIP_CHECK="1")).stdout.decode()


def test_overlay_keeps_the_images_lines():
    text, settings, changes = runconfig.overlay(OWN, {"seed": "5", "samples": "64"})
    lines = text.split("\r\n")
    assert lines[:5] == ["# the user's options", "samples = 64   # more samples",
                         "# seed=3  # replaced by the harness below", "# seed = 7", "probes = spin"]
    assert [k for _, k, _ in runconfig.read_settings(text)].count("seed") == 1  # not twice
    assert dict((k, v) for _, k, v in runconfig.read_settings(text))["seed"] == "5"
    assert settings["samples"] == "64" and settings["seed"] == "5" and settings["probes"] == "spin"
    assert settings["shutdown"] == "debug-exit"  # a QEMU default the image does not set
    keys = {c[0]: c for c in changes}
    assert keys["seed"] == ("seed", "3", "5", "--set")
    assert "samples" not in keys  # --set to the image's own value: nothing changed
    assert keys["shutdown"] == ("shutdown", None, "debug-exit", "QEMU default")
    # the firmware's own default (samples=16, tsc_cal_ms=100) is not written over an unset key
    assert "tsc_cal_ms" not in keys and "tsc_cal_ms" not in text
    _, s2, c2 = runconfig.overlay("samples = 32\n", {})
    assert s2["samples"] == "32" and "samples" not in {c[0] for c in c2}


def test_overlay_of_no_file_is_the_harness_settings():
    text, settings, changes = runconfig.overlay("", {"probes": "timer"})
    assert dict((k, v) for _, k, v in runconfig.read_settings(text))["probes"] == "timer"
    assert settings == runconfig.merged({"probes": "timer"})
    with pytest.raises(runconfig.ConfigError):
        runconfig.overlay(OWN, {"samples": "0"})  # --set is checked; the image's lines are not


def test_read_settings_reads_as_the_firmware():
    text = "\ufeffa = 1\n# b = 2\nc # = 3\nd = x # y\r\ne=\rnot a pair\n"
    assert runconfig.read_settings(text) == [(1, "a", "1"), (4, "d", "x"), (5, "e", "")]


def test_image_config_kept_and_set_on_top(tmp_path):
    img = make_image(tmp_path, OWN)
    assert qemu.image_config(img) == OWN
    out = tmp_path / "run"
    settings, text, changes = qemu.prepare(str(out), image=img, settings={"seed": "5"})
    assert esp_file(str(out / "baremetric.img")) == text == (out / "baremetric.cfg").read_bytes(
        ).decode()
    assert text.startswith(OWN.split("seed=3")[0]) and "probes = spin\r\n" in text
    assert settings["samples"] == "64" and settings["seed"] == "5"
    assert ("seed", "3", "5", "--set") in changes and "samples" not in {c[0] for c in changes}
    assert esp_file(img) == OWN  # the user's image itself is untouched
    # without USB (a fat: directory) the same file is served
    settings, text2, _ = qemu.prepare(str(tmp_path / "fat"), image=img, settings={"seed": "5"},
                                      usb=False)
    assert (tmp_path / "fat/esp/EFI/BOOT/baremetric.cfg").read_bytes().decode() == text2 == text


def test_image_config_at_the_root(tmp_path):
    """A file at the partition's root (where the firmware looks next) is read as well."""
    img = make_image(tmp_path, OWN)
    subprocess.run(["mmove", "-i", img + ESP, "::/EFI/BOOT/baremetric.cfg", "::/baremetric.cfg"],
                   check=True, env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
    assert qemu.image_config(img) == OWN
    assert qemu.image_config(make_image(tmp_path, "", "empty.img")) == ""


def test_qemu_command_prints_what_it_changed(tmp_path, monkeypatch, capsys):
    img = make_image(tmp_path, OWN)
    ran = []

    def fake_run(cmd, timeout, out_dir, stop_after=None):  # QEMU not started: the firmware's "ok" exit
        ran.append(cmd)
        for f in ("qemu.stdout", "qemu.stderr"):
            open(os.path.join(out_dir, f), "w").close()
        return 3, False, False, 0.1, False

    monkeypatch.setattr(qemu, "check_tools", lambda *a, **k: None)
    monkeypatch.setattr(qemu, "_run", fake_run)
    code = cli.main(["qemu", "--image", img, "--out", str(tmp_path / "o"), "--set", "seed=5",
                     "--set", "samples=64"])
    out = capsys.readouterr().out
    assert ran and code in (0, 1), out
    assert "config: the image's baremetric.cfg, with the harness's changes:" in out
    assert "  seed = 5 (--set; the image's file: 3)" in out
    assert "  shutdown = debug-exit (QEMU default; the image's file: not set)" in out
    assert "  samples =" not in out  # the image already had it
