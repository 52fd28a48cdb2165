"""baremetric host harness: parse the firmware's serial record stream, compute statistics,
write reports, and run the firmware under QEMU or capture it from a real serial port."""

__version__ = "0.1"
