"""objdump of an object file, split by function: what the disassembly tests read."""

import re
import subprocess


def disassemble(obj, objdump="objdump", relocs=True, raw=False):
    """{function: [instruction text, ...]} of `obj` (relocation lines kept as objdump -r puts them
    when relocs); with raw, [(instruction word, text), ...] instead (objdump's raw encoding
    column)."""
    cmd = [objdump, "-d"] + (["-r"] if relocs else []) + ([] if raw else ["--no-show-raw-insn"]) + [obj]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur and "\t" in line:
            parts = line.split("\t")
            if raw:
                funcs[cur].append((int(parts[1].strip(), 16), "\t".join(p.strip() for p in parts[2:4]).strip()))
            else:
                funcs[cur].append(line.split("\t", 1)[1].strip())
    return funcs
