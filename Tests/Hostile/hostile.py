#!/usr/bin/env python3
"""The hostile-client suite: the real popgestured binary, attacked over its socket.

Each attack starts a daemon of its own (`popgestured run --socket` in a temporary
folder, an empty configuration, systemd's notify protocol with a 2 s watchdog),
and runs with two witnesses beside it:

- a well-behaved client that sends `status` every 50 ms and times each round
  trip; it must never be disconnected, and no round trip may pass ROUND_TRIP_BOUND;
- the watchdog: the daemon must keep sending WATCHDOG=1 (every 1 s for
  WatchdogSec=2 s); no gap may pass WATCHDOG_GAP_BOUND, or systemd would kill it.

After each attack the daemon must still be running, its peak RSS (VmHWM) must be
under the documented ceiling, and its log must hold no line longer than 4 KiB.

The latency family (`latency-*`, issue 18) times touches instead: a touchscreen fed
through `--event-pipe`, swipes whose finger-up -> `back` is timed under each client
load (pipelined `status` and `{}` lines, clients that never read, hellos that never
end, idle clients, one user taking every slot), beside a run without load. Under
load, the p99 must stay within a bound of the no-load p99 (5 ms with
--strict-latency, for a release build; by default, for the debug build CI runs, the
p95 within DEBUG_LATENCY_SLACK_MS), no watchdog gap may pass 1 s, peak RSS must stay under
64 MiB, and a fresh client must get in and get a `back` within 1 s.

The figures go to stdout and, with --report FILE, to Markdown tables
(docs/RELIABILITY.md quotes them).

    Tests/Hostile/hostile.py [--binary PATH] [--only REGEX] [--report FILE]
                             [--strict-latency | --latency-slack-ms MS] [--swipes N]
    Tests/Hostile/hostile.py --binary .build/release/popgestured --only latency --strict-latency

Standard library only; loopback Unix sockets only. Exits 1 if any attack fails.
"""

import argparse
import json
import math
import multiprocessing
import os
import re
import select
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The bounds the suite holds the daemon to (docs/RELIABILITY.md).
ROUND_TRIP_BOUND = 2.0          # s: a well-behaved client's status round trip (debug build, 2 cores shared with the attacker)
WATCHDOG_USEC = 2_000_000       # WatchdogSec=2 s: the daemon pings every 1 s
WATCHDOG_GAP_BOUND = 1.9        # s: systemd would kill the daemon at 2 s
RSS_CEILING_MIB = 96            # MiB: peak RSS of the daemon under any attack
LOG_LINE_BOUND = 4096           # bytes: no log line longer than this
MAX_CLIENTS = 128               # the daemon's limit of clients in all
LINE_TIMEOUT = 10.0             # s: an unfinished line is dropped after this


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


# ---------------------------------------------------------------- sockets

def connect(path, timeout=5.0):
    """A connection, waiting up to `timeout` for room in the daemon's backlog.

    A Unix socket with a timeout is non-blocking underneath, and its connect fails at
    once with EAGAIN while the listener's backlog is full; a blocking connect would wait.
    """
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(path)
            return s
        except BlockingIOError:
            s.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


PER_PROCESS = 8  # connections a child opens before it hands them over (the daemon's share before hello is 8 per user)


def connect_many(path, count, first_line=b"", timeout=5.0, await_answer=False):
    """`count` connections, opened PER_PROCESS at a time by short-lived processes of their own.

    The children hand the sockets back (SCM_RIGHTS) and exit: still one attacker, many
    peers, as an attack that wants more connections than one process may hold would open
    them (docs/PROTOCOL.md, "Places"). Each
    child writes `first_line` on each of its sockets as it connects it (a hello, so that
    the connections do not pile up before hello). With `await_answer`, the child waits
    (up to `timeout`) until the daemon has answered that line before it opens the next
    connection, so that a daemon slowed by a loaded machine never sees more than one of
    them before hello at a time. Stops early when a connect fails (the daemon's backlog
    stayed full for `timeout`).
    """
    sockets = []
    while len(sockets) < count:
        wanted = min(PER_PROCESS, count - len(sockets))
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        pid = os.fork()
        if pid == 0:  # the child: connect, hand the descriptors over, exit
            fds = []
            try:
                for _ in range(wanted):
                    s = connect(path, timeout)
                    try:
                        s.sendall(first_line)
                    except OSError:
                        pass  # turned away at once: the answer is still there to read
                    if await_answer:
                        select.select([s], [], [], timeout)  # the answer stays unread, for the parent
                    fds.append(s.detach())
            except OSError:
                pass
            finally:
                socket.send_fds(child_end, [len(fds).to_bytes(2, "little")], fds)
                os._exit(0)
        child_end.close()
        _, fds, _, _ = socket.recv_fds(parent_end, 16, wanted)
        parent_end.close()
        os.waitpid(pid, 0)
        for fd in fds:
            s = socket.socket(fileno=fd)
            s.settimeout(timeout)
            sockets.append(s)
        if len(fds) < wanted:
            break
    return sockets


class Client:
    """A line-oriented client with a deadline on every read."""

    def __init__(self, path, name=None, hello=True, timeout=5.0, sock=None):
        self.sock = sock or connect(path, timeout)
        self.buffer = b""
        if hello:
            reply = self.request({"type": "hello", "version": 1, **({"name": name} if name else {})})
            expect(reply.get("type") == "hello", f"hello answered {reply}")

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, obj):
        self.send_raw(json.dumps(obj, separators=(",", ":")).encode() + b"\n")

    def read_line(self, timeout=5.0):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failure(f"no line within {timeout:.3g} s")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise Failure(f"no line within {timeout:.3g} s")
            if not chunk:
                raise EOFError("connection closed by the daemon")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def reply(self, timeout=5.0):
        """The next line that is a reply (ok, error, hello, stack, status), skipping events."""
        while True:
            line = self.read_line(timeout)
            if line.get("type") in ("ok", "error", "hello", "stack", "status"):
                return line

    def request(self, obj, timeout=5.0):
        self.send(obj)
        return self.reply(timeout)

    def closed_by_daemon(self, timeout=5.0):
        """True once the daemon closed the connection (reading and dropping what it sent)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                return False
            except ConnectionResetError:
                return True
            if not chunk:
                return True
            self.buffer += chunk
        return False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# ---------------------------------------------------------------- the daemon

class Daemon:
    def __init__(self, binary, workdir, name, extra_args=(), prlimit_nofile=None, watchdog_usec=WATCHDOG_USEC, env=None):
        self.dir = os.path.join(workdir, name)
        os.makedirs(self.dir)
        self.socket = os.path.join(self.dir, "d.sock")
        self.config = os.path.join(self.dir, "empty.conf")
        open(self.config, "w").close()
        self.log_path = os.path.join(self.dir, "daemon.log")
        self.notify_path = os.path.join(self.dir, "notify.sock")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        self.watchdog_times = []
        self.ready = threading.Event()
        self.stopped = threading.Event()
        threading.Thread(target=self._read_notify, daemon=True).start()

        env = dict(os.environ, NOTIFY_SOCKET=self.notify_path, WATCHDOG_USEC=str(watchdog_usec), **(env or {}))
        env.pop("WATCHDOG_PID", None)
        command = [binary, "run", "--socket", self.socket, "--config", self.config, *extra_args]
        if prlimit_nofile is not None:
            command = ["prlimit", f"--nofile={prlimit_nofile}:{prlimit_nofile}", "--", *command]
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, env=env)
        if not self.ready.wait(30):
            self.stop()
            raise Failure(f"the daemon did not send READY=1 within 30 s; log:\n{self.log_tail()}")

    def _read_notify(self):
        self.notify.settimeout(0.2)
        while not self.stopped.is_set():
            try:
                message = self.notify.recv(4096).decode(errors="replace")
            except socket.timeout:
                continue
            except OSError:
                return
            if "READY=1" in message:
                self.ready.set()
            if "WATCHDOG=1" in message:
                self.watchdog_times.append(time.monotonic())

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process.poll() is None

    def status_field(self, field):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return 0

    def rss_mib(self):
        return self.status_field("VmRSS") / 1024

    def peak_rss_mib(self):
        return self.status_field("VmHWM") / 1024

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def open_fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def watchdog_gap(self, since):
        """The longest time without a WATCHDOG=1 from `since` until now."""
        pings = [t for t in self.watchdog_times if t >= since - 1]
        edges = [since] + pings + [time.monotonic()]
        return max(b - a for a, b in zip(edges, edges[1:]))

    def longest_log_line(self):
        return max((len(l) for l in self.log_text().splitlines()), default=0)

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read()

    def log_tail(self, lines=30):
        return b"\n".join(self.log_text().splitlines()[-lines:]).decode(errors="replace")

    def stop(self):
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stopped.set()
        self.notify.close()
        self.log.close()


class ChildProcess:
    """A witness or attacker in a process of its own: `_run(out, ready)` sends one result."""

    name = "a child process"

    def start(self):
        self.halt = multiprocessing.Event()
        self.results, child_end = multiprocessing.Pipe(duplex=False)
        ready = multiprocessing.Event()
        self.process = multiprocessing.Process(target=self._run, args=(child_end, ready), daemon=True)
        self.process.start()
        deadline = time.monotonic() + 15
        while not ready.wait(0.1):
            if self.results.poll() or not self.process.is_alive() or time.monotonic() > deadline:
                error = (self.results.recv() if self.results.poll()
                         else "exited" if not self.process.is_alive() else "not ready within 15 s")
                self.stop()
                raise Failure(f"{self.name}: {error}")

    def finish(self, timeout=15):
        """Halts the process; its result, or None."""
        self.halt.set()
        result = self.results.recv() if self.results.poll(timeout) else None
        self.stop()
        return result

    def stop(self):
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class Prober(ChildProcess):
    """The well-behaved client: a status round trip every 50 ms, each one timed.

    A process of its own, so that the attacker's work in this interpreter never
    delays its measurements.
    """

    name = "the well-behaved client"

    def __init__(self, path):
        self.path = path
        self.round_trips, self.started, self.error = [], [], None
        self.start()

    def _run(self, out, ready):
        round_trips, started, error = [], [], None
        try:
            client = Client(self.path, name="prober")
        except Exception as failure:  # noqa: BLE001 - reported to the parent
            out.send(f"could not say hello: {failure!r}")
            return
        ready.set()
        n = 0
        while not self.halt.is_set():
            n += 1
            start = time.monotonic()
            try:
                reply = client.request({"type": "status", "id": n}, timeout=10)
            except Exception as failure:  # noqa: BLE001 - any failure is the finding
                error = f"the well-behaved client lost its connection or a reply: {failure!r}"
                break
            round_trips.append(time.monotonic() - start)
            started.append(start)
            if reply.get("type") != "status" or reply.get("id") != n:
                error = f"status {n} answered {str(reply)[:200]}"
                break
            self.halt.wait(0.05)
        client.close()
        out.send((round_trips, started, error))

    def finish(self):
        result = super().finish()
        if result is None:
            self.error = "the well-behaved client did not finish"
        else:
            self.round_trips, self.started, self.error = result


def percentile(values, p):
    """Nearest rank, as Benchmarks/fanout/measure.h: the value at rank ceil(p/100 x n)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(p / 100 * len(ordered)))) - 1]


