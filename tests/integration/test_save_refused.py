"""A stick saving cannot drive is refused with the reason docs/saving.md ("Known not to work")
quotes: the stick on a USB 2 EHCI controller (QEMU usb-ehci; the machine's qemu-xhci is left
empty) boots, and before ExitBootServices the firmware records why it does not save, says so on
the screen and in a warning, leaves the stick untouched (no BAREMETRIC directory) and runs on with
a complete serial log. One short boot (configs.SAVE_SHORT)."""

import os

import pytest

from bmharness.stream.stick import runs as stick_runs
from bmharness.stream.stick.device import StickError

from configs import SAVE_SHORT
from conftest import boot

pytestmark = pytest.mark.save

NOT_XHCI = "the boot stick is on a USB controller that is not xHCI (EHCI/OHCI/UHCI are not driven)"
EHCI_STICK = ["-device", "usb-ehci,id=ehci", "-device", "usb-storage,drive=stick,bus=ehci.0"]


@pytest.fixture(scope="module")
def on_ehci(tmp_path_factory):
    return boot(tmp_path_factory, "save_ehci", dict(SAVE_SHORT), usb_devices=EHCI_STICK)


def test_ehci_stick_is_refused_with_the_documented_reason(on_ehci):
    saves = on_ehci.plats("save")
    assert [(p["status"], p.get("reason")) for p in saves] == [("off", NOT_XHCI)], saves
    with open(on_ehci.run["serial_log"], "rb") as fh:
        serial = fh.read().decode("latin-1")
    assert "baremetric: results are not saved to the stick: " + NOT_XHCI in serial
    # the warning's msg record (its text %XX-escaped, docs/protocol.md)
    warn = "results are not saved to the boot stick: see the save record"
    assert "msg level=warn text=" + warn.replace(" ", "%20") in serial
    v = on_ehci.summary["validation"]
    assert v["counts"]["corrupt"] == 0 and not v["truncated"], v
    assert on_ehci.summary["end"]["status"] == "ok"


def test_ehci_stick_is_untouched(on_ehci):
    with pytest.raises(StickError, match="without a BAREMETRIC directory"):
        stick_runs.open_stick(os.path.join(on_ehci.out_dir, "baremetric.img"))
