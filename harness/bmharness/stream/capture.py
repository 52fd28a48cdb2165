"""Capture the record stream from a real machine: a serial port (pyserial) or any command's output.

`--port DEV` reads a serial port; `--command "..."` runs a command through the shell and reads its
standard output as the stream (a BMC's Serial-over-LAN: `ipmitool -I lanplus -H bmc -U user -P pw
sol activate`, or `cat log`). The source is opened first: a port that does not exist or cannot be
opened raises CaptureError before anything is written, and the run folder is made only when the
first bytes arrive, so a failed or silent capture leaves no empty folder.

Bytes go to DIR/serial.log as they arrive and are flushed at once, so a Ctrl-C or a crash loses
nothing already received. Capture stops a short grace period after a valid `end` record, on
timeout, on Ctrl-C, or when the source ends (the command exits, the device goes away); a command
still running is then terminated (SIGTERM to its process group, a bounded wait, then SIGKILL).

While it runs, a status line (bytes, records, the current probe, seconds since the last record)
goes to `status_stream` (stderr in the CLI): rewritten in place every second on a terminal, a plain
line every 10 s otherwise; after `silence_s` (30 s) without a record a warning line, and again after
each further `silence_s`. The CLI then parses and reports the log as usual.
"""

import datetime
import json
import os
import select
import signal
import subprocess
import time

from . import protocol

GRACE_S = 2.0
READ_WAIT_S = 0.2          # longest wait for bytes before the loop looks at the clock again
STATUS_TTY_S = 1.0         # status line period on a terminal (rewritten in place)
STATUS_PLAIN_S = 10.0      # status line period otherwise (one line each)
SILENCE_S = 30.0           # no record this long: a warning (repeated each further SILENCE_S)
COMMAND_STOP_WAIT_S = 3.0  # after SIGTERM, before SIGKILL
READ_CHUNK = 4096


class CaptureError(Exception):
    """pyserial missing, the port cannot be opened, or the command gave nothing: the CLI exits 2."""


def _open(port, baud):
    try:
        import serial  # Debian: python3-serial
    except ImportError:
        raise CaptureError("pyserial is not installed: "
                           "sudo apt-get install python3-serial") from None
    if not os.path.exists(port) and not port.startswith(("socket://", "rfc2217://", "loop://")):
        raise CaptureError("serial port %s does not exist" % port)
    try:
        return serial.serial_for_url(port, baudrate=baud, timeout=READ_WAIT_S)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise CaptureError("cannot open %s: %s" % (port, exc)) from None


