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
The figures go to stdout and, with --report FILE, to a Markdown table
(docs/RELIABILITY.md quotes it).

    Tests/Hostile/hostile.py [--binary PATH] [--only REGEX] [--report FILE]

Standard library only; loopback Unix sockets only. Exits 1 if any attack fails.
"""

import argparse
import json
import multiprocessing
import os
import re
import select
import shutil
import signal
import socket
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
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


class Client:
    """A line-oriented client with a deadline on every read."""

    def __init__(self, path, name=None, hello=True, timeout=5.0):
        self.sock = connect(path, timeout)
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
                raise Failure(f"no line within {timeout} s")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise Failure(f"no line within {timeout} s")
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
    def __init__(self, binary, workdir, name, extra_args=(), prlimit_nofile=None):
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

        env = dict(os.environ, NOTIFY_SOCKET=self.notify_path, WATCHDOG_USEC=str(WATCHDOG_USEC))
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


class Prober:
    """The well-behaved client: a status round trip every 50 ms, each one timed.

    A process of its own, so that the attacker's work in this interpreter never
    delays its measurements.
    """

    def __init__(self, path):
        self.path = path
        self.round_trips, self.started, self.error = [], [], None
        self.halt = multiprocessing.Event()
        self.results, child_end = multiprocessing.Pipe(duplex=False)
        ready = multiprocessing.Event()
        self.process = multiprocessing.Process(target=self._run, args=(child_end, ready), daemon=True)
        self.process.start()
        if not ready.wait(10):
            raise Failure("the well-behaved client could not connect")

    def _run(self, out, ready):
        round_trips, started, error = [], [], None
        try:
            client = Client(self.path, name="prober")
        except Exception as failure:  # noqa: BLE001 - reported to the parent
            out.send(([], [], f"the well-behaved client could not say hello: {failure!r}"))
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
        self.halt.set()
        if self.results.poll(15):
            self.round_trips, self.started, self.error = self.results.recv()
        else:
            self.error = "the well-behaved client did not finish"
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


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
    clients = [Client(daemon.socket, hello=False) for _ in range(10)]
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
    held, refused = [], 0
    for _ in range(1000):
        try:
            s = connect(daemon.socket, timeout=5)
        except OSError:
            refused += 1
            continue
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
        for _ in range(count):
            c = Client(daemon.socket, hello=False)
            c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            try:
                c.send({"type": "hello", "version": 1})
            except (BrokenPipeError, ConnectionResetError):
                # At the limit the daemon answers too-many-clients and closes at once,
                # maybe before the hello is written: the answer is still there to read.
                pass
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
    """Soft and hard RLIMIT_NOFILE of 64: more connections than descriptors."""
    sockets = []
    for _ in range(200):
        try:
            sockets.append(connect(daemon.socket, timeout=1))
        except OSError:
            break
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
    s = Client.__new__(Client)
    s.sock, s.buffer = silent, b""
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
        pings = [t for t in daemon.watchdog_times if t >= watch_start - 1]
        edges = [watch_start] + pings + [time.monotonic()]
        gap = max(b - a for a, b in zip(edges, edges[1:]))
        expect(gap < WATCHDOG_GAP_BOUND, f"the watchdog was not fed for {gap:.2f} s (bound {WATCHDOG_GAP_BOUND} s)")
        peak = daemon.peak_rss_mib()
        expect(peak < RSS_CEILING_MIB, f"peak RSS {peak:.1f} MiB, over the {RSS_CEILING_MIB} MiB ceiling")
        longest = max((len(l) for l in daemon.log_text().splitlines()), default=0)
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
    parser.add_argument("--only", default="")
    parser.add_argument("--report")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        print(f"hostile: {args.binary} is not built (swift build)", file=sys.stderr)
        return 1
    if shutil.which("prlimit") is None:
        print("hostile: prlimit (util-linux) is missing", file=sys.stderr)
        return 1

    workdir = tempfile.mkdtemp(prefix="popgestured-hostile.")
    passed, failed, rows = 0, 0, []
    checks = [(name, lambda a=attack, n=name, o=options: run_attack(args.binary, workdir, n, a, o))
              for name, attack, options in ATTACKS]
    checks.append(("configuration-files", lambda: check_configuration_files(args.binary, workdir)))
    for name, check in checks:
        if args.only and not re.search(args.only, name):
            continue
        start = time.monotonic()
        try:
            figures = check()
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next attack runs
            failed += 1
            print(f"FAIL {name} ({time.monotonic() - start:.1f} s): {error}", flush=True)
            log = os.path.join(workdir, name, "daemon.log")
            if os.path.exists(log):
                with open(log, "rb") as f:
                    tail = f.read().splitlines()[-15:]
                print("  daemon log tail:\n    " + "\n    ".join(l.decode(errors="replace")[:300] for l in tail))
            continue
        passed += 1
        shown = ", ".join(f"{k}: {v}" for k, v in figures.items())
        print(f"PASS {name} ({time.monotonic() - start:.1f} s): {shown}", flush=True)
        rows.append((name, figures))

    if args.report:
        with open(args.report, "w") as f:
            f.write("| attack | figures |\n|---|---|\n")
            for name, figures in rows:
                f.write(f"| {name} | {', '.join(f'{k} {v}' for k, v in figures.items())} |\n")
    shutil.rmtree(workdir, ignore_errors=True) if failed == 0 else print(f"logs kept in {workdir}")
    print(f"hostile: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