# ---------------------------------------------------------------- attacks
# Each takes (daemon, workdir) and returns a dict of figures worth reporting.

def attack_deep_nesting(daemon, _):
    """513 `[` before hello, and `{"a":` x512 then `[`: once a SIGILL in Foundation."""
    c = Client(daemon.socket, hello=False)
    for line in (b"[" * 513, b'{"a":' * 512 + b"[", b"[" * 60000):
        c.send_raw(line + b"\n")
        reply = c.reply()
        expect(reply.get("code") == "nesting-too-deep", f"{line[:20]!r}… answered {reply}")
    expect(c.request({"type": "hello", "version": 1}).get("type") == "hello", "hello after the attack")
    c.close()
    return {"lines": 3}


def attack_nesting_flood(daemon, _):
    """Ten clients sending 1 KB lines of depth 511, 100 each: once cubic, 2.3 s a line."""
    line = b"[" * 511 + b"]" * 511 + b"\n"
    clients = [Client(None, hello=False, sock=s) for s in connect_many(daemon.socket, 10)]
    for _ in range(100):
        for c in clients:
            c.send_raw(line)
    for c in clients:
        for _ in range(100):
            expect(c.reply(timeout=20).get("code") == "nesting-too-deep", "depth 511 answered otherwise")
        c.close()
    return {"lines": 1000}


def attack_huge_ids(daemon, _):
    """25 navigators with 60,000-byte ids, then every status was 1.5 MB."""
    c = Client(daemon.socket)
    for i in range(25):
        reply = c.request({"type": "create", "navigator": f"{i:02d}" + "n" * 59998, "pages": [{"id": "root"}]})
        expect(reply.get("code") == "too-long", f"a 60,000-byte id answered {str(reply)[:200]}")
    # The most a client can hold, at the longest ids allowed.
    for i in range(16):
        reply = c.request({"type": "create", "navigator": f"{i:02d}" + "n" * 254,
                           "pages": [{"id": f"{p:02d}" + "p" * 254} for p in range(64)]})
        expect(reply.get("type") == "ok", f"navigator {i} at the limits answered {str(reply)[:200]}")
    reply = c.request({"type": "create", "navigator": "one-too-many", "pages": [{"id": "root"}]})
    expect(reply.get("code") == "too-many-navigators", f"a 17th navigator answered {str(reply)[:200]}")
    reply = c.request({"type": "push", "navigator": "00" + "n" * 254, "page": {"id": "page-65"}})
    expect(reply.get("code") == "too-many-pages", f"a 65th page answered {str(reply)[:200]}")
    other = Client(daemon.socket)
    other.send({"type": "status"})
    raw_len = 0
    while True:
        while b"\n" not in other.buffer:
            other.buffer += other.sock.recv(1 << 20)
        line, _, other.buffer = other.buffer.partition(b"\n")
        if json.loads(line).get("type") == "status":
            raw_len = len(line)
            break
    expect(raw_len < 256 * 1024, f"status is {raw_len} bytes, over the 256 KiB a client may buffer")
    stack = other.request({"type": "stack", "navigator": "00" + "n" * 254})
    expect(len(stack.get("pages", [])) == 64, "stack of a full navigator")
    c.close()
    other.close()
    return {"status bytes": raw_len}


def attack_many_clients(daemon, _):
    """1,000 clients each holding an unfinished 65,000-byte line."""
    held = []
    connections = connect_many(daemon.socket, 1000)
    refused = 1000 - len(connections)
    for s in connections:
        try:
            s.sendall(b'{"type":"hello","version":1,"name":"' + b"x" * 65000)
        except OSError:
            refused += 1
            s.close()
            continue
        held.append(s)
    time.sleep(1)
    peak_during = daemon.peak_rss_mib()
    # Past the limit of clients every connection is told so and closed.
    told = 0
    for s in held:
        s.settimeout(0.05)
        try:
            data = s.recv(4096)
        except (socket.timeout, OSError):
            continue
        if b"too-many-clients" in data:
            told += 1
    # A connection past the limit is told and closed, often before its 65,000 bytes are sent.
    expect(told + refused >= 1000 - MAX_CLIENTS, f"only {told + refused} of the clients past {MAX_CLIENTS} were turned away")
    # The unfinished lines time out.
    time.sleep(LINE_TIMEOUT + 2)
    still_open = 0
    for s in held:
        s.settimeout(0.05)
        try:
            while True:
                data = s.recv(65536)
                if not data:
                    break
        except socket.timeout:
            still_open += 1
        except OSError:
            pass
        s.close()
    expect(still_open == 0, f"{still_open} connections with an unfinished line still open after {LINE_TIMEOUT} s")
    return {"connections": 1000, "turned away": told + refused, "peak RSS MiB": round(peak_during, 1)}


def attack_non_reading_subscribers(count):
    def attack(daemon, _):
        driver = Client(daemon.socket, name="driver")
        expect(driver.request({"type": "create", "navigator": "n", "pages": [{"id": "root"}]}).get("type") == "ok", "create")
        sleepers, turned_away = [], 0
        # At the limit the daemon answers too-many-clients and closes at once, maybe
        # before the hello is written: the answer is still there to read.
        for s in connect_many(daemon.socket, count, first_line=b'{"type":"hello","version":1}\n', await_answer=True):
            c = Client(None, hello=False, sock=s)
            c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            reply = c.reply()
            if reply.get("code") == "too-many-clients":
                turned_away += 1
                c.close()
                continue
            expect(reply.get("type") == "hello", f"hello answered {reply}")
            expect(c.request({"type": "subscribe"}).get("type") == "ok", "subscribe")
            sleepers.append(c)
        # The prober and the driver hold two of the places.
        expect(len(sleepers) == min(count, MAX_CLIENTS - 2), f"{len(sleepers)} subscribers admitted")
        pad = "p" * 250
        pushes = 0
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for i in range(50):
                driver.send({"type": "push", "navigator": "n", "page": {"id": f"{i}{pad}", "prefersBarHidden": i % 2 == 0}})
            driver.send({"type": "replace", "navigator": "n", "pages": [{"id": "root"}]})
            for _ in range(51):
                driver.reply(timeout=10)
            pushes += 50
        peak = daemon.peak_rss_mib()
        # Each fell more than 256 KiB behind, so the daemon let each one go.
        closed = sum(1 for c in sleepers if c.closed_by_daemon(timeout=5))
        expect(closed == len(sleepers), f"only {closed} of {len(sleepers)} subscribers that never read were disconnected")
        for c in sleepers:
            c.close()
        driver.close()
        return {"subscribers": len(sleepers), "turned away": turned_away, "pushes": pushes, "disconnected": closed,
                "peak RSS MiB": round(peak, 1)}
    attack.__doc__ = f"{count} subscribers that never read, while one client pushes and pops."
    return attack


