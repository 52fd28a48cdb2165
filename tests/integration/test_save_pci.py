"""The boot stick's controller behind PCI bridges and beside an IOMMU (efi/save_pci.c,
efi/save_iommu.c; docs/saving.md): q35's qemu-xhci behind a pcie-root-port, behind a pci-bridge,
and with -device intel-iommu (a DMAR table; OVMF has no VT-d driver, so translation is off and
there is no IoMmu protocol). Each boot saves, and the stick's stream equals the serial stream's
record lines byte for byte.

The plan record says where the controller's registers came from (bar_fw: EFI_PCI_IO_PROTOCOL
.GetBarAttributes, UEFI 2.10 14.4) and how many bridges above it were enabled (one PCI node of the
device path per bridge); the IOMMU boot's `plat kind=iommu` record gives the DMAR's unit with
translation off (Intel VT-d 3.x 11.4.5, GSTS.TES clear) and saving goes on."""

import pytest

from test_save_stick import check_complete, check_live, serial_records, stick_bytes, stick_run
from bmharness.stream.stick import runs as stick_runs

pytestmark = pytest.mark.save


def check_saved(b, tmp_path, bridges):
    planned, _live = check_live(b)
    assert planned["bar_fw"] == 1, planned  # booleans parse as 1 and 0
    assert planned["bridges"] == bridges, planned
    run, data = stick_bytes(b)
    assert run.header["state"] == "closed", run.header
    assert data == serial_records(b)
    st, run = stick_run(b)
    summary = stick_runs.parse_run(st, run, str(tmp_path / "parsed"))
    st.close()
    check_complete(summary)
    return planned


def test_behind_pcie_root_port(save_root_port, tmp_path):
    check_saved(save_root_port, tmp_path, bridges=1)


def test_behind_pci_bridge(save_pci_bridge, tmp_path):
    check_saved(save_pci_bridge, tmp_path, bridges=1)


def test_beside_intel_iommu(save_iommu, tmp_path):
    planned = check_saved(save_iommu, tmp_path, bridges=0)
    assert planned["iommu"] == "vt-d", planned
    iommu = save_iommu.plats("iommu")
    assert len(iommu) == 1, iommu
    r = iommu[0]
    assert r["type"] == "vt-d" and r["units"] >= 1, r
    assert r["translating"] == 0 and r["protecting"] == 0, r
    assert r["dma_mapped"] == 1 and r["fw_iommu"] == 0, r


def test_plain_boot_has_no_iommu(save_serial):
    """Without intel-iommu q35 has no DMAR: no iommu record, and the plan says none."""
    planned, _live = check_live(save_serial)
    assert planned["iommu"] == "none" and planned["bridges"] == 0, planned
    assert not save_serial.plats("iommu")


def test_a64_smmuv3_behind_root_port(a64_save_smmu, tmp_path):
    """AArch64 virt with iommu=smmuv3: the IORT's SMMUv3 node is read, AAVMF leaves it disabled
    (SMMU_CR0.SMMUEN clear, DMA bypasses it), and the stick behind a root port saves."""
    planned = check_saved(a64_save_smmu, tmp_path, bridges=1)
    assert planned["iommu"] == "smmuv3", planned
    r = a64_save_smmu.plats("iommu")
    assert len(r) == 1 and r[0]["type"] == "smmuv3" and r[0]["units"] == 1, r
    assert r[0]["translating"] == 0 and r[0]["protecting"] == 0, r
