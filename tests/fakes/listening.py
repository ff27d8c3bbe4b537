"""Closing a fake server's listening socket whose own thread loops on accept().

The serving thread must be gone before the socket's descriptor is closed. A thread still in
accept() on a closed descriptor took the connections of the next server given the same number:
a page's GET, sent to a later test's server, was answered by a closed TLS proxy's 405.
shutdown() wakes a blocked accept() on Linux; a connection of our own wakes it elsewhere.
"""

import socket


def close_listener(sock, thread, timeout=5.0):
    """Stop ``thread`` (blocked in ``sock.accept()``, returning on OSError or on its stop flag,
    which the caller has set) and close ``sock``."""
    port = sock.getsockname()[1]
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    thread.join(timeout)
    if thread.is_alive():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            pass
        thread.join(timeout)
    try:
        sock.close()
    except OSError:
        pass
