"""A real redis-server for the tests: the system's binary on a free port of 127.0.0.1, in a temp dir.

No persistence (``--save '' --appendonly no``), no system service touched: each
server is this test's own process, stopped (and startable again on the same
port) by the test.  ``missing()`` says why the tests cannot run here.
"""

import os
import shutil
import socket
import subprocess
import time

BINARY = "redis-server"


def missing():
    """None when redis-server is on PATH, else one line saying why the Redis tests cannot run."""
    if shutil.which(BINARY):
        return None
    return "redis-server is not installed (apt-get install redis-server; .ci/run installs it)"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ping(port, password=None, timeout=0.5):
    """True when a server answers PING on ``port``."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            cmds = b""
            if password:
                cmds += b"*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n" % (len(password), password.encode())
            s.sendall(cmds + b"*1\r\n$4\r\nPING\r\n")
            data = b""
            while b"PONG" not in data and b"-" not in data:
                chunk = s.recv(256)
                if not chunk:
                    break
                data += chunk
            return b"+PONG" in data
    except OSError:
        return False


class RedisServer:
    """``tls=True``: TLS only, with a certificate for 127.0.0.1 from a test CA (trustme) in ``ca_file``."""

    def __init__(self, directory, password=None, tls=False, cluster=False):
        self.directory = str(directory)
        self.password = password
        self.tls = tls
        self.cluster = cluster  # a Cluster node on its own: no slots served until the test adds them
        self.port = free_port()
        self.proc = None
        self.ca_file = os.path.join(self.directory, "ca.pem") if tls else None

    @property
    def url(self):
        auth = ":%s@" % self.password if self.password else ""
        return "%s://%s127.0.0.1:%d/0" % ("rediss" if self.tls else "redis", auth, self.port)

    def _tls_args(self):
        import trustme

        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1", "localhost")
        key, chain = os.path.join(self.directory, "key.pem"), os.path.join(self.directory, "cert.pem")
        cert.private_key_pem.write_to_path(key)
        cert.cert_chain_pems[0].write_to_path(chain)
        ca.cert_pem.write_to_path(self.ca_file)
        return ["--port", "0", "--tls-port", str(self.port), "--tls-cert-file", chain, "--tls-key-file", key,
                "--tls-ca-cert-file", self.ca_file, "--tls-auth-clients", "no"]  # fmt: skip

    def _ready(self):
        if not self.tls:
            return ping(self.port, self.password)
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
            return True
        except OSError:
            return False

    def start(self):
        os.makedirs(self.directory, exist_ok=True)
        ports = self._tls_args() if self.tls else ["--port", str(self.port)]
        args = [BINARY] + ports + ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        args += ["--dir", self.directory, "--daemonize", "no", "--loglevel", "warning"]
        if self.password:
            args += ["--requirepass", self.password]
        if self.cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes-%d.conf" % self.port]
            args += ["--cluster-port", str(free_port())]  # not the port + 10000 default: past 65535 for some
        self.proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.directory, "redis.log"), "ab")
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("redis-server exited at start: see %s/redis.log" % self.directory)
            if self._ready():
                return self
            time.sleep(0.02)
        raise RuntimeError("redis-server did not answer within 10 s")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def command(self, *args):
        """One command through the worker's own client (tests read keys with it)."""
        from worker.state.resp import Connection

        conn = Connection.open("127.0.0.1", self.port, 2.0)
        try:
            conn.settimeout(2.0)
            if self.password:
                conn.call("AUTH", self.password)
            return conn.call(*args)
        finally:
            conn.close()

    def keys(self, pattern="*"):
        return sorted(k.decode() for k in self.command("KEYS", pattern))


class Blackhole:
    """A listening socket that accepts connections (the kernel's backlog) and never answers a byte."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]

    @property
    def url(self):
        return "redis://127.0.0.1:%d/0" % self.port

    def close(self):
        self.sock.close()
