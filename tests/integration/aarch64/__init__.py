"""The QEMU integration tests of the AArch64 build (a package: its test files share names with x86_64/'s)."""
