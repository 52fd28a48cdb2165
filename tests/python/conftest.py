"""pytest setup for the host-side unit tests. The harness package (harness/bmharness) and the
test helpers here (synth, disasm) are importable through `pythonpath = harness tests/python` in
the repository's pytest.ini; nothing here touches sys.path."""
