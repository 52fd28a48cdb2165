"""The live table of a fleet run: machines x state. On a terminal the table is redrawn in place
on every change (each line cut to the terminal's width, so that the cursor knows where the table
starts); elsewhere (a log file, CI) each change is one plain line
`HH:MM:SS name: state`, with no control sequences."""

import shutil
import sys
import threading
import time


class Table:
    def __init__(self, names, out=None, tty=None):
        self.out = out or sys.stdout
        self.tty = self.out.isatty() if tty is None else tty
        self.names = list(names)
        self.states = {n: "waiting" for n in self.names}
        self.lock = threading.Lock()
        self.drawn = 0
        if self.tty:
            self._draw()

    def set(self, name, state):
        with self.lock:
            if self.states.get(name) == state:
                return
            self.states[name] = state
            if self.tty:
                self._draw()
            else:
                self.out.write("%s %s: %s\n" % (time.strftime("%H:%M:%S"), name, state))
                self.out.flush()

    def _draw(self):
        width = max(len(n) for n in self.names) if self.names else 4
        cols = shutil.get_terminal_size().columns - 1
        if self.drawn:
            self.out.write("\x1b[%dA" % self.drawn)  # back to the table's first line
        for n in self.names:
            line = "%-*s  %s" % (width, n, self.states[n])
            self.out.write("\x1b[2K%s\n" % line[:cols])
        self.drawn = len(self.names)
        self.out.flush()

    def finish(self):
        with self.lock:
            if self.tty:
                self._draw()
