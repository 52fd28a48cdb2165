"""ipmitool, one machine's BMC: boot device, power, Serial-over-LAN.

The password is never an argument (anyone can read a process's argv) and never logged: ipmitool
reads it from the inventory's password file (-f) or from IPMI_PASSWORD in its environment (-E).
"""

import os
import subprocess

IPMITOOL = "ipmitool"
CMD_TIMEOUT_S = 30


class IpmiError(Exception):
    pass


def base_argv(m):
    argv = [IPMITOOL, "-I", m.interface, "-H", m.host, "-p", str(m.port), "-U", m.user]
    if m.cipher:
        argv += ["-C", m.cipher]
    return argv + (["-f", m.password_file] if m.password_file else ["-E"])


def env(m):
    e = dict(os.environ)
    if m.password_env:
        if m.password_env not in os.environ:
            raise IpmiError("the environment has no %s (the inventory's password_env)"
                            % m.password_env)
        e["IPMI_PASSWORD"] = os.environ[m.password_env]
    return e


def run(m, *args, timeout=CMD_TIMEOUT_S):
    """Run one ipmitool command; its stdout. Raises IpmiError naming the command (no secret)."""
    what = "ipmitool %s" % " ".join(args)
    try:
        p = subprocess.run(base_argv(m) + list(args), env=env(m), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           start_new_session=True)  # Ctrl-C reaches us, not it: cleanup runs
    except subprocess.TimeoutExpired:
        raise IpmiError("%s: no answer in %d s" % (what, timeout))
    except FileNotFoundError:
        raise IpmiError("ipmitool is not installed (apt-get install ipmitool)")
    if p.returncode != 0:
        msg = (p.stderr or p.stdout).decode("utf-8", "replace").strip().splitlines()
        raise IpmiError("%s: %s" % (what, msg[-1] if msg else "exit %d" % p.returncode))
    return p.stdout.decode("utf-8", "replace")


def bootdev(m):
    run(m, "chassis", "bootdev", m.boot_device)


def power_is_on(m):
    out = run(m, "chassis", "power", "status")
    if "is on" in out:
        return True
    if "is off" in out:
        return False
    raise IpmiError("chassis power status: unexpected answer %r" % out.strip())


def power_cycle(m):
    """Power-cycle (on when off): the next boot is the one bootdev chose."""
    run(m, "chassis", "power", "cycle" if power_is_on(m) else "on")


def sol_deactivate(m):
    """End any SOL session (ours or a stale one); a BMC without one answers an error: ignored."""
    try:
        run(m, "sol", "deactivate")
    except IpmiError:
        pass


def sol_activate(m):
    """The `sol activate` process: the console's bytes on its stdout."""
    return subprocess.Popen(base_argv(m) + ["sol", "activate"], env=env(m),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
