"""objdump of an object file, split by function: what the disassembly tests read."""

import re
import subprocess


def disassemble(obj):
    """{function: [instruction text, ...]} of `obj`, relocation lines kept as objdump -r puts them."""
    out = subprocess.run(["objdump", "-d", "-r", "--no-show-raw-insn", obj], check=True,
                         capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur and "\t" in line:
            funcs[cur].append(line.split("\t", 1)[1].strip())
    return funcs