def attack_fd_exhaustion(daemon, _):
    """Soft and hard RLIMIT_NOFILE of 64: more connections than descriptors.

    Each says hello at once: connections before hello have places of their own, fewer
    than the descriptors, so only clients can take them all.
    """
    sockets = connect_many(daemon.socket, 200, first_line=b'{"type":"hello","version":1}\n', timeout=1)
    time.sleep(1)
    cpu_before, t0 = daemon.cpu_seconds(), time.monotonic()
    time.sleep(3)
    cpu = (daemon.cpu_seconds() - cpu_before) / (time.monotonic() - t0)
    expect(cpu < 0.3, f"the daemon used {cpu:.0%} of a core while out of descriptors")
    log = daemon.log_text()
    expect(b"descriptor" in log or b"EMFILE" in log or b"too many open files" in log.lower(),
           "nothing in the log says the daemon ran out of file descriptors")
    for s in sockets:
        s.close()
    # Accepting resumes once descriptors are free again.
    deadline = time.monotonic() + 10
    while True:
        try:
            c = Client(daemon.socket, timeout=2)
            c.close()
            break
        except (OSError, EOFError, Failure):
            expect(time.monotonic() < deadline, "no client could connect 10 s after the descriptors were freed")
            time.sleep(0.2)
    return {"connections": len(sockets), "CPU while exhausted": f"{cpu:.1%}"}


def attack_garbage(daemon, _):
    """Every kind of bad line; each gets its code, and the connection stays usable."""
    c = Client(daemon.socket)
    cases = [
        (b"\xff\xfe\x00garbage", "malformed-json"),
        (b'{"type":"status","id":1e400}', "invalid-field"),
        (b'{"type":"status","id":1.0}', "invalid-field"),
        (b'{"type":"status","type":"hello"}', "duplicate-key"),
        (b'"just a string"', "not-an-object"),
        (b'{"type":"nope"}', "unknown-type"),
        (b"x" * 70000, "line-too-long"),
    ]
    for line, code in cases:
        c.send_raw(line + b"\n")
        reply = c.reply()
        expect(reply.get("code") == code, f"{line[:30]!r} answered {str(reply)[:200]}, expected {code}")
    expect(c.request({"type": "status", "id": 7}).get("type") == "status", "status after the garbage")
    c.send_raw(b'{"type":"status","unknown":1e400,"id":8}\n')
    expect(c.reply().get("type") == "status", "an unknown key holding 1e400 is ignored")
    c.close()
    return {"lines": len(cases) + 2}


def attack_slow_hello(daemon, _):
    """A connection that never says hello, and one that stops mid-line, are closed after the timeout."""
    silent = connect(daemon.socket)
    partial = Client(daemon.socket)
    partial.send_raw(b'{"type":"sta')
    time.sleep(LINE_TIMEOUT + 2)
    s = Client(None, hello=False, sock=silent)
    expect(s.closed_by_daemon(timeout=2), "a connection that never said hello is still open")
    expect(partial.closed_by_daemon(timeout=2), "a connection with an unfinished line is still open")
    expect(b"line-timeout" in partial.buffer, f"no line-timeout error before the close: {partial.buffer[:200]!r}")
    return {}


ATTACKS = [
    ("deep-nesting", attack_deep_nesting, {}),
    ("nesting-flood", attack_nesting_flood, {}),
    ("huge-ids", attack_huge_ids, {}),
    ("garbage", attack_garbage, {}),
    ("slow-hello", attack_slow_hello, {}),
    ("many-unfinished-lines", attack_many_clients, {}),
    ("50-non-reading-subscribers", attack_non_reading_subscribers(50), {}),
    ("200-non-reading-subscribers", attack_non_reading_subscribers(200), {}),
    ("fd-exhaustion", attack_fd_exhaustion, {"prlimit_nofile": 64}),
]


# A system bus of the suite's own for the forged-signal attack: the system bus's rules
# (signals may go to anyone, method calls only where a rule allows, names owned only by
# whom a rule names), iio-sensor-proxy's (root owns net.hadess.SensorProxy, anyone may
# call it), and the bus's own interface open to all.
BUS_CONF_HEAD = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>{type}</type>
  <listen>unix:path={{path}}</listen>
  <auth>EXTERNAL</auth>
"""
SYSTEM_BUS_CONF = BUS_CONF_HEAD.format(type="system") + """  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus"/>
    <allow send_destination="net.hadess.SensorProxy"/>
  </policy>
  <policy user="root">
    <allow own="net.hadess.SensorProxy"/>
  </policy>
