"""The QEMU integration tests of the x86_64 build (a package: its test files share names with aarch64/'s)."""
