#!/usr/bin/env python3
"""Protocol checks for the VM scenarios, straight from the protocol spec (hello,
then a request with an "id" whose reply echoes it), independent of popgesturectl.

  vmctl.py status                       print the daemon's status reply
  vmctl.py request JSON                 print the reply to one request (exit 1 on "error")
  vmctl.py wait-device NODE [--gone]    until status lists (or no longer lists) NODE
  vmctl.py wait-front                   until some client's navigator is in front
  vmctl.py wait-observers N             until at least N clients are observers

Options: --socket PATH (default $POPGESTURED_SOCKET, else the default path),
--timeout SECONDS (default 30). Exit 0 on success, 1 on a failed check or timeout,
with the reason on stderr.
"""
import argparse
import json
import os
import socket
import sys
import time

DEFAULT_SOCKET = "/run/popgestured/popgestured.sock"


class Session:
    def __init__(self, path, deadline):
        self.deadline = deadline
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(max(0.1, deadline - time.monotonic()))
        self.sock.connect(path)
        self.buf = b""
        self.send({"type": "hello", "version": 1, "name": "vmctl"})
        hello = self.reply(lambda m: m.get("type") in ("hello", "error"))
        if hello.get("type") != "hello":
            raise RuntimeError(f"hello refused: {json.dumps(hello)}")

    def send(self, obj):
        self.sock.sendall((json.dumps(obj, separators=(",", ":")) + "\n").encode())

    def reply(self, wanted):
        """The next received object for which wanted() holds; events are skipped."""
        while True:
            while b"\n" not in self.buf:
                self.sock.settimeout(max(0.1, self.deadline - time.monotonic()))
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise RuntimeError("the daemon closed the connection")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            msg = json.loads(line)
            if wanted(msg):
                return msg

    def request(self, obj):
        obj = dict(obj)
        obj.setdefault("id", "vmctl")
        self.send(obj)
        # Replies echo the id; events carry none.
        return self.reply(lambda m: m.get("id") == obj["id"])

    def close(self):
        self.sock.close()


def one_request(path, obj, timeout):
    s = Session(path, time.monotonic() + timeout)
    try:
        return s.request(obj)
    finally:
        s.close()


def poll(what, timeout, check, path):
    """Asks for status until check(status) holds; tolerates a daemon not yet listening."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            status = one_request(path, {"type": "status"}, min(10, deadline - time.monotonic()))
            if check(status):
                return 0
            last = json.dumps(status)
        except (OSError, RuntimeError, ValueError) as e:
            last = f"{type(e).__name__}: {e}"
        time.sleep(0.3)
    print(f"vmctl: timed out after {timeout:g}s waiting for {what}; last status: {last}", file=sys.stderr)
    return 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["status", "request", "wait-device", "wait-front", "wait-observers"])
    p.add_argument("arg", nargs="?")
    p.add_argument("--gone", action="store_true")
    p.add_argument("--socket", default=os.environ.get("POPGESTURED_SOCKET", DEFAULT_SOCKET))
    p.add_argument("--timeout", type=float, default=30)
    a = p.parse_args()

    try:
        if a.command == "status":
            print(json.dumps(one_request(a.socket, {"type": "status"}, a.timeout)))
            return 0
        if a.command == "request":
            reply = one_request(a.socket, json.loads(a.arg), a.timeout)
            print(json.dumps(reply))
            return 1 if reply.get("type") == "error" else 0
    except (OSError, RuntimeError, ValueError) as e:
        print(f"vmctl: {a.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if a.command == "wait-device":
        def listed(status):
            return any(d.get("path") == a.arg for d in status.get("devices", []))
        what = f"the daemon to {'drop' if a.gone else 'list'} {a.arg} in its status devices"
        return poll(what, a.timeout, (lambda s: not listed(s)) if a.gone else listed, a.socket)
    if a.command == "wait-observers":
        n = int(a.arg or 1)
        return poll(f"{n} observer(s)", a.timeout,
                    lambda s: sum(1 for c in s.get("clients", []) if c.get("observer")) >= n, a.socket)
    return poll("a navigator in front", a.timeout,
                lambda s: any(n.get("front") for n in s.get("navigators", [])), a.socket)


if __name__ == "__main__":
    sys.exit(main())