</busconfig>
"""
FORGED_ROUNDS = 100                 # rounds of forged signals, two signals each


def private_bus(workdir, name, conf_template, children):
    """A dbus-daemon of its own (conf_template's policy) in workdir/name, reachable by any
    local user, as the system bus is; appended to children. Its folder and address."""
    for tool in ("dbus-daemon", "gdbus", "setpriv"):
        expect(shutil.which(tool), f"{tool} is missing (scripts/setup installs it)")
    folder = os.path.join(workdir, name)
    os.makedirs(folder)
    os.chmod(folder, 0o755)
    bus_path = os.path.join(folder, "bus_socket")
    conf = os.path.join(folder, "bus.conf")
    with open(conf, "w") as f:
        f.write(conf_template.format(path=bus_path))
    children.append(subprocess.Popen(["dbus-daemon", f"--config-file={conf}", "--nofork", "--nopidfile"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    deadline = time.monotonic() + 10
    while not os.path.exists(bus_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    expect(os.path.exists(bus_path), "dbus-daemon made no socket")
    os.chmod(bus_path, 0o777)  # the forger, nobody, must reach the bus as any local user does
    return folder, f"unix:path={bus_path}"


def timings(what, idle, under_attack):
    """The figures of a forgery check: p50 / max of each run, in ms."""
    def shown(values):
        return f"{percentile(values, 50) * 1000:.2f} / {max(values) * 1000:.2f}"
    return {f"{what} p50 / max without load": shown(idle), "while forged": shown(under_attack)}


def stop_all(daemon, children):
    """Stops the daemon, then the children, last started first."""
    if daemon is not None:
        daemon.stop()
    for child in reversed(children):
        if child.poll() is None:
            child.kill()
        child.wait()


def check_forged_sensor_signals(binary, workdir):
    """Issue 28: iio-sensor-proxy's signals forged by another user on the system bus.

    The daemon follows a stand-in proxy (Tests/Fixtures/iio/fake-sensor-proxy.py, root's)
    on a dbus-daemon with the system bus's rules. As nobody, Tests/Fixtures/iio/
    forge-signals.py sends the daemon's connection 100 forged PropertiesChanged
    (bottom-up) and 100 forged NameOwnerChanged ("the proxy left"), unicast. The
    rotation must stay the sensor's 90 degrees, the daemon must not claim again, and
    its status round trips while it reads them are timed beside those before.
    """
    python = "/usr/bin/python3"  # Debian's, which python3-gi serves
    fixtures = os.path.join(REPO, "Tests", "Fixtures", "iio")
    expect(os.geteuid() == 0, "the suite must run as root: the forger runs as another user, nobody")
    children = []

    def start(command, env=None, log=None):
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=log or subprocess.DEVNULL, env=dict(os.environ, **(env or {})))
        children.append(child)
        return child

    def claims():
        done = subprocess.run(["gdbus", "call", "--address", address, "--dest", "net.hadess.SensorProxy",
                               "--object-path", "/net/hadess/SensorProxy",
                               "--method", "net.hadess.SensorProxy.FakeControl.Claims"],
                              capture_output=True, text=True, timeout=10)
        match = re.search(r"uint32 (\d+)", done.stdout)
        expect(match, f"the stand-in proxy did not say its claims: {done.stdout}{done.stderr}")
        return int(match.group(1))

    daemon = None
    try:
        folder, address = private_bus(workdir, "forged-sensor-signals-bus", SYSTEM_BUS_CONF, children)
        proxy = start([python, os.path.join(fixtures, "fake-sensor-proxy.py"), "left-up"],
                      env={"DBUS_SYSTEM_BUS_ADDRESS": address})
        expect(proxy.stdout.readline().strip() == b"ready", "the stand-in proxy did not start")
        fifo = os.path.join(folder, "touch.fifo")
        os.mkfifo(fifo)
        daemon = Daemon(binary, workdir, "forged-sensor-signals", extra_args=("--event-pipe", fifo, "--log-level", "debug"),
                        env={"DBUS_SYSTEM_BUS_ADDRESS": address})
        client = Client(daemon.socket, name="watcher")

        def screen():
            started = time.monotonic()
            reply = client.request({"type": "status"}, timeout=10)
            return reply.get("screen") or {}, time.monotonic() - started

        deadline = time.monotonic() + 20
        while screen()[0].get("rotation") != 90 and time.monotonic() < deadline:
            time.sleep(0.1)
        expect(screen()[0].get("rotation") == 90, f"the daemon did not follow the sensor: {screen()[0]}")
        before_claims = claims()
        idle = [screen()[1] for _ in range(20)]

        forger = subprocess.Popen(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
             python, os.path.join(fixtures, "forge-signals.py"), address, str(daemon.pid), "bottom-up", str(FORGED_ROUNDS)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        children.append(forger)
        under_attack = []
        while forger.poll() is None and len(under_attack) < 500:
            under_attack.append(screen()[1])
        out, err = forger.communicate(timeout=30)
        expect(forger.returncode == 0 and b"sent" in out, f"the forger failed: {out!r} {err[-300:]!r}")
        deadline = time.monotonic() + 15
        while b"not the bus: ignored" not in daemon.log_text() and time.monotonic() < deadline:
            under_attack.append(screen()[1])
        expect(b"not the bus: ignored" in daemon.log_text(), "the daemon never read the forged NameOwnerChanged")
        now, _ = screen()
        expect(now.get("rotation") == 90 and now.get("rotationSource") == "sensor" and now.get("sensor") == "left-up",
               f"forged signals changed the screen: {now}")
        after_claims = claims()
        expect(after_claims == before_claims, f"the daemon claimed the sensor again ({before_claims} -> {after_claims})")
        expect(b"iio-sensor-proxy: absent" not in daemon.log_text(), "a forged NameOwnerChanged made the daemon forget the proxy")
        expect(daemon.alive(), "the daemon died")
        client.close()
        return {"forged signals": 2 * FORGED_ROUNDS, "rotation": f"{now.get('rotation')} (sensor, as before)",
                "claims": f"{before_claims} -> {after_claims}",
                "status ms p50 / max without load": f"{percentile(idle, 50) * 1000:.2f} / {max(idle) * 1000:.2f}",
                **timings("status ms", idle, under_attack)}
    finally:
        stop_all(daemon, children)


SESSION_BUS_CONF = BUS_CONF_HEAD.format(type="session") + """  <!-- Harsher than a real session bus, which only its user may reach: any uid may
       connect, so that the forger can also be another user. -->
  <policy context="default">
    <allow user="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
FORGED_SESSION_ROUNDS = 500         # rounds per forger: two forged signals and one forged call each


def check_forged_session_signals(binary, workdir):
    """Issue 28: a program of the session (and another user) posing as KWin to `bridge kde`.

    `popgesturectl bridge kde` runs as the daemon's shell, on a private session bus, beside
    a stand-in KWin (Tests/Fixtures/dbus/fake-kwin.py) that owns org.kde.KWin. Two
    forgers, one as the session's user and one as nobody, each send the bridge 500
    rounds of: a forged NameOwnerChanged ("KWin is now me"), a FocusedWindow call of
    org.example.evil, a forged NameOwnerChanged ("KWin left"). The daemon's focus must
    never be the forger's app, the bridge must not end, and the real KWin's next focus
    must arrive; its time from KWin's call to the daemon's status is timed beside the
    same without forgers. KWin's own leave then ends the bridge with 0.
    """
    python = "/usr/bin/python3"  # Debian's, which python3-gi serves
    fixtures = os.path.join(REPO, "Tests", "Fixtures", "dbus")
    ctl = os.path.join(os.path.dirname(binary), "popgesturectl")
    script = os.path.join(REPO, "desktop", "kwin", "popgestured", "contents", "code", "main.js")
    expect(os.access(ctl, os.X_OK), f"{ctl} is not built (swift build)")
    expect(os.geteuid() == 0, "the suite must run as root: one forger runs as another user, nobody")
    children = []
    daemon = None
    try:
        folder, address = private_bus(workdir, "forged-session-signals-bus", SESSION_BUS_CONF, children)
        session_env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, XDG_RUNTIME_DIR=folder)
        session_env.pop("WAYLAND_DISPLAY", None)
        kwin = subprocess.Popen([python, os.path.join(fixtures, "fake-kwin.py")], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=session_env, text=True, bufsize=1)
        children.append(kwin)
        expect(kwin.stdout.readline().strip() == "ready", "the stand-in KWin did not start")
        daemon = Daemon(binary, workdir, "forged-session-signals")
        bridge_log = open(os.path.join(folder, "bridge.log"), "wb")
        bridge = subprocess.Popen([ctl, "bridge", "kde", "--verbose", "--script", script, "--socket", daemon.socket],
                                  stdin=subprocess.DEVNULL, stdout=bridge_log, stderr=bridge_log, env=session_env)
        children.append(bridge)

        def bridge_text():
            with open(os.path.join(folder, "bridge.log"), "rb") as f:
                return f.read().decode(errors="replace")

        def bridge_owner():
            done = subprocess.run(["gdbus", "call", "--address", address, "--dest", "org.freedesktop.DBus",
                                   "--object-path", "/org/freedesktop/DBus", "--method",
                                   "org.freedesktop.DBus.GetNameOwner", "org.popgestured.Bridge"],
                                  capture_output=True, text=True, timeout=10)
            match = re.search(r"'(:[0-9.]+)'", done.stdout)
            return match.group(1) if match else None

        deadline = time.monotonic() + 20
        while bridge_owner() is None and bridge.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        target = bridge_owner()
        expect(target, f"the bridge never owned org.popgestured.Bridge:\n{bridge_text()[-1500:]}")
        client = Client(daemon.socket, name="watcher")
        focus_number = [0]

        def focus():
            return client.request({"type": "status"}, timeout=10).get("focus") or {}

        def kwin_focus():
            """KWin's next focus change; seconds until the daemon's status shows it."""
            focus_number[0] += 1
            app = f"org.example.real{focus_number[0]}"
            started = time.monotonic()
            kwin.stdin.write(f"focus {app} {kwin.pid}\n")
            answer = kwin.stdout.readline().strip()
            expect(answer == "ok", f"the bridge refused KWin's own FocusedWindow: {answer}\n{bridge_text()[-1500:]}")
            deadline = started + 10
            while time.monotonic() < deadline:
                now = focus()
                expect(now.get("app") != "org.example.evil", f"the forger's app has the focus: {now}")
                if now.get("source") == "shell" and now.get("app") == app:
                    return time.monotonic() - started
                time.sleep(0.002)
            raise Failure(f"KWin's focus on {app} never reached the daemon: {focus()}\n{bridge_text()[-1500:]}")

        idle = [kwin_focus() for _ in range(20)]
        forgers = []
        for user in (None, "nobody"):
            command = [python, os.path.join(fixtures, "forge-name-owner-changed.py"), address, target, "org.kde.KWin",
                       str(FORGED_SESSION_ROUNDS), "org.example.evil"]
            if user:
                command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *command]
            forger = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=session_env)
            children.append(forger)
            forgers.append(forger)
        under_attack = []
        while any(f.poll() is None for f in forgers) and len(under_attack) < 300:
            under_attack.append(kwin_focus())
        answered = 0
        for forger in forgers:
            out, err = forger.communicate(timeout=60)
            expect(forger.returncode == 0 and b"sent" in out, f"a forger failed: {out!r} {err[-300:]!r}")
            answered += int(re.search(rb"answered (\d+)", out).group(1))
        expect(answered == 0, f"the bridge answered {answered} forged FocusedWindow calls with success")
        expect(bridge.poll() is None, f"a forged NameOwnerChanged ended the bridge:\n{bridge_text()[-1500:]}")
        under_attack.append(kwin_focus())
        log = bridge_text()
        expect("ignored a NameOwnerChanged" in log, f"the bridge never logged the forged NameOwnerChanged:\n{log[-1500:]}")
        refused = log.count("refused FocusedWindow")
        expect(refused > 0, f"the bridge never logged a refused FocusedWindow:\n{log[-1500:]}")
        expect(daemon.alive(), "the daemon died")

        kwin.stdin.close()  # KWin leaves the bus: the bridge ends, with 0
        try:
            bridge.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise Failure(f"the bridge went on after KWin left:\n{bridge_text()[-1500:]}") from None
        expect(bridge.returncode == 0 and "KWin left the session bus; done" in bridge_text(),
               f"the bridge ended with {bridge.returncode} at KWin's leave:\n{bridge_text()[-1500:]}")
        client.close()
        return {"forged signals": 4 * FORGED_SESSION_ROUNDS, "forged calls": 2 * FORGED_SESSION_ROUNDS,
                "answered": answered, "refusals logged (one per sender)": refused, "focus changes timed while forged": len(under_attack),
                **timings("KWin focus -> status ms", idle, under_attack)}
    finally:
        stop_all(daemon, children)


