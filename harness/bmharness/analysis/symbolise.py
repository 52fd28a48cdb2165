"""Map program counters to functions, source lines and instructions of an ELF, with Debian's
binutils (no Python ELF library is needed: the build id is read from the ELF's notes here).

- `read_build_id(path)`: the GNU build id of an ELF (hex), or None.
- `find_elf(build_id, ...)`: where the unstripped ELF of a build is kept (ELF_SEARCH below);
  the Makefile copies every build's ELF to build/<arch>/elf/<build id>.elf (firmware) and
  build/hosted/elf/<build id>.elf (hosted).
- `Symbols(path)`: function ranges from `nm -n --defined-only -S`; `lookup(addr)`.
- `source_lines(path, addrs)`: one `addr2line -a -f -i -e` call for all addresses.
- `disassemble(path, start, stop)`: `objdump -d --no-show-raw-insn` between two addresses.

Addresses here are ELF addresses (the profiler's pc - image_base).
"""

import bisect
import glob
import os
import re
import shutil
import struct
import subprocess

# harness/bmharness/<subpackage>/<module>.py: four levels up is the source tree's root.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
NT_GNU_BUILD_ID = 3
SHT_NOTE = 7
TOOL_TIMEOUT = 120  # seconds for one binutils call
TEXT_TYPES = set("tTwWiI")  # nm letters of code symbols (weak ones are mostly functions)
_NM_RE = re.compile(r"([0-9a-fA-F]+)(?: ([0-9a-fA-F]+))? (\S) (.+)\Z")
_INSN_RE = re.compile(r"\s*([0-9a-f]+):\s*(.*)\Z")


class ToolError(Exception):
    """A binutils program is missing or failed."""


def _run(argv, stdin=None):
    if shutil.which(argv[0]) is None:
        raise ToolError("%s not found (Debian package binutils)" % argv[0])
    try:
        res = subprocess.run(argv, input=stdin, capture_output=True, text=True,
                             timeout=TOOL_TIMEOUT, errors="replace")
    except (OSError, subprocess.SubprocessError) as exc:
        raise ToolError("%s: %s" % (argv[0], exc)) from None
    if res.returncode != 0:
        raise ToolError("%s failed: %s" % (" ".join(argv[:3]), res.stderr.strip()[:200]))
    return res.stdout


