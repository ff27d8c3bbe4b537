"""Find a Chrome/Chromium and run it as one process group that ends with the call.

The browser is found, never bundled: the ``browser`` config key or
``$WEBSEARCH_WORKER_BROWSER`` names one, else Debian's chromium, else the usual
names on ``PATH``.  It starts headless in its own process group with a fresh
profile in the call's temp directory, speaking the DevTools protocol over a pipe
(worker.pages.render.cdp).  ``kill`` ends the whole group; the call's cleanup
calls it on every way out (done, error, timeout, SIGTERM/SIGINT/SIGHUP), and a
worker that dies without cleanup (SIGKILL, a crash) closes the pipe, on which
Chromium exits by itself.

Chromium's own sandbox stays on wherever it can run: ``--no-sandbox`` is passed only to a
browser run as root (Chromium refuses its sandbox there) or, through worker.pages.render.hook,
to the second start of one that said at its first that it has no usable sandbox (no user
namespaces, no setuid helper: some containers).
"""

from __future__ import annotations

import os
import shutil
import signal
import time

from ...errors import WorkerError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Callable, Mapping

    from .cdp import Connection

ENV_BROWSER = "WEBSEARCH_WORKER_BROWSER"
# Debian's binary itself first: /usr/bin/chromium is a shell script that sources /etc/chromium.d.
CANDIDATES = (
    "/usr/lib/chromium/chromium",
    "chromium",
    "chromium-browser",
    "google-chrome-stable",
    "google-chrome",
    "chrome",
)
INSTALL_HINT = (
    "install Chromium from the system's packages (Debian/Ubuntu: apt-get install chromium), or name a "
    'Chrome/Chromium binary in the config\'s "browser" key or in $%s' % ENV_BROWSER
)

# Nothing starts that is not the page: no first-run UI, no background fetches of
# components, safe-browsing lists or sync (offline machines would log refused
# connections for each), no QUIC (UDP bypasses any proxy), no popups, and
# permission prompts denied.
FLAGS = (
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-crash-reporter",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    # Chrome's own local-network checks are off: the gate (worker.pages.render.gate) applies the
    # worker's guard to every request, websockets included, which those checks do not cover.
    "--disable-features=MediaRouter,OptimizationHints,Translate,AutofillServerCommunication,"
    "CertificateTransparencyComponentUpdater,LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,"
    "PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults",
    "--disable-dev-shm-usage",
    "--block-new-web-contents",
    "--deny-permission-prompts",
    "--mute-audio",
    "--hide-scrollbars",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--metrics-recording-only",
    "--password-store=basic",
    "--use-mock-keychain",
    "--window-size=1280,2000",
    "--remote-debugging-pipe",
)
# The browser's stderr, kept in its profile: when it will not start, its last line says why.
STDERR_LOG = "stderr.log"
NO_SANDBOX = "--no-sandbox"
# What Chromium writes when its sandbox cannot run here: "No usable sandbox! Update your kernel or
# ...", or, as root, "Running as root without --no-sandbox is not supported".
SANDBOX_REFUSED = ("No usable sandbox", "without --no-sandbox")


def sandbox_possible() -> bool:
    """Whether to start the browser with its sandbox: not as root, where Chromium refuses it."""
    return os.geteuid() != 0