def check_configuration_files(binary, workdir):
    """--config /dev/zero and a FIFO: a clear refusal within seconds, not a hang or a memory blow-up."""
    fifo = os.path.join(workdir, "config.fifo")
    os.mkfifo(fifo)
    results = {}
    for name, path in (("/dev/zero", "/dev/zero"), ("a FIFO", fifo), ("a folder", workdir)):
        start = time.monotonic()
        try:
            done = subprocess.run([binary, "run", "--config", path, "--socket", os.path.join(workdir, "c.sock")],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=15)
        except subprocess.TimeoutExpired:
            raise Failure(f"--config {name}: still running after 15 s")
        expect(done.returncode != 0, f"--config {name} started the daemon")
        message = (done.stdout + done.stderr).decode(errors="replace")
        expect("regular file" in message, f"--config {name}: the error does not say why: {message[-300:]}")
        results[name] = f"{time.monotonic() - start:.2f} s"
    return results


# ---------------------------------------------------------------- touch latency under client load (issue 18)
#
# The touchscreen must come first: whatever clients send, a swipe's `back` reaches its
# owner about as fast as on an idle daemon. Each run gets a daemon of its own with
# `--event-pipe FIFO` (a touchscreen fed with raw input_event records, as
# Benchmarks/fanout/fanout.c feeds it) and three processes beside it:
#
# - the timing process (TouchTimer) owns navigator `main` (home, detail), writes a
#   swipe into the FIFO, times finger-up -> `back`, pushes `detail` again, and so on;
#   a few seconds in, a fresh real client connects, says hello, creates a navigator
#   and must get the next swipe's `back`;
# - the load process (Load): every attack client, multiplexed with selectors in one
#   process, so that the load takes at most one core of the daemon's machine. Run as
#   root, it runs as nobody, another local user (the daemon's user and root may be
#   exempt from a per-user share of the client slots);
# - this process watches the watchdog and the daemon's memory.
#
# A run without load comes first, in the same invocation; its p99 is the reference.

LATENCY_WATCHDOG_USEC = 1_000_000   # WatchdogSec=1 s: a ping every 0.5 s, so a gap over 1 s is a stall systemd would kill
LATENCY_WATCHDOG_GAP_BOUND = 1.0    # s: issue 18
LATENCY_RSS_CEILING_MIB = 64        # MiB: issue 18, peak RSS under any of these attacks
REAL_CLIENT_BOUND = 1.0             # s: a real client is ready (connect, hello, create) and gets its back within this
STRICT_LATENCY_SLACK_MS = 5.0       # --strict-latency (a release build): p99 within 5 ms of the no-load p99 (issue 18)
DEBUG_LATENCY_SLACK_MS = 250.0      # the default, for the debug build on CI's shared 2-core machine: a line
                                    # costs it 10-50 times a release build's, so a round's budget does too
                                    # (the one-loop daemon before issue 18: over 1 s in release already)
LATENCY_SWIPES = 20                 # measured swipes per run
LOAD_WARMUP = 1.0                   # s: the load runs this long before the first swipe
REAL_CLIENT_AFTER = 3.0             # s after the first swipe: the real client comes
SWIPE_PAUSE = 0.1                   # s between a back (and its push) and the next finger down
BACK_TIMEOUT = 5.0                  # s: a swipe whose back takes longer ends the run (lost)
SWIPING_TIME = 15.0                 # s: no swipe starts later than this after the first
RSS_ABORT_MIB = 1024                # MiB: past this the run stops at once (the machine's safety, far past any bound)
RECONNECT_DELAY = 0.1               # s: an attack client the daemon served and closed connects again after this
REFUSED_RETRY = 1.0                 # s: one turned away (too-many-clients, or closed within a second unserved) after this
SLOW_HELLO_BYTE_INTERVAL = 3.0      # s between two bytes of a hello that never ends
HOARD_MAXIMUM = 1000                # connections a hoarder holds at most
ATTACKER_UID = 65534                # nobody / nogroup: the attack clients' user when the suite runs as root

# The event pipe's touchscreen, EventPipe.description (docs/CONFIGURATION.md, "--event-pipe").
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT, BTN_TOUCH = 0, 0x14A
ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x00, 0x01, 0x2F, 0x35, 0x36, 0x39
INPUT_EVENT = struct.Struct("=qqHHi")  # struct input_event on x86-64: tv_sec, tv_usec, type, code, value; 24 bytes
PIPE_X_SPAN, PIPE_Y_SPAN = 4339, 2719  # 0...4339 x 0...2719
PIPE_UNITS_PER_MM = 20
FRAME_S = 0.010                        # a 100 Hz touchscreen

HELLO_LINE = b'{"type":"hello","version":1,"name":"attacker"}\n'


def sleep_until(due):
    left = due - time.monotonic()
    if left > 0:
        time.sleep(left)


class PipeFinger:
    """One finger on the event pipe's touchscreen.

    The swipe is Benchmarks/fanout/fanout.c's: down at 2 % of the width half-way down,
    60 mm to the right in 15 frames of 10 ms, up 10 ms later; a fling, so a back. Each
    frame carries the time it was due (CLOCK_MONOTONIC), so a writer preempted for a
    moment still makes the same gesture.
    """

    def __init__(self, fifo):
        self.fd = os.open(fifo, os.O_WRONLY)  # the daemon holds it open read-write: no wait
        self.tracking_id = 100

    def close(self):
        os.close(self.fd)

    def _frame(self, stamp, *events):
        seconds = int(stamp)
        microseconds = int((stamp - seconds) * 1_000_000)
        records = b"".join(INPUT_EVENT.pack(seconds, microseconds, kind, code, value)
                           for kind, code, value in (*events, (EV_SYN, SYN_REPORT, 0)))
        written = time.monotonic()
        os.write(self.fd, records)
        return written

    @staticmethod
    def _at(x_units, y_units):
        x, y = int(x_units + 0.5), int(y_units + 0.5)
        return (EV_ABS, ABS_MT_POSITION_X, x), (EV_ABS, ABS_MT_POSITION_Y, y), (EV_ABS, ABS_X, x), (EV_ABS, ABS_Y, y)

    def swipe(self):
        """The whole swipe, at its pace; returns when the lifting frame was written (finger-up)."""
        steps, x, y = 15, 0.02 * PIPE_X_SPAN, 0.5 * PIPE_Y_SPAN
        step = 60 * PIPE_UNITS_PER_MM / steps
        self.tracking_id += 1
        start = time.monotonic()
        self._frame(start, (EV_ABS, ABS_MT_SLOT, 0), (EV_ABS, ABS_MT_TRACKING_ID, self.tracking_id),
                    *self._at(x, y), (EV_KEY, BTN_TOUCH, 1))
        for i in range(1, steps + 1):
            due = start + i * FRAME_S
            sleep_until(due)
            self._frame(due, (EV_ABS, ABS_MT_SLOT, 0), *self._at(x + i * step, y))
        due = start + (steps + 1) * FRAME_S
        sleep_until(due)
        return self._frame(due, (EV_ABS, ABS_MT_SLOT, 0), (EV_ABS, ABS_MT_TRACKING_ID, -1), (EV_KEY, BTN_TOUCH, 0))