def read_build_id(path):
    """The NT_GNU_BUILD_ID of an ELF file as lower-case hex, None when there is none or the file
    is not a readable ELF."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    is64, end = data[4] == 2, "<" if data[5] == 1 else ">"
    try:
        if is64:
            shoff, = struct.unpack_from(end + "Q", data, 0x28)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
        else:
            shoff, = struct.unpack_from(end + "I", data, 0x20)
            shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
        for k in range(shnum):
            base = shoff + k * shentsize
            if is64:
                sh_type, = struct.unpack_from(end + "I", data, base + 4)
                off, size = struct.unpack_from(end + "QQ", data, base + 0x18)
            else:
                sh_type, = struct.unpack_from(end + "I", data, base + 4)
                off, size = struct.unpack_from(end + "II", data, base + 0x10)
            if sh_type != SHT_NOTE:
                continue
            pos = off
            while pos + 12 <= off + size:
                namesz, descsz, ntype = struct.unpack_from(end + "III", data, pos)
                name = data[pos + 12:pos + 12 + namesz]
                desc_at = pos + 12 + ((namesz + 3) & ~3)
                if ntype == NT_GNU_BUILD_ID and name.rstrip(b"\0") == b"GNU":
                    return data[desc_at:desc_at + descsz].hex()
                pos = desc_at + ((descsz + 3) & ~3)
    except struct.error:
        return None
    return None


def elf_candidates(build_id, run_dir=None, repo_root=REPO_ROOT):
    """The places an ELF with this build id is looked for, in order (docs/methods/profiler.md, "ELF search"):
    the run directory and its parent (<id>.elf, elf/<id>.elf), the repository's
    build/*/elf/<id>.elf, directories in $BAREMETRIC_ELF_PATH (<id>.elf), and Debian's
    /usr/lib/debug/.build-id/<xx>/<rest>.debug."""
    bid = (build_id or "").lower()
    out = []
    if not re.match(r"[0-9a-f]{2,}\Z", bid):
        return out
    for d in ([run_dir, os.path.dirname(os.path.abspath(run_dir))] if run_dir else []):
        out += [os.path.join(d, bid + ".elf"), os.path.join(d, "elf", bid + ".elf")]
    if repo_root:
        out += sorted(glob.glob(os.path.join(repo_root, "build", "*", "elf", bid + ".elf")))
    for d in filter(None, os.environ.get("BAREMETRIC_ELF_PATH", "").split(os.pathsep)):
        out.append(os.path.join(d, bid + ".elf"))
    out.append(os.path.join("/usr/lib/debug/.build-id", bid[:2], bid[2:] + ".debug"))
    seen, uniq = set(), []
    for p in out:
        if os.path.abspath(p) not in seen:
            seen.add(os.path.abspath(p))
            uniq.append(p)
    return uniq


def find_elf(build_id, run_dir=None, explicit=None, repo_root=REPO_ROOT):
    """{"path" (None when not found), "how", "tried", "build_id" (of the file found), "match"
    (its build id equals the run's; None when the run's is unknown)}. An explicit path is used
    even when its build id differs (said in "how")."""
    bid = (build_id or "unknown").lower()
    known = bid not in ("", "unknown")
    if explicit:
        got = read_build_id(explicit)
        if not os.path.isfile(explicit):
            return {"path": None, "how": "--elf %s: no such file" % explicit, "tried": [explicit],
                    "build_id": None, "match": None}
        match = (got == bid) if known else None
        how = "given (--elf)" + ("" if match in (True, None) else
                                 "; its build id %s differs from the run's %s: the symbols may "
                                 "be wrong" % (got or "(none)", bid))
        return {"path": explicit, "how": how, "tried": [explicit], "build_id": got,
                "match": match}
    if not known:
        return {"path": None, "how": "the run's build id is unknown: give the ELF with --elf",
                "tried": [], "build_id": None, "match": None}
    tried = elf_candidates(bid, run_dir, repo_root)
    for p in tried:
        if os.path.isfile(p):
            got = read_build_id(p)
            if got == bid:
                return {"path": p, "how": "found by build id", "tried": tried, "build_id": got,
                        "match": True}
    return {"path": None, "how": "no ELF with build id %s (looked in %d places; give it with "
            "--elf)" % (bid, len(tried)), "tried": tried, "build_id": None, "match": None}


class Symbols:
    """Function ranges of an ELF: [start, end) from the symbol's size where nm gives one, else up
    to the next code symbol. Aliases at one address keep one name (sized, global, no leading
    underscore or dot, then alphabetical)."""

    def __init__(self, path):
        self.path = path
        out = _run(["nm", "-n", "--defined-only", "-S", path])
        by_addr = {}
        for line in out.splitlines():
            m = _NM_RE.match(line.strip())
            if not m or m.group(3) not in TEXT_TYPES:
                continue
            addr, size = int(m.group(1), 16), int(m.group(2), 16) if m.group(2) else None
            by_addr.setdefault(addr, []).append((m.group(4), size, m.group(3)))
        self.starts, self.syms = [], []
        for addr in sorted(by_addr):
            name, size, _ = min(by_addr[addr], key=lambda s: (
                s[1] is None, s[2].islower(), s[0][:1] in "_.", s[0]))
            self.starts.append(addr)
            self.syms.append([name, addr, size])
        for k, s in enumerate(self.syms):
            nxt = self.starts[k + 1] if k + 1 < len(self.starts) else None
            if s[2]:
                s.append(s[1] + s[2])
            else:
                s.append(nxt if nxt is not None else s[1] + 1)

    def lookup(self, addr):
        """(name, start, end) of the function holding addr, or None."""
        k = bisect.bisect_right(self.starts, addr) - 1
        if k < 0:
            return None
        name, start, _, stop = self.syms[k]
        return (name, start, stop) if start <= addr < stop else None

    def by_name(self, name):
        for s in self.syms:
            if s[0] == name:
                return s[0], s[1], s[3]
        return None


def source_lines(path, addrs):
    """{addr: [(function, "file:line"), ...]} (innermost inline first) for all addresses in one
    addr2line call; an address addr2line cannot place maps to [("??", "??:0")]."""
    addrs = sorted(set(addrs))
    if not addrs:
        return {}
    out = _run(["addr2line", "-a", "-f", "-i", "-e", path],
               stdin="".join("0x%x\n" % a for a in addrs))
    res, cur, lines = {}, None, out.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("0x") and re.match(r"0x[0-9a-f]+\Z", line):
            cur = int(line, 16)
            res[cur] = []
            k += 1
            continue
        if cur is not None and k + 1 < len(lines):
            res[cur].append((line, _short_loc(lines[k + 1])))
        k += 2
    return res


def _short_loc(loc):
    """addr2line's `/abs/path/file.c:12 (discriminator 3)` -> path relative to the repository
    when inside it, without the discriminator."""
    loc = loc.split(" (discriminator")[0]
    if loc.startswith(REPO_ROOT + os.sep):
        loc = loc[len(REPO_ROOT) + 1:]
    return loc


def disassemble(path, start, stop):
    """[(addr, instruction text)] of [start, stop) from objdump."""
    out = _run(["objdump", "-d", "--no-show-raw-insn", "-w", "--start-address=0x%x" % start,
                "--stop-address=0x%x" % stop, path])
    insns = []
    for line in out.splitlines():
        m = _INSN_RE.match(line)
        if m and m.group(2) and not line.rstrip().endswith(">:"):
            insns.append((int(m.group(1), 16), " ".join(m.group(2).split())))
    return insns
