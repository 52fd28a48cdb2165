"""Whether a QEMU run failed, and why, from its run.json (written by run/qemu.py): the judgement the
report's Status line and the command line both give. It reads the run.json dict only, so the
report can judge a run without the runner; run/qemu.py takes these facts from here.
"""

TIMEOUT_OPTION = "--timeout SECONDS"   # what raises it (harness/baremetric run/qemu)
# Whether QEMU's machine for an architecture has an exit device that carries the firmware's status
# (x86_64 q35: isa-debug-exit); without one (aarch64 virt) a clean exit 0 says nothing.
EXIT_DEVICE = {"x86_64": True, "aarch64": False}


def exit_text(result):
    """How QEMU's run ended, in words. Through the isa-debug-exit device QEMU exits with
    (status << 1) | 1, so firmware status 0 (ok) is QEMU's exit code 1: that is said as the
    firmware's status, never as "exit 1" (which reads as a failure)."""
    code, status = result.get("exit_code"), result.get("firmware_status")
    name = result.get("firmware_status_name")
    if isinstance(status, int) and code == (status << 1) | 1:
        return "firmware status %s (through the exit device)" % name
    return "QEMU exit %s, firmware status %s" % (code, name)


def run_failed(result):
    """Reasons why a QEMU run counts as failed (empty list if it did not)."""
    reasons = []
    if result.get("qemu_error"):
        reasons.append("QEMU failed to start: %s" % result.get("qemu_stderr", "").strip()[-300:])
    if result.get("timed_out"):
        reasons.append("QEMU killed after the %ss timeout (raise it with %s)"
                       % (result.get("timeout_s"), TIMEOUT_OPTION))
    if result.get("interrupted"):
        reasons.append("QEMU killed by Ctrl-C")
    killed = result.get("timed_out") or result.get("interrupted") or result.get("qemu_error")
    # Without shutdown=debug-exit a clean QEMU exit (0) carries no status: the end record decides.
    other_exit = ((result.get("config") or {}).get("shutdown") != "debug-exit"
                  and result.get("exit_code") == 0)
    # A machine without an exit device (aarch64 virt): a clean exit 0 never carries a status.
    if not EXIT_DEVICE.get(result.get("arch"), True):
        other_exit = other_exit or result.get("exit_code") == 0
    if result.get("firmware_status") != 0 and not killed and not other_exit:
        reasons.append("firmware exit status: %s" % result.get("firmware_status_name"))
    return reasons
