"""A script of scripts/ imported as a module, for the tests of both suites (tests/python is on
pytest's pythonpath, pytest.ini): load_script("lz_pack") is scripts/lz_pack.py's module."""

import importlib.util
import os

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts")


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SCRIPTS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
