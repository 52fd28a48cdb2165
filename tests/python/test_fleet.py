"""The fleet run's pieces that need no BMC: the inventory (TOML and CSV, bad entries refused
with the entry named), ipmitool's arguments (never the password), the console's stop condition
and progress, ipmitool's SOL banner taken off, the live table as plain lines off a terminal, and
SIGTERM stopping the pool as Ctrl-C does. The run itself against ipmi_sim + QEMU:
tests/integration/test_fleet_bmc.py."""

import io
import os
import signal
import threading
import types

import pytest

import synth
from bmharness.fleet import capture, console, inventory, ipmi, pool, table


def _pw(tmp_path):
    p = tmp_path / "pw"
    p.write_text("hunter2")
    return str(p)


def test_toml_and_csv_inventories_agree(tmp_path):
    pw = _pw(tmp_path)
    t = tmp_path / "f.toml"
    t.write_text('[defaults]\nuser = "admin"\npassword_file = "%s"\ntimeout_s = 900\n'
                 '[[machine]]\nname = "r1-a"\nbmc = "10.0.0.5"\n'
                 '[[machine]]\nname = "r1-b"\nbmc = "10.0.0.6:6230"\nboot_device = "floppy"\n'
                 % pw)
    c = tmp_path / "f.csv"
    c.write_text("name,bmc,user,password_file,timeout_s,boot_device\n"
                 "r1-a,10.0.0.5,admin,%s,900,\nr1-b,10.0.0.6:6230,admin,%s,900,floppy\n"
                 % (pw, pw))
    for path in (t, c):
        a, b = inventory.load(str(path))
        assert (a.name, a.host, a.port, a.boot_device, a.timeout_s) == \
            ("r1-a", "10.0.0.5", 623, "cdrom", 900)
        assert (b.host, b.port, b.boot_device, b.interface) == \
            ("10.0.0.6", 6230, "floppy", "lanplus")


@pytest.mark.parametrize("row,msg", [
    ('name = "x"\nbmc = "h"\n', "no user"),
    ('name = "x"\nbmc = "h"\nuser = "u"\n', "one of password_file and password_env"),
    ('name = "x"\nbmc = "h"\nuser = "u"\npassword_env = "P"\nboot_device = "usb"\n',
     "boot_device 'usb'"),
    ('name = "x"\nbmc = "h:99999"\nuser = "u"\npassword_env = "P"\n', "bmc port 99999"),
    ('name = "../x"\nbmc = "h"\nuser = "u"\npassword_env = "P"\n', "name '../x'"),
    ('name = "x"\nbmc = "h"\nuser = "u"\npassword = "oops"\n', "unknown field(s) password"),
    ('name = "x"\nbmc = "h"\nuser = "u"\npassword_file = "/nonexistent/pw"\n',
     "cannot be read"),
])
def test_bad_entries_named(tmp_path, row, msg):
    p = tmp_path / "f.toml"
    p.write_text("[[machine]]\n" + row)
    with pytest.raises(inventory.InventoryError) as exc:
        inventory.load(str(p))
    assert msg in str(exc.value) and "machine 1 (" in str(exc.value)


def test_duplicate_names_and_bad_toml(tmp_path):
    p = tmp_path / "f.toml"
    one = '[[machine]]\nname = "x"\nbmc = "h"\nuser = "u"\npassword_env = "P"\n'
    p.write_text(one + one)
    with pytest.raises(inventory.InventoryError, match="name x twice"):
        inventory.load(str(p))
    p.write_text("[[machine\n")
    with pytest.raises(inventory.InventoryError, match="not valid TOML"):
        inventory.load(str(p))


def test_password_never_an_argument(tmp_path, monkeypatch):
    p = tmp_path / "f.csv"
    p.write_text("name,bmc,user,password_file\nm,h,u,%s\n" % _pw(tmp_path))
    m = inventory.load(str(p))[0]
    argv = ipmi.base_argv(m)
    assert "hunter2" not in " ".join(argv) and argv[-2:] == ["-f", m.password_file]
    p.write_text("name,bmc,user,password_env\nm,h,u,BMC_PW\n")
    m = inventory.load(str(p))[0]
    monkeypatch.setenv("BMC_PW", "s3cret")
    assert ipmi.base_argv(m)[-1] == "-E" and ipmi.env(m)["IPMI_PASSWORD"] == "s3cret"
    assert "s3cret" not in " ".join(ipmi.base_argv(m)) + repr(m)
    monkeypatch.delenv("BMC_PW")
    with pytest.raises(ipmi.IpmiError, match="no BMC_PW"):
        ipmi.env(m)


