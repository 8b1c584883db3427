#!/usr/bin/env python3
"""A raw protocol client for the system VM's scenarios.

    client.py [--role shell] [--subscribe] [--name NAME] [--socket PATH]

Connects to the daemon's socket, says hello (with "id":"hello"), and with
--subscribe subscribes (with "id":"subscribe"). Every line the daemon sends goes
to standard output as it came; standard error gets each line again with the time
since connecting, and how the connection ended. It runs until the daemon closes
the connection (exit 0) or it is killed; it cannot connect: exit 2.

Standard output belongs to the caller (a scenario running it as another user
with setpriv redirects it into its own folder, which that user cannot write).
"""

import argparse
import json
import socket
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--role", choices=["app", "shell"])
    parser.add_argument("--subscribe", action="store_true")
    parser.add_argument("--name", default="systemvm")
    parser.add_argument("--socket", default="/run/popgestured/popgestured.sock")
    args = parser.parse_args()

    start = time.monotonic()

    def note(text: str) -> None:
        print(f"[+{time.monotonic() - start:.3f}s] {text}", file=sys.stderr, flush=True)

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(args.socket)
    except OSError as error:
        note(f"cannot connect to {args.socket}: {error}")
        return 2
    note(f"connected to {args.socket}")

    hello = {"type": "hello", "version": 1, "name": args.name, "id": "hello"}
    if args.role:
        hello["role"] = args.role
    requests = [hello]
    if args.subscribe:
        requests.append({"type": "subscribe", "id": "subscribe"})
    for request in requests:
        line = json.dumps(request, separators=(",", ":"))
        try:
            sock.sendall(line.encode() + b"\n")
            note(f"sent {line}")
        except OSError as error:
            # A refused peer is closed after one line: the daemon may be gone already.
            note(f"could not send {line}: {error}")
            break

    buffer = b""
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            note("connection reset by the daemon")
            return 0
        if not data:
            if buffer:
                sys.stdout.write(buffer.decode(errors="replace") + "\n")
                sys.stdout.flush()
            note("closed by the daemon")
            return 0
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            text = line.decode(errors="replace")
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
            note(f"received {text}")


if __name__ == "__main__":
    sys.exit(main())
