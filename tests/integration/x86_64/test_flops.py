"""The flops probe under QEMU TCG (x86_64): with QEMU's default CPU (no AVX, no FMA3) only the SSE2
multiply-and-add kernels run and the FMA ones say why not; with `-cpu max` (AVX2 and FMA3, no
AVX-512) the scalar, 128- and 256-bit FMA kernels run too. Every kernel that ran computed exactly
what its chains must (the flops_exact check); no rate is asserted (TCG's are emulation numbers:
the hosted test checks the real FMA pipes)."""

from conftest import check_flops

MUL_ADD = {("mul_add", "64"), ("mul_add", "128")}
FMA = {("fma", "64"), ("fma", "128"), ("fma", "256")}


def test_default_cpu_runs_sse2_kernels_only(amd):
    check_flops(amd, MUL_ADD, FMA | {("fma", "512")})
    reasons = {k["reason"] for k in amd.summary["skips"] if k["probe"] == "flops"}
    assert reasons == {"CPU lacks FMA3"}, reasons


def test_max_cpu_runs_fma_up_to_256(memory_max):
    sets = check_flops(memory_max, MUL_ADD | FMA, {("fma", "512")})
    assert {str(s["params"]["width"]): s["params"]["lanes"] for k, s in sets.items() if k[0] == "fma"} == \
        {"64": 1, "128": 2, "256": 4}
    assert sets[("fma", "256")]["params"]["insn"] == "vfmadd231pd"