def test_progress_and_stop_on_the_done_line():
    s = synth.Stream().begin()
    s.add("cfg", probes="timer,spin,noise")
    s.probe("timer", 1, synth.timer_values(1, 8), method="rdtsc")
    data = s.end(probes=1).data()
    prog, states = console.Progress(), []
    lines = [b"\x1b[2J\x1b[01;01HBdsDxe: loading Boot0001"] + data.split(b"\n")
    # the end record alone does not stop it: the stick's copy may still be closing
    for line in lines:
        prog.feed(line)
    assert not prog.done and prog.end["status"] == "ok"
    prog = console.Progress()
    lines += [b"baremetric: done\r"]
    for line in lines:
        prog.feed(line)
        states.append(prog.state())
        if prog.done:
            break
    assert states[0] == "booting" and "probe 1/3 (timer)" in states
    assert "probe 2/3 (spin)" in states  # timer reported: spin runs next
    assert prog.done and prog.end["status"] == "ok"
    # a damaged end record does not stop the capture
    bad = [x for x in data.split(b"\n") if b" end " in x][0].replace(b"status=ok", b"status=ko")
    assert console.record(bad) is None and not console.is_done(bad, console.record(bad))
    other = console.Progress()
    assert other.feed(bad) is None and not other.done


def test_strip_sol_keeps_the_console_bytes():
    body = b"\x1b[2J\r\n@BM 2 0 begin x=1 |00000000\r\n"
    assert console.strip_sol(console.SOL_BANNER + b"\n" + body) == body
    assert console.strip_sol(console.SOL_BANNER + b"\r\n" + body + console.SOL_TRAILER
                             + b"\n") == body
    assert console.strip_sol(body) == body


def test_table_plain_lines_off_a_terminal():
    out = io.StringIO()
    t = table.Table(["a", "b"], out=out, tty=False)
    t.set("a", "booting")
    t.set("a", "booting")  # no change, no line
    t.set("b", "failed: timeout")
    t.finish()
    lines = out.getvalue().splitlines()
    assert [ln.split(" ", 1)[1] for ln in lines] == ["a: booting", "b: failed: timeout"]
    assert "\x1b" not in out.getvalue()


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_stop_signal_stops_the_pool(tmp_path, monkeypatch, signame):
    """SIGTERM or Ctrl-C while a machine runs, even while the pool is still starting it: its worker
    sees the stop event (and would close SOL), the machine ends interrupted, the run says so, and
    the signal's handler is put back."""
    sig = getattr(signal, signame)
    default = signal.default_int_handler if signame == "SIGINT" else signal.SIG_DFL
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(sig) is not default:
        pytest.skip("needs the main thread with %s at its default" % signame)
    started = threading.Event()

    def fake_capture(m, out_dir, report, stop):  # the console watch: until done or stopped
        started.set()
        if not stop.wait(30):
            return None, "the stop event never came"
        raise capture.Stopped()
    monkeypatch.setattr(capture, "capture", fake_capture)
    m = types.SimpleNamespace(name="a", host="127.0.0.1", port=623, boot_device="disk")
    threading.Thread(target=lambda: started.wait(30) and os.kill(os.getpid(), sig), daemon=True).start()
    res, interrupted = pool.run([m], str(tmp_path), None, table.Table(["a"], io.StringIO(), tty=False))
    assert interrupted
    assert res[0]["state"] == pool.FAILED and res[0]["reason"] == "interrupted (SOL deactivated)"
    assert signal.getsignal(sig) is default


def test_an_ignored_stop_signal_stays_ignored():
    """`nohup` leaves SIGHUP ignored: the pool does not take it over."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with pool.stop_on_signals(threading.Event()):
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    finally:
        signal.signal(signal.SIGHUP, old)


def test_second_signal_taken_as_the_first():
    """A second SIGTERM raises nothing (an exception could only cut the clean-up short: the pool
    joins its workers whatever happens); the stop stays set and the handler is put back."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        pytest.skip("needs the main thread with SIGTERM at its default")
    stop = threading.Event()
    with pool.stop_on_signals(stop):
        signal.raise_signal(signal.SIGTERM)
        assert stop.is_set()
        signal.raise_signal(signal.SIGTERM)
        assert stop.is_set()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
