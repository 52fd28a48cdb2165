"""The profiler's host side on real program counters: a small PIE built at test time samples its
own pc with a CPU-time timer signal (ITIMER_PROF) while it spends a known 30/70 split of its
work in two functions of identical loops, prints its load base and the pcs; the test turns them
into `prof` records as the hosted build will (docs/protocol.md), parses them and checks that
the harness, mapping pc - load base through the ELF found by build id, recovers the split.
Statistical, so the band is fixed before measuring: +-8 points at >= 400 samples is > 3.5
binomial standard deviations."""

import collections
import os
import re
import shutil
import subprocess

import pytest

from bmharness.analysis import profile, symbolise
from bmharness.stream import parse
from synth import Stream
from test_profile import prof_stream

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("gcc", "nm", "objdump",
                                                                   "addr2line", "readelf")),
                                reason="needs gcc and binutils")

SRC = r"""
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>

#define MAX_PCS 100000
#define MAX_ROUNDS 2000000UL  /* ~1 minute of CPU: the bound of the wait for samples */
static volatile unsigned long pcs[MAX_PCS];
static volatile int n_pcs;
volatile unsigned long sink;

static void on_prof(int sig, siginfo_t *si, void *ctx)
{
    (void)sig; (void)si;
    if (n_pcs < MAX_PCS)
        pcs[n_pcs++] = (unsigned long)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
}

__attribute__((noinline)) void split_a(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

__attribute__((noinline)) void split_b(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i;
}

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long *)data = info->dlpi_addr;  /* the executable comes first */
    return 1;
}

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : 400;  /* samples; rounds are bounded below */
    unsigned long base = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, 0);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_PROF, &it, 0);
    for (unsigned long r = 0; r < MAX_ROUNDS && n_pcs < want; r++) {
        split_a(30000);
        split_b(70000);
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, 0);
    dl_iterate_phdr(first_object, &base);
    printf("base %lx\n", base);
    for (int i = 0; i < n_pcs; i++)
        printf("%lx\n", pcs[i]);
    return 0;
}
"""
SAMPLES_MIN = 400
BAND = 0.08


def test_real_pcs_recover_the_split(tmp_path):
    src, exe = tmp_path / "split.c", tmp_path / "split"
    src.write_text(SRC)
    subprocess.run(["gcc", "-O1", "-g", "-fPIE", "-pie", "-Wl,--build-id", str(src), "-o",
                    str(exe)], check=True)
    bid = symbolise.read_build_id(str(exe))
    # Pinned to one CPU; the program runs until it has SAMPLES_MIN samples (the timer ticks at
    # the kernel's HZ, so this takes 0.4 to 4 s of CPU).
    argv = [str(exe), str(SAMPLES_MIN)]
    out = subprocess.run((["taskset", "-c", "0"] if shutil.which("taskset") else []) + argv,
                         capture_output=True, text=True, check=True, timeout=300).stdout.split()
    base, pcs = int(out[1], 16), [int(x, 16) for x in out[2:]]
    assert len(pcs) >= SAMPLES_MIN, "only %d samples" % len(pcs)
    size = max(int(m.group(1), 16) + int(m.group(2), 16) for m in re.finditer(
        r"LOAD\s+\S+\s+(0x[0-9a-f]+)\s+\S+\s+\S+\s+(0x[0-9a-f]+)",
        subprocess.run(["readelf", "-lW", str(exe)], capture_output=True, text=True).stdout))
    agg = collections.Counter(pcs)
    s = Stream().begin()
    prof_stream(s, "split", base, size, bid, {0: [(pc, 0, n) for pc, n in sorted(agg.items())]},
                events="time", source="cputime_timer")
    log = tmp_path / "serial.log"
    log.write_bytes(s.end().data())
    summary = parse.parse_log(str(log), str(tmp_path / "parsed"))
    assert summary["ok"], summary["validation"]["problems"]
    os.makedirs(tmp_path / "elf")
    shutil.copy(exe, tmp_path / "elf" / (bid + ".elf"))  # the run directory's elf/ <build id>
    res = profile.analyse_run(str(tmp_path / "parsed"))
    p = res["profiles"][0]
    assert p["elf"]["how"] == "found by build id"
    a, b = profile.share(res, "split", "split_a"), profile.share(res, "split", "split_b")
    assert a + b >= 0.9, p["shares"]
    assert abs(a / (a + b) - 0.3) <= BAND, (a, b, len(pcs))
    loop = p["annotated"][0]["loop"]
    assert p["annotated"][0]["function"] == "split_b" and loop is not None
    assert loop["share_in_function"]["time"] >= 0.8
