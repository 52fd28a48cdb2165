"""The docs made from the probe registry and the options table stay in step with them.

docs/options.md is generated (scripts/gen_docs.py, `make docs`): a stale copy fails here.
docs/probes.md is written by hand, but has exactly one `## <name>` section per registered probe.
The README keeps no options table of its own: docs/options.md is the one.
"""
import os
import pathlib
import re

from script_module import load_script

ROOT = pathlib.Path(__file__).resolve().parents[2]


gen_docs = load_script("gen_docs")


def test_options_md_is_current():
    committed = (ROOT / "docs/options.md").read_text()
    assert committed == gen_docs.generate(), "docs/options.md is stale: run `make docs`"


def test_registry_and_options_parse():
    options = gen_docs.read_options()
    probes = gen_docs.read_probes()
    keys = [o["key"] for o in options]
    names = [p["name"] for p in probes]
    assert len(keys) == len(set(keys)) and "probes" in keys
    assert len(names) == len(set(names)) and names
    assert any(p["default"] for p in probes) and not all(p["default"] for p in probes)
    for p in probes:
        assert p["what"], p["name"]
        assert set(p["options"]) <= set(keys), (p["name"], set(p["options"]) - set(keys))
    for o in options:
        assert o["type"] in gen_docs.TYPE_WORDS, o["key"]


def test_probes_md_has_one_section_per_probe():
    names = [p["name"] for p in gen_docs.read_probes()]
    text = (ROOT / "docs/probes.md").read_text()
    headings = re.findall(r"^## +(\S+)\s*$", text, re.M)
    headings = [h.strip("`") for h in headings]
    dup = sorted({h for h in headings if headings.count(h) > 1})
    assert not dup, f"docs/probes.md: sections repeated: {dup}"
    missing = sorted(set(names) - set(headings))
    assert not missing, f"docs/probes.md: no section for {missing}"
    extra = sorted(set(headings) - set(names))
    assert not extra, f"docs/probes.md: sections for probes the registry does not have: {extra}"


def test_readme_has_no_options_table():
    keys = {o["key"] for o in gen_docs.read_options()}
    rows = [line for line in (ROOT / "README.md").read_text().splitlines()
            if (m := re.match(r"\|\s*`([a-z_0-9]+)`", line)) and m.group(1) in keys]
    assert not rows, f"README.md repeats the options table (docs/options.md is the one): {rows[:3]}"


def test_config_template_is_current():
    committed = (ROOT / "docs/baremetric.cfg").read_text()
    assert committed == gen_docs.generate_template(), "docs/baremetric.cfg is stale: run `make docs`"


def test_config_template_has_every_option_commented_out():
    """Every option once, as `# key=default` (the firmware's unit test, config/template_changes_nothing,
    parses the same file as it is and uncommented); no line is a setting as it stands."""
    options = gen_docs.read_options()
    text = gen_docs.generate_template()
    lines = text.splitlines()
    assert all(line == "" or line.startswith("#") for line in lines)
    settings = [m.group(1) for line in lines if (m := re.match(r"# ([a-z_0-9]+)=", line))]
    assert settings == [o["key"] for g in gen_docs.template_groups(options) for o in g[1]]
    assert sorted(settings) == sorted(o["key"] for o in options)
    assert len(text.encode()) <= gen_docs.TEMPLATE_MAX and all(len(line) <= 100 or "probes=" in line
                                                               for line in lines)


def test_template_groups_keep_every_option():
    """An option no group's prefix matches still appears, in the last group."""
    extra = {"key": "brand_new", "type": "U64", "default": "1", "accepts": "0 or 1", "what": "new"}
    groups = gen_docs.template_groups(gen_docs.read_options() + [extra])
    assert groups[-1][0] == gen_docs.OTHER_GROUP and groups[-1][1] == [extra]


def test_mkimage_puts_the_template_on_the_stick(tmp_path):
    """scripts/mkimage.sh copies docs/baremetric.cfg to where the firmware reads its config
    (efi/boot_options.c: the folder of the loaded image, \\EFI\\BOOT\\)."""
    import shutil
    import subprocess
    if not (shutil.which("mformat") and shutil.which("sgdisk")):
        import pytest
        pytest.skip("mtools or sgdisk not installed")
    efi = tmp_path / "stand-in.efi"
    efi.write_bytes(b"MZ" + bytes(100))
    img = tmp_path / "disk.img"
    subprocess.run(["sh", str(ROOT / "scripts/mkimage.sh"), str(efi), str(img), "40", "BOOTAA64.EFI"], check=True)
    got = tmp_path / "got.cfg"
    subprocess.run(["mcopy", "-n", "-i", "%s@@%d" % (img, 2048 * 512), "::/EFI/BOOT/baremetric.cfg", str(got)],
                   check=True)
    assert got.read_bytes() == (ROOT / "docs/baremetric.cfg").read_bytes()
    res = subprocess.run(["sh", str(ROOT / "scripts/mkimage.sh"), str(efi), str(tmp_path / "x.img"), "40",
                          "BOOTX64.EFI"], capture_output=True, text=True,
                         env=dict(os.environ, MKIMAGE_TEMPLATE=str(tmp_path / "none.cfg")))
    assert res.returncode != 0 and "no config template" in res.stderr and not (tmp_path / "x.img").exists()
