"""The fake servers that run their own accept() loop stop it when closed (tests/fakes/listening.py).

A serving thread left in accept() on a closed descriptor took the connections of the next server
given the same number: run after tests/site/test_map.py's TLS-proxy test, a page's GET in
tests/pages/test_two_readers.py was answered by the closed proxy's 405."""

import socket

from fakes.hostile_server import HostileServer
from fakes.tls_proxy import TlsProxy


def _refused(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def test_a_closed_tls_proxy_has_no_thread_left_in_accept(tmp_path):
    proxy = TlsProxy(tmp_path)
    port = proxy.port
    proxy.close()
    assert not proxy._thread.is_alive()
    assert _refused(port)


def test_a_stopped_hostile_server_has_no_thread_left_in_accept():
    server = HostileServer().start()
    port = server.port
    server.stop()
    assert not server._thread.is_alive()
    assert _refused(port)
