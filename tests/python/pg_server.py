"""A throwaway PostgreSQL server for the store's tests and benchmark: initdb in a temporary
directory, the server listening only on a Unix socket there (no TCP port to collide with), run
as an unprivileged user (initdb refuses root: as root, the Debian package's `postgres` user or
`nobody`), stopped and deleted afterwards.

    with PgServer() as srv: url = srv.new_database("name")   # postgresql://...?host=DIR

unavailable() says why none can be started (no server binaries, no psycopg2), else None.
"""

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid

PG_BIN_GLOB = "/usr/lib/postgresql/*/bin"
START_TIMEOUT_S = 60


def _bindir():
    dirs = sorted(glob.glob(PG_BIN_GLOB), key=lambda d: int(d.split("/")[-2]) if
                  d.split("/")[-2].isdigit() else 0)
    for d in reversed(dirs):
        if os.path.exists(os.path.join(d, "initdb")) and os.path.exists(os.path.join(d, "pg_ctl")):
            return d
    return None


def unavailable():
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "python3-psycopg2 is not installed (apt-get install python3-psycopg2)"
    if not _bindir():
        return "no PostgreSQL server binaries in %s (apt-get install postgresql)" % PG_BIN_GLOB
    if os.geteuid() == 0 and not _user():
        return "running as root and no unprivileged user (postgres, nobody) to run the server"
    return None


def _user():
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


class PgServer:
    def __init__(self):
        self.dir = None
        self.proc_user = _user()

    def _run(self, argv, **kw):
        if self.proc_user:
            argv = ["runuser", "-u", self.proc_user.pw_name, "--"] + argv
        return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=START_TIMEOUT_S, **kw)

    def __enter__(self):
        bindir = _bindir()
        self.dir = tempfile.mkdtemp(prefix="bm-pg-")
        os.chmod(self.dir, 0o755)
        data = os.path.join(self.dir, "data")
        if self.proc_user:
            os.chown(self.dir, self.proc_user.pw_uid, self.proc_user.pw_gid)
        self.user = self.proc_user.pw_name if self.proc_user else pwd.getpwuid(os.geteuid()).pw_name
        self._run([os.path.join(bindir, "initdb"), "-D", data, "-U", self.user, "-A", "trust",
                   "-E", "UTF8", "--no-sync"])
        # no TCP (listen_addresses empty), the socket in our directory; fsync off: a test server
        opts = "-c listen_addresses='' -k %s -c fsync=off -c max_connections=60" % self.dir
        self._run([os.path.join(bindir, "pg_ctl"), "-D", data, "-o", opts, "-w", "-l",
                   os.path.join(self.dir, "server.log"), "start"])
        self.pg_ctl = [os.path.join(bindir, "pg_ctl"), "-D", data]
        return self

    def url(self, dbname="postgres"):
        return "postgresql://%s@/%s?host=%s" % (self.user, dbname, self.dir)

    def new_database(self, name=None):
        """A fresh empty database's URL."""
        import psycopg2
        name = name or "bm_" + uuid.uuid4().hex[:12]
        conn = psycopg2.connect(self.url())
        conn.autocommit = True
        conn.cursor().execute('CREATE DATABASE "%s"' % name)
        conn.close()
        return self.url(name)

    def __exit__(self, *exc):
        try:
            self._run(self.pg_ctl + ["-m", "immediate", "stop"])
        except (subprocess.SubprocessError, OSError):
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
        return False