def find(configured: str | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The browser to run: the config's, the environment's, else the first candidate installed."""
    environ = os.environ if environ is None else environ
    named = (configured or "").strip() or environ.get(ENV_BROWSER, "").strip()
    if named:
        path = shutil.which(os.path.expanduser(named))
        if path is None:
            raise WorkerError(
                "config",
                "the browser %r is not an executable file" % named,
                hint='name a Chrome/Chromium binary in the config\'s "browser" key or $%s' % ENV_BROWSER,
            )
        return path
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def arguments(executable: str, profile: str, gate: str, sandbox: bool = True) -> list[str]:
    """The browser's command line: headless, a fresh profile, the pipe, every connection through ``gate``,
    and ``--no-sandbox`` only when ``sandbox`` is False.

    ``<-loopback>`` takes away Chromium's own exemption of localhost from the proxy:
    a page's request to 127.0.0.1 must meet the guard like any other.
    """
    return [
        executable,
        *FLAGS,
        *(() if sandbox else (NO_SANDBOX,)),
        "--user-data-dir=" + profile,
        "--proxy-server=" + gate,
        "--proxy-bypass-list=<-loopback>",
        "about:blank",
    ]


# What the browser inherits of the worker's environment: never API keys or tokens (a
# crash report could hold its environment), nor proxies (the gate is its proxy).
PASSED_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "FONTCONFIG_PATH", "FONTCONFIG_FILE")


# The longest temp folder Chromium can be given: the path of its singleton socket,
# TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket, must fit a socket's address (107 bytes).
SOCKET_TMPDIR_MAX = 107 - len("/org.chromium.Chromium.XXXXXX/SingletonSocket")


def browser_env(profile: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The browser's environment: a few locale and font settings, and a home inside its profile
    (nothing lands in the user's ~/.config, ~/.cache or ~/.pki, crash reports included). Its temp
    folder is the one that holds the profile (the call's, removed when the call ends, however it
    ends) when that path is short enough: a browser killed before it links its singleton's folder
    from the profile leaves that folder there, not in the system's temp folder."""
    environ = os.environ if environ is None else environ
    env = {k: environ[k] for k in PASSED_ENV if k in environ}
    env.update(HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
    folder = os.path.dirname(os.path.abspath(profile))
    if len(os.fsencode(folder)) <= SOCKET_TMPDIR_MAX:
        env["TMPDIR"] = folder
    return env


def _high(fd: int) -> int:
    """The same pipe end above fd 4, so the dup2 to 3 and 4 in the child cannot clobber it."""
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """A running browser: ``conn`` speaks to it, ``kill()`` ends its process group."""

    def __init__(
        self,
        executable: str,
        profile: str,
        gate: str,
        on_spawn: Callable[[Browser], object] | None = None,
        sandbox: bool | None = None,
    ) -> None:
        """Start the browser; ``on_spawn(self)`` runs the moment it exists (Call.track: a signal
        that comes while it starts up must find it to kill).  ``sandbox``: Chromium's sandbox on
        (None: wherever ``sandbox_possible``)."""
        from .cdp import Connection

        self.sandbox = sandbox_possible() if sandbox is None else sandbox
        self.profile = profile
        self._reaped = False
        self.conn: Connection  # set once the pipe is open; kill() may come before
        self.started = time.monotonic()
        os.makedirs(profile, mode=0o700, exist_ok=True)
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        child_r, child_w = _high(to_browser_r), _high(from_browser_w)
        env = browser_env(profile)
        try:
            # posix_spawn, not fork: safe while other threads run; the child gets its own process group.
            self.pid = os.posix_spawn(
                executable,
                arguments(executable, profile, gate, self.sandbox),
                env,
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (
                        os.POSIX_SPAWN_OPEN,
                        2,
                        os.path.join(profile, STDERR_LOG),
                        os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                        0o600,
                    ),
                    (os.POSIX_SPAWN_DUP2, child_r, 3),
                    (os.POSIX_SPAWN_DUP2, child_w, 4),
                ],
                setpgroup=0,
            )
            if on_spawn is not None:
                on_spawn(self)
        except OSError as exc:
            for fd in (child_r, child_w, to_browser_w, from_browser_r):
                os.close(fd)
            raise WorkerError(
                "unsupported_content",
                "the browser %s could not be started: %s" % (executable, exc.strerror or exc),
                hint=INSTALL_HINT,
            ) from None
        finally:
            for fd in (child_r, child_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.conn = Connection(from_browser_r, to_browser_w)

    def kill(self) -> None:
        """End every process of the browser's group now, reap the leader, remove the profile; safe to call twice."""
        if self._reaped:
            return
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        conn = getattr(self, "conn", None)
        if conn is not None:
            conn.close()
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                done, _ = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                break
            if done:
                break
            time.sleep(0.005)
        from ...procgroup import group_alive

        # and its other processes (renderers, zygotes), killed with the group: a call's browser
        # ends before the call does, so a host counting workers counts it too
        while group_alive(self.pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        self._reaped = True
        self._remove_profile()

    def close(self) -> None:
        self.kill()

    def _stderr_tail(self) -> str:
        try:
            with open(os.path.join(self.profile, STDERR_LOG), "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 4096))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def last_words(self, limit: int = 160) -> str:
        """The last non-blank line the browser wrote to stderr, shortened; "" when none (read before ``kill``)."""
        lines = [" ".join(line.split()) for line in self._stderr_tail().splitlines() if line.strip()]
        return lines[-1][:limit] if lines else ""

    def sandbox_refused(self) -> bool:
        """Whether a browser started with its sandbox said on stderr that the sandbox cannot run
        here (read before ``kill``)."""
        tail = self._stderr_tail()
        return self.sandbox and any(said in tail for said in SANDBOX_REFUSED)

    def _remove_profile(self) -> None:
        singleton = _singleton_folder(self.profile)
        if singleton is not None:
            shutil.rmtree(singleton, ignore_errors=True)
        # A dying process may still be finishing a write: try again until the directory stays gone.
        end = time.monotonic() + 2.0
        while True:
            shutil.rmtree(self.profile, ignore_errors=True)
            if not os.path.exists(self.profile) or time.monotonic() > end:
                return
            time.sleep(0.05)


def _singleton_folder(profile: str) -> str | None:
    """The folder Chromium made in the temp folder for the profile's singleton socket
    (``/tmp/org.chromium.Chromium.XXXXXX``, linked from the profile's ``SingletonSocket``), or
    None. A browser that is killed, as every call's is, leaves it behind: one a render. Only a
    folder that holds nothing but the singleton's entries is named, so that no link can point
    the removal elsewhere. (Chromium is given the profile's folder as its TMPDIR only when that
    is short: a long one makes the socket's path longer than a socket address holds, and
    Chromium will not start.)"""
    try:
        target = os.readlink(os.path.join(profile, "SingletonSocket"))
    except OSError:
        return None
    folder = os.path.dirname(target)
    if not os.path.isabs(target) or os.path.realpath(folder) == os.path.realpath(profile):
        return None
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    if names:
        return folder if all(name.startswith("Singleton") for name in names) else None
    # Chromium links the folder from the profile before it binds the socket in it: killed in
    # between, it leaves the folder empty. Only an empty one named as Chromium names it goes.
    return folder if os.path.basename(folder).startswith("org.chromium.Chromium.") else None