class TouchTimer(ChildProcess):
    """The timing process: swipes, each back timed from finger-up; a real client midway."""

    name = "the timing client"

    def __init__(self, socket_path, fifo, swipes):
        self.path, self.fifo, self.swipes = socket_path, fifo, swipes
        self.go = multiprocessing.Event()
        self.start()

    def _run(self, out, ready):
        result = {"latencies": [], "cancelled": 0, "lost": 0, "real": None, "error": None}
        try:
            finger = PipeFinger(self.fifo)
            owner = Client(self.path, name="touch-owner")
            reply = owner.request({"type": "create", "navigator": "main", "pages": [{"id": "home"}, {"id": "detail"}]})
            expect(reply.get("type") == "ok", f"create answered {reply}")
        except Exception as failure:  # noqa: BLE001 - reported to the parent
            out.send(f"could not set up its navigator: {failure!r}")
            return
        ready.set()
        while not self.go.wait(0.1):
            if self.halt.is_set():
                out.send(result)
                return
        first = time.monotonic()
        try:
            while len(result["latencies"]) + result["cancelled"] < self.swipes and not self.halt.is_set():
                if time.monotonic() > first + SWIPING_TIME:
                    raise Failure(f"only {len(result['latencies'])} swipes in {SWIPING_TIME:.0f} s")
                if result["real"] is None and time.monotonic() >= first + REAL_CLIENT_AFTER:
                    result["real"] = self._real_client(finger)
                    self._bring_back(owner)
                up = finger.swipe()
                end, at = self._end_of_swipe(owner, up, BACK_TIMEOUT)
                if end is None:
                    result["lost"] += 1
                    raise Failure(f"swipe {len(result['latencies']) + 1}: no back within {BACK_TIMEOUT:.0f} s of finger-up")
                if end == "pop-cancelled":
                    result["cancelled"] += 1
                    continue
                result["latencies"].append(at - up)
                reply = owner.request({"type": "push", "navigator": "main", "page": {"id": "detail"}}, timeout=10)
                expect(reply.get("type") == "ok", f"push answered {reply}")
                self.halt.wait(SWIPE_PAUSE)
        except Exception as failure:  # noqa: BLE001 - the finding, reported with the figures so far
            result["error"] = str(failure) if isinstance(failure, Failure) else repr(failure)
        if result["real"] is None and not self.halt.is_set():
            # The swipes ended early (the daemon is stalled): the attack has run long enough.
            sleep_until(first + REAL_CLIENT_AFTER)
            result["real"] = self._real_client(finger)
        owner.close()
        finger.close()
        out.send(result)

    def _end_of_swipe(self, client, up, timeout):
        """(`back` or `pop-cancelled`, when it was read), or (None, None) after `timeout` from `up`."""
        deadline = up + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self.halt.is_set():
                return None, None
            try:
                line = client.read_line(timeout=min(left, 0.2))
            except Failure:
                continue
            if line.get("type") in ("back", "pop-cancelled"):
                return line["type"], time.monotonic()

    def _real_client(self, finger):
        """A fresh client: connect, hello and create within 1 s, then the next swipe's back within 1 s."""
        start = time.monotonic()
        real, ready_s = None, None
        try:
            real = Client(self.path, hello=False, timeout=REAL_CLIENT_BOUND)
            for request in ({"type": "hello", "version": 1, "name": "real-client"},
                            {"type": "create", "navigator": "real", "pages": [{"id": "home"}, {"id": "detail"}]}):
                left = start + REAL_CLIENT_BOUND - time.monotonic()
                reply = real.request(request, timeout=max(left, 0.001))
                if reply.get("type") == "error":
                    return {"ok": False, "text": f"{request['type']} answered {reply.get('code')}"}
            ready_s = time.monotonic() - start
            if ready_s > REAL_CLIENT_BOUND:
                return {"ok": False, "text": f"in after {ready_s * 1000:.0f} ms"}
            up = finger.swipe()
            end, at = self._end_of_swipe(real, up, REAL_CLIENT_BOUND)
            if end != "back":
                return {"ok": False, "text": f"in after {ready_s * 1000:.0f} ms, "
                                             f"{end or 'no back'} within {REAL_CLIENT_BOUND:g} s"}
            return {"ok": True, "text": f"in after {ready_s * 1000:.1f} ms, back {(at - up) * 1000:.1f} ms"}
        except (OSError, EOFError, ValueError, Failure) as failure:
            stage = "not in" if ready_s is None else f"in after {ready_s * 1000:.0f} ms, then"
            # Closed at once (too-many-clients before the hello was written): what it said first.
            said = ""
            try:
                said = f", after {real.reply(timeout=0.2).get('code')}" if real is not None else ""
            except (OSError, EOFError, ValueError, Failure):
                pass
            return {"ok": False, "text": f"{stage}: {failure}{said}"}
        finally:
            if real is not None:
                real.close()

    @staticmethod
    def _bring_back(owner):
        """`main` in front again, whatever the daemon made of the real client."""
        reply = owner.request({"type": "front", "navigator": "main"}, timeout=BACK_TIMEOUT)
        expect(reply.get("type") == "ok", f"front answered {reply}")


def connected_here(path):
    """A non-blocking connection of this process's."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(path)
    except OSError:
        s.close()
        raise
    return s


def connected_in_child(path):
    """A non-blocking connection made by a short-lived child, handed back over SCM_RIGHTS:
    the daemon sees the child's pid, which is gone by the time the socket is used."""
    parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    pid = os.fork()
    if pid == 0:
        try:
            s = connected_here(path)
            socket.send_fds(child_end, [b"1"], [s.fileno()])
        except OSError:
            child_end.send(b"0")
        finally:
            os._exit(0)
    child_end.close()
    try:
        _, fds, _, _ = socket.recv_fds(parent_end, 16, 1)
    finally:
        parent_end.close()
        os.waitpid(pid, 0)
    if not fds:
        raise OSError("the child could not connect")
    s = socket.socket(fileno=fds[0])
    s.setblocking(False)
    return s