class CommandSource:
    """A shell command's standard output as a serial-like source: read(n) waits at most
    READ_WAIT_S and returns b"" then; `ended` once the output is closed."""

    def __init__(self, command):
        self.command = command
        self.ended = False
        try:
            self.proc = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            raise CaptureError("cannot run %r: %s" % (command, exc)) from None

    def read(self, size):
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], READ_WAIT_S)
        if not ready:
            return b""
        data = os.read(fd, size)
        if not data:
            self.ended = True
        return data

    def exit_status(self):
        return self.proc.poll()

    def close(self):
        """Stop the command (its whole process group: the shell and what it started)."""
        if self.ended:
            try:
                self.proc.wait(COMMAND_STOP_WAIT_S)  # it closed its output: let it exit by itself
            except subprocess.TimeoutExpired:
                pass
        if self.proc.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.proc.wait(COMMAND_STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.proc.wait()
        self.proc.stdout.close()

    def _signal(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass


def is_end_line(line):
    """True if a log line carries a valid `end` record."""
    return any(r["type"] == "end" for r in line_records(line))


def line_records(line):
    """The valid records of one log line (protocol.parse_candidate dicts)."""
    out = []
    for cand in protocol.split_candidates(line):
        try:
            out.append(protocol.parse_candidate(cand))
        except protocol.RecordError:
            pass
    return out


class Status:
    """What the capture has seen, and its status and silence lines.

    `interval` (seconds between status lines) and `silence_s` are parameters for the tests; on a
    terminal (`tty`) the line is rewritten in place with a carriage return."""

    def __init__(self, stream, tty, interval=None, silence_s=SILENCE_S, clock=time.monotonic):
        self.stream, self.tty, self.clock = stream, tty, clock
        self.interval = interval if interval is not None else (STATUS_TTY_S if tty else STATUS_PLAIN_S)
        self.silence_s = silence_s
        self.t0 = self.last_record = self.last_shown = clock()
        self.silence_warned = 0  # silence warnings given since the last record
        self.bytes = self.records = 0
        self.probe = None
        self.seen_record = False
        self.width = 0

    def saw(self, nbytes, records):
        self.bytes += nbytes
        for r in records:
            self.records += 1
            f = r["fields"]
            if r["type"] == "probe" and f.get("name"):
                self.probe = f["name"]
            elif r["type"] in ("skip", "check") and f.get("probe"):
                self.probe = f["probe"]
        if records:
            self.last_record = self.clock()
            self.seen_record = True
            self.silence_warned = 0

    def line(self):
        since = self.clock() - self.last_record
        last = ("last record %.0f s ago" % since) if self.seen_record else "no record yet"
        return "capture: %.0f s, %d bytes, %d records, probe %s, %s" % (
            self.clock() - self.t0, self.bytes, self.records, self.probe or "-", last)

    def tick(self):
        """Write the status line when due, and the silence warning."""
        if self.stream is None:
            return
        now = self.clock()
        silent = now - self.last_record
        if self.silence_s and silent >= self.silence_s * (self.silence_warned + 1):
            self.silence_warned += 1
            self._end_status_line()
            self.stream.write("capture: warning: no record for %.0f s%s; still listening\n" % (
                silent, "" if self.seen_record else " (none yet: is the target booting, the port "
                "and baud right?)"))
            self.stream.flush()
        if now - self.last_shown >= self.interval:
            self.last_shown = now
            self.show()

    def show(self):
        text = self.line()
        if self.tty:
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _end_status_line(self):
        if self.tty and self.width:
            self.stream.write("\n")
            self.width = 0

    def finish(self):
        if self.stream is None:
            return
        self.show()
        self._end_status_line()
        self.stream.flush()


def _source(port, baud, ser, command):
    if ser is not None:
        return ser
    if command is not None:
        return CommandSource(command)
    return _open(port, baud)


def capture(port, out_dir, baud=115200, timeout=None, grace=GRACE_S, ser=None, echo=None,
            command=None, status_stream=None, status_tty=False, status_interval=None,
            silence_s=SILENCE_S):
    """Read the source into out_dir/serial.log until end (+grace), timeout, Ctrl-C or its end.

    The source: `command` (a shell command's output), else `ser` (an open serial-like object:
    tests), else the serial `port`. `echo(bytes)` sees every chunk; status and silence lines go
    to `status_stream` (None: none). Returns the capture.json dict; out_dir and its files exist
    only when bytes arrived (`bytes` > 0). Raises CaptureError if the source cannot be used."""
    src = _source(port, baud, ser, command)
    status = Status(status_stream, status_tty, status_interval, silence_s)
    path = os.path.join(out_dir, "serial.log")
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    t0 = time.monotonic()
    pending, end_at, log = b"", None, None
    result = {"port": port, "command": command, "baud": baud, "serial_log": path,
              "started_utc": started, "end_seen": False, "timed_out": False, "interrupted": False,
              "source_ended": False, "error": None}
    try:
        while True:
            now = time.monotonic()
            if end_at is not None and now - end_at >= grace:
                break
            if timeout is not None and now - t0 >= timeout:
                result["timed_out"] = end_at is None
                break
            status.tick()
            try:
                chunk = src.read(READ_CHUNK)
            except Exception as exc:  # device unplugged, etc.: keep what we have
                result["error"] = "read failed: %s" % exc
                break
            if not chunk:
                if getattr(src, "ended", False):
                    result["source_ended"] = True
                    break
                continue
            if log is None:
                os.makedirs(out_dir, exist_ok=True)
                log = open(path, "wb")
            log.write(chunk)
            log.flush()
            if echo:
                echo(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            records = [r for line in lines for r in line_records(line.decode("latin-1"))]
            status.saw(len(chunk), records)
            if end_at is None and any(r["type"] == "end" for r in records):
                end_at = time.monotonic()
                result["end_seen"] = True
            pending = pending[-2 * protocol.MAX_LINE:]
    except KeyboardInterrupt:
        result["interrupted"] = True
    finally:
        if log is not None:
            log.close()
        try:
            src.close()
        except Exception:
            pass
        status.finish()
    if command is not None and result["source_ended"]:
        result["command_status"] = src.exit_status()
    result.update(bytes=status.bytes, records=status.records,
                  duration_s=round(time.monotonic() - t0, 3))
    if status.bytes == 0:
        if command is not None and result["source_ended"]:
            raise CaptureError("command %r ended (exit status %s) before any output" % (
                command, result.get("command_status")))
        return result
    with open(os.path.join(out_dir, "capture.json"), "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    return result
