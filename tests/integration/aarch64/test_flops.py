"""The flops probe under QEMU TCG (AArch64, `-cpu max`): scalar FMADD, NEON FMLA and SVE FMLA at the
vector length the firmware enabled (QEMU's max CPU: 2048 bits, 32 doubles a register), each after
its passing exactness check. No rate is asserted (TCG's are emulation numbers)."""

from conftest import check_flops


def test_fma_scalar_neon_and_sve(a64mem):
    sets = check_flops(a64mem, {("fma", "64"), ("fma", "128"), ("fma", "sve")}, set())
    sve = sets[("fma", "sve")]["params"]
    assert sve["vl_bits"] >= 128 and sve["vl_bits"] % 128 == 0 and sve["lanes"] == sve["vl_bits"] // 64
    assert sets[("fma", "128")]["params"]["lanes"] == 2 and sets[("fma", "64")]["params"]["insn"] == "fmadd"