class Load(ChildProcess):
    """Every attack client in this one process, multiplexed with selectors.

    kinds:
    - "pipeline": `count` clients, each says hello, then writes `line` as fast as the
      socket takes it and reads every reply (`reads`), or never reads;
    - "slow-hello": `count` clients writing a hello line one byte every 3 s; with
      `handoff`, each connected by a child of its own that hands the socket back
      (SCM_RIGHTS) and exits, a new peer pid each;
    - "idle": `count` clients that say hello and then nothing;
    - "hoard": as many idle clients as the daemon takes; one turned away tries again a
      second later.
    A client the daemon closes connects again, so the pressure stays: after RECONNECT_DELAY,
    or REFUSED_RETRY when it was turned away (a hoarder then pauses its growth as long).
    """

    name = "the attack clients"

    def __init__(self, socket_path, kind, count=0, line=b"", reads=True, handoff=False):
        self.path, self.kind, self.count, self.line, self.reads = socket_path, kind, count, line, reads
        self.handoff = handoff
        self.uid = ATTACKER_UID if os.geteuid() == 0 else None
        self.start()

    def _run(self, out, ready):
        try:
            if self.uid is not None:
                os.setgroups([])
                os.setgid(self.uid)
                os.setuid(self.uid)
            stats = self._attack(ready)
        except Exception as failure:  # noqa: BLE001 - reported to the parent
            out.send(f"{failure!r}")
            return
        out.send(stats)

    def _attack(self, ready):
        selector = selectors.DefaultSelector()
        chunk = self.line * max(1, 16384 // max(1, len(self.line)))
        stats = {"connections": 0, "turned away": 0, "closed by the daemon": 0, "lines sent": 0,
                 "lines read": 0, "most served at once": 0}
        # socket -> what is left to write, the first bytes read, whether its hello was answered,
        # when it connected, and for a slow hello the bytes sent and when the next one is due.
        connections = {}
        reopen = []           # times at which to open one more connection
        hoard_paused_until = 0.0
        slow_hello = b'{"type":"hello","version":1,"name":"' + b"s" * 4096
        started = time.monotonic()

        def served():
            return sum(1 for c in connections.values() if c["greeted"])

        def open_one(now):
            try:
                s = connected_in_child(self.path) if self.handoff else connected_here(self.path)
            except OSError:  # the listen backlog is full: the daemon is not accepting
                reopen.append(now + RECONNECT_DELAY)
                return
            stats["connections"] += 1
            c = {"pending": memoryview(b""), "head": b"", "greeted": False, "byte_at": 0.0, "sent": 0, "at": now}
            events = selectors.EVENT_READ
            if self.kind == "pipeline":
                c["pending"] = memoryview(HELLO_LINE + chunk)
                events = selectors.EVENT_WRITE | (selectors.EVENT_READ if self.reads else 0)
            elif self.kind == "slow-hello":
                c["byte_at"] = now
            else:
                c["pending"] = memoryview(HELLO_LINE)
                events |= selectors.EVENT_WRITE
            connections[s] = c
            selector.register(s, events)

        def closed(s, now):
            c = connections.pop(s)
            selector.unregister(s)
            try:  # a write may fail before the daemon's last words were read
                c["head"] += s.recv(512)
            except OSError:
                pass
            s.close()
            # Turned away: told so, or (a client that never reads cannot be told) closed at once.
            refused = b"too-many-clients" in c["head"] or (not c["greeted"] and now - c["at"] < REFUSED_RETRY)
            stats["turned away" if b"too-many-clients" in c["head"] else "closed by the daemon"] += 1
            if self.kind != "hoard":
                reopen.append(now + (REFUSED_RETRY if refused else RECONNECT_DELAY))
            elif refused:
                nonlocal hoard_paused_until
                hoard_paused_until = now + REFUSED_RETRY

        def readable(s, c, now):
            while True:
                try:
                    data = s.recv(1 << 20)
                except BlockingIOError:
                    return
                except OSError:
                    data = b""
                if not data:
                    closed(s, now)
                    return
                stats["lines read"] += data.count(b"\n")
                if len(c["head"]) < 512:
                    c["head"] += data[:512]
                if not c["greeted"] and b'{"type":"hello"' in c["head"]:
                    c["greeted"] = True

        def writable(s, c, now):
            try:
                sent = s.send(c["pending"])
            except BlockingIOError:
                return
            except OSError:
                closed(s, now)
                return
            c["pending"] = c["pending"][sent:]
            if len(c["pending"]) == 0:
                if self.kind == "pipeline":
                    stats["lines sent"] += len(chunk) // max(1, len(self.line))
                    c["pending"] = memoryview(chunk)
                else:
                    selector.modify(s, selectors.EVENT_READ)  # hello is out: greeted once its reply is read

        for _ in range(self.count):
            open_one(time.monotonic())
        is_ready = False
        while not self.halt.is_set():
            now = time.monotonic()
            due = [t for t in reopen if t <= now]
            reopen[:] = [t for t in reopen if t > now]
            for _ in due:
                open_one(now)
            if self.kind == "hoard" and now >= hoard_paused_until and len(connections) < HOARD_MAXIMUM:
                # One more attempt while the last ones are still unanswered, up to 8 at once.
                if sum(1 for c in connections.values() if not c["greeted"]) < 8:
                    open_one(now)
            if self.kind == "slow-hello":
                for s, c in list(connections.items()):
                    if c["byte_at"] <= now and c["sent"] < len(slow_hello):
                        try:
                            s.send(slow_hello[c["sent"]:c["sent"] + 1])
                            c["sent"] += 1
                        except BlockingIOError:
                            pass
                        except OSError:
                            closed(s, now)
                            continue
                        c["byte_at"] = now + SLOW_HELLO_BYTE_INTERVAL
            stats["most served at once"] = max(stats["most served at once"], served())
            # Ready once the clients are in: every one answered, or a hoarder turned away.
            settled = stats["connections"] >= self.count and served() == len(connections)
            if not is_ready and (self.kind in ("pipeline", "slow-hello") or now - started > 5
                                 or (self.kind == "idle" and settled) or (self.kind == "hoard" and hoard_paused_until > now)):
                ready.set()
                is_ready = True
            timers = [t for t in reopen] + [c["byte_at"] for c in connections.values() if self.kind == "slow-hello"]
            timeout = min([0.05] + [max(0.0, t - now) for t in timers])
            for key, mask in selector.select(timeout):
                s = key.fileobj
                c = connections.get(s)
                if c is not None and mask & selectors.EVENT_READ:
                    readable(s, c, now)
                c = connections.get(s)
                if c is not None and mask & selectors.EVENT_WRITE:
                    writable(s, c, now)
        stats["served at the end"] = served()
        for s in list(connections):
            s.close()
        return stats


class LatencyFailure(Failure):
    """A run of the latency family that broke a criterion, with its figures."""

    def __init__(self, message, figures):
        super().__init__(message)
        self.figures = figures


STATUS_LINE = b'{"type":"status"}\n'
EMPTY_LINE = b"{}\n"
LATENCY_BASELINE = "latency-no-load"
LATENCY_ATTACKS = [
    (LATENCY_BASELINE, None),
    *((f"latency-{n}-status-pipelining", {"kind": "pipeline", "count": n, "line": STATUS_LINE}) for n in (1, 10, 100, 128)),
    *((f"latency-{n}-error-pipelining", {"kind": "pipeline", "count": n, "line": EMPTY_LINE}) for n in (1, 10, 100, 128)),
    *((f"latency-{n}-status-pipelining-never-reading", {"kind": "pipeline", "count": n, "line": STATUS_LINE, "reads": False})
      for n in (10, 100)),
    ("latency-128-slow-hellos", {"kind": "slow-hello", "count": 128}),
    # Issue 28: one user's slow hellos, each connected by a short-lived child (a new pid).
    ("latency-128-slow-hellos-handed-over", {"kind": "slow-hello", "count": 128, "handoff": True}),
    ("latency-128-idle-clients", {"kind": "idle", "count": 128}),
    ("latency-every-slot", {"kind": "hoard"}),
]


def milliseconds(seconds):
    """A latency in ms, rounded; a lost swipe's as "> 5000"."""
    return f"> {BACK_TIMEOUT * 1000:.0f}" if seconds == float("inf") else round(seconds * 1000, 2)


def load_summary(stats):
    if stats is None:
        return "none"
    if isinstance(stats, str):
        return f"failed: {stats}"
    shown = {k: v for k, v in stats.items() if v or k == "most served at once"}
    return ", ".join(f"{k} {v:,}" for k, v in shown.items())


def run_latency(binary, workdir, name, load_spec, settings):
    """One run of the family: swipes timed under `load_spec`'s clients (none for the baseline)."""
    fifo = os.path.join(workdir, name + ".events")
    os.mkfifo(fifo)
    daemon = Daemon(binary, workdir, name, watchdog_usec=LATENCY_WATCHDOG_USEC,
                    extra_args=("--event-pipe", fifo, "--clients", "any", "--back-input", "none"))
    timer = load = None
    try:
        timer = TouchTimer(daemon.socket, fifo, settings["swipes"])
        watch_start = time.monotonic()
        load = Load(daemon.socket, **load_spec) if load_spec else None
        time.sleep(LOAD_WARMUP)
        timer.go.set()
        # Until the swipes are done, unless the daemon dies or eats the machine's memory first.
        stopped, give_up = None, time.monotonic() + SWIPING_TIME + BACK_TIMEOUT + 15
        while not timer.results.poll(0.1):
            if not daemon.alive():
                stopped = f"the daemon died (exit status {daemon.process.poll()})"
            elif daemon.rss_mib() > RSS_ABORT_MIB:
                stopped = f"stopped: the daemon's RSS passed {RSS_ABORT_MIB} MiB"
            elif time.monotonic() > give_up:
                stopped = "stopped: the timing client did not finish"
            if stopped:
                break
        touch = timer.finish() or {"latencies": [], "cancelled": 0, "lost": 0, "real": None,
                                   "error": "the timing client sent no result"}
        if isinstance(touch, str):
            touch = {"latencies": [], "cancelled": 0, "lost": 0, "real": None, "error": touch}
        alive = daemon.alive()
        peak = daemon.peak_rss_mib() if alive else float("nan")
        gap = daemon.watchdog_gap(since=watch_start)
        stats = load.finish() if load else None
        load = None
        longest = daemon.longest_log_line()
    finally:
        for child in (timer, load):
            if child is not None and child.process.is_alive():
                child.finish(timeout=2)
        daemon.stop()

    samples = touch["latencies"] + [float("inf")] * touch["lost"]
    p99 = percentile(samples, 99)
    real = touch["real"] or {"ok": False, "text": "not tried (the run was stopped)"}
    figures = {
        "swipes": f"{len(touch['latencies'])} of {settings['swipes']}",
        "p50 ms": milliseconds(percentile(samples, 50)),
        "p99 ms": milliseconds(p99),
        "max ms": milliseconds(max(samples, default=float("nan"))),
        "watchdog max gap s": round(gap, 2),
        "peak RSS MiB": round(peak, 1),
        "real client": real["text"],
        "load": load_summary(stats),
    }
    problems = [stopped] if stopped else []
    if not alive and not stopped:
        problems.append(f"the daemon died (exit status {daemon.process.poll()})")
    if touch["error"]:
        problems.append(touch["error"])
    if touch["cancelled"]:
        problems.append(f"{touch['cancelled']} swipes were cancelled, not a back")
    if name == LATENCY_BASELINE:
        settings["baseline p99"] = p99 if samples else None
    elif settings.get("baseline p99") is None:
        problems.append("no p99 of the run without load to compare with")
    else:
        bound = settings["baseline p99"] + settings["slack ms"] / 1000
        figures["p99 bound ms"] = round(bound * 1000, 2)
        judged = settings["judged percentile"]
        value = percentile(samples, judged)
        if not value <= bound:
            problems.append(f"finger-up -> back p{judged} {milliseconds(value)} ms, over the no-load p99 "
                            f"{settings['baseline p99'] * 1000:.2f} ms + {settings['slack ms']:g} ms")
    if gap > LATENCY_WATCHDOG_GAP_BOUND:
        problems.append(f"the watchdog was not fed for {gap:.2f} s (bound {LATENCY_WATCHDOG_GAP_BOUND:g} s)")
    if not peak < LATENCY_RSS_CEILING_MIB:
        problems.append(f"peak RSS {peak:.1f} MiB, not under {LATENCY_RSS_CEILING_MIB} MiB")
    if not real["ok"]:
        problems.append(f"the real client: {real['text']}")
    if longest > LOG_LINE_BOUND:
        problems.append(f"a log line of {longest} bytes")
    if problems:
        raise LatencyFailure("; ".join(problems), figures)
    return figures


def latency_table(rows):
    """The family's Markdown table: one row a run, passed or not."""
    lines = ["| attack | swipes | finger-up → back p50 / p99 / max ms | p99 bound ms | watchdog max gap s "
             "| peak RSS MiB | real client | load | result |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, figures, verdict in rows:
        f = figures
        lines.append(f"| {name} | {f['swipes']} | {f['p50 ms']} / {f['p99 ms']} / {f['max ms']} | {f.get('p99 bound ms', '—')} "
                     f"| {f['watchdog max gap s']} | {f['peak RSS MiB']} | {f['real client']} | {f['load']} | {verdict} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- runner

def run_attack(binary, workdir, name, attack, options):
    daemon = Daemon(binary, workdir, name, **options)
    prober = None
    try:
        prober = Prober(daemon.socket)
        time.sleep(0.3)
        watch_start = time.monotonic()
        figures = attack(daemon, workdir) or {}
        time.sleep(0.5)
        prober.finish()
        expect(daemon.alive(), f"the daemon died (exit status {daemon.process.poll()})")
        expect(prober.error is None, prober.error or "")
        expect(prober.round_trips, "the well-behaved client got no reply at all")
        worst = max(prober.round_trips)
        if os.environ.get("HOSTILE_TRACE"):
            for rt, at in sorted(zip(prober.round_trips, prober.started), reverse=True)[:8]:
                print(f"  slow round trip {rt * 1000:.0f} ms at +{at - watch_start:.2f} s")
        expect(worst < ROUND_TRIP_BOUND, f"a status round trip took {worst * 1000:.0f} ms (bound {ROUND_TRIP_BOUND * 1000:.0f} ms)")
        gap = daemon.watchdog_gap(since=watch_start)
        expect(gap < WATCHDOG_GAP_BOUND, f"the watchdog was not fed for {gap:.2f} s (bound {WATCHDOG_GAP_BOUND} s)")
        peak = daemon.peak_rss_mib()
        expect(peak < RSS_CEILING_MIB, f"peak RSS {peak:.1f} MiB, over the {RSS_CEILING_MIB} MiB ceiling")
        longest = daemon.longest_log_line()
        expect(longest <= LOG_LINE_BOUND, f"a log line of {longest} bytes")
        figures.update({
            "round trips": len(prober.round_trips),
            "p50 ms": round(percentile(prober.round_trips, 50) * 1000, 2),
            "max ms": round(worst * 1000, 2),
            "watchdog max gap s": round(gap, 2),
            "peak RSS MiB": round(peak, 1),
        })
        return figures
    finally:
        if prober is not None and prober.process.is_alive():
            prober.finish()
        daemon.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=os.path.join(REPO, ".build", "debug", "popgestured"))
    parser.add_argument("--only", default="", help="run the checks whose name matches this regular expression "
                        "(latency: the touch-latency family, whose run without load always comes first)")
    parser.add_argument("--report", help="write the figures as Markdown tables to this file")
    parser.add_argument("--strict-latency", action="store_true",
                        help=f"finger-up -> back p99 within {STRICT_LATENCY_SLACK_MS:g} ms of the no-load run's "
                             "(issue 18's criterion, for a release build on an otherwise idle machine: below 100 "
                             "swipes a run's p99 is its slowest swipe, so one preemption by other work fails it)")
    parser.add_argument("--latency-slack-ms", type=float, default=DEBUG_LATENCY_SLACK_MS,
                        help="without --strict-latency: how far the p99 under load may pass the no-load p99 "
                             f"(default {DEBUG_LATENCY_SLACK_MS:g} ms, for a debug build on a shared 2-core machine)")
    parser.add_argument("--swipes", type=int, default=LATENCY_SWIPES, help="measured swipes per latency run")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        print(f"hostile: {args.binary} is not built (swift build)", file=sys.stderr)
        return 1
    if shutil.which("prlimit") is None:
        print("hostile: prlimit (util-linux) is missing", file=sys.stderr)
        return 1

    workdir = tempfile.mkdtemp(prefix="popgestured-hostile.")
    # The latency family's attack clients run as nobody when the suite runs as root.
    os.chmod(workdir, 0o711)
    # --strict-latency judges the p99 (issue 18's bound); the default, for the debug build on
    # a shared CI machine, the p95, so that one swipe the machine's scheduler delayed (seen:
    # 258 ms once, beside QEMU guests, with p95 under 60 ms) is not taken for the daemon's.
    latency = {"swipes": args.swipes, "slack ms": STRICT_LATENCY_SLACK_MS if args.strict_latency else args.latency_slack_ms,
               "judged percentile": 99 if args.strict_latency else 95}
    passed, failed, rows, latency_rows = 0, 0, [], []
    checks = [(name, lambda a=attack, n=name, o=options: run_attack(args.binary, workdir, n, a, o))
              for name, attack, options in ATTACKS]
    checks.append(("configuration-files", lambda: check_configuration_files(args.binary, workdir)))
    checks.append(("forged-sensor-signals", lambda: check_forged_sensor_signals(args.binary, workdir)))
    checks.append(("forged-session-signals", lambda: check_forged_session_signals(args.binary, workdir)))
    checks += [(name, lambda n=name, l=load: run_latency(args.binary, workdir, n, l, latency))
               for name, load in LATENCY_ATTACKS]
    selected = [(name, check) for name, check in checks if not args.only or re.search(args.only, name)]
    # Every latency run is compared with the run without load, in the same invocation.
    if any(name.startswith("latency-") for name, _ in selected) and LATENCY_BASELINE not in dict(selected):
        first = next(i for i, (name, _) in enumerate(selected) if name.startswith("latency-"))
        selected.insert(first, next((n, c) for n, c in checks if n == LATENCY_BASELINE))
    if any(name.startswith("latency-") for name, _ in selected):
        attacker = f"uid {ATTACKER_UID}" if os.geteuid() == 0 else "the daemon's own user (the suite is not root)"
        print(f"hostile: latency runs: the p{latency['judged percentile']} within the no-load p99 + {latency['slack ms']:g} ms"
              f"{' (--strict-latency)' if args.strict_latency else ''}; the attack clients run as {attacker}", flush=True)
    for name, check in selected:
        start = time.monotonic()
        try:
            figures = check()
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next attack runs
            failed += 1
            print(f"FAIL {name} ({time.monotonic() - start:.1f} s): {error}", flush=True)
            figures = getattr(error, "figures", None)
            if figures:
                print("  " + ", ".join(f"{k}: {v}" for k, v in figures.items()), flush=True)
                latency_rows.append((name, figures, "FAIL"))
            log = os.path.join(workdir, name, "daemon.log")
            if os.path.exists(log):
                with open(log, "rb") as f:
                    tail = f.read().splitlines()[-15:]
                print("  daemon log tail:\n    " + "\n    ".join(l.decode(errors="replace")[:300] for l in tail))
            continue
        passed += 1
        shown = ", ".join(f"{k}: {v}" for k, v in figures.items())
        print(f"PASS {name} ({time.monotonic() - start:.1f} s): {shown}", flush=True)
        if name.startswith("latency-"):
            latency_rows.append((name, figures, "pass"))
        else:
            rows.append((name, figures))

    if latency_rows:
        print("\n" + latency_table(latency_rows))
    if args.report:
        with open(args.report, "w") as f:
            if rows:
                f.write("| attack | figures |\n|---|---|\n")
                for name, figures in rows:
                    f.write(f"| {name} | {', '.join(f'{k} {v}' for k, v in figures.items())} |\n")
            if latency_rows:
                f.write(("\n" if rows else "") + latency_table(latency_rows))
    shutil.rmtree(workdir, ignore_errors=True) if failed == 0 else print(f"logs kept in {workdir}")
    print(f"hostile: {passed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
