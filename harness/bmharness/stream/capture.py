"""Capture the record stream from a real machine's serial port (pyserial).

Bytes go to DIR/serial.log as they arrive and are flushed at once, so a Ctrl-C or a crash loses
nothing already received. Capture stops a short grace period after a valid `end` record, on
timeout, or on Ctrl-C; the CLI then parses and reports the log as usual.
"""

import datetime
import json
import os
import time

from . import protocol

GRACE_S = 2.0


class CaptureError(Exception):
    """pyserial missing or the port cannot be opened: the CLI reports it and exits 2."""


def _open(port, baud):
    try:
        import serial  # Debian: python3-serial
    except ImportError:
        raise CaptureError("pyserial is not installed: "
                           "sudo apt-get install python3-serial") from None
    if not os.path.exists(port) and not port.startswith(("socket://", "rfc2217://", "loop://")):
        raise CaptureError("serial port %s does not exist" % port)
    try:
        return serial.serial_for_url(port, baudrate=baud, timeout=0.2)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise CaptureError("cannot open %s: %s" % (port, exc)) from None


def is_end_line(line):
    """True if a log line carries a valid `end` record."""
    for cand in protocol.split_candidates(line):
        try:
            if protocol.parse_candidate(cand)["type"] == "end":
                return True
        except protocol.RecordError:
            pass
    return False


def capture(port, out_dir, baud=115200, timeout=None, grace=GRACE_S, ser=None, echo=None):
    """Read from the port into out_dir/serial.log until end (+grace), timeout or Ctrl-C.

    `ser` may be an already open serial-like object (tests); `echo(bytes)` sees every chunk.
    Returns the capture.json dict. Raises CaptureError if the port cannot be used."""
    os.makedirs(out_dir, exist_ok=True)
    if ser is None:
        ser = _open(port, baud)
    path = os.path.join(out_dir, "serial.log")
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    t0 = time.monotonic()
    total, pending = 0, b""
    end_at = None
    result = {"port": port, "baud": baud, "serial_log": path, "started_utc": started,
              "end_seen": False, "timed_out": False, "interrupted": False, "error": None}
    try:
        with open(path, "wb") as log:
            while True:
                now = time.monotonic()
                if end_at is not None and now - end_at >= grace:
                    break
                if timeout is not None and now - t0 >= timeout:
                    result["timed_out"] = end_at is None
                    break
                try:
                    chunk = ser.read(4096)
                except Exception as exc:  # device unplugged, etc.: keep what we have
                    result["error"] = "read failed: %s" % exc
                    break
                if not chunk:
                    continue
                log.write(chunk)
                log.flush()
                total += len(chunk)
                if echo:
                    echo(chunk)
                pending += chunk
                *lines, pending = pending.split(b"\n")
                if end_at is None and any(is_end_line(l.decode("latin-1")) for l in lines):
                    end_at = time.monotonic()
                    result["end_seen"] = True
                pending = pending[-2 * protocol.MAX_LINE:]
    except KeyboardInterrupt:
        result["interrupted"] = True
    finally:
        try:
            ser.close()
        except Exception:
            pass
    result.update(bytes=total, duration_s=round(time.monotonic() - t0, 3))
    with open(os.path.join(out_dir, "capture.json"), "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    return result
