#!/usr/bin/env python3
"""A popgestured client in the standard library: navigator "main" with pages home and
detail; prints each back ("back: detail -> home") and pushes detail again.
Usage: client.py [SOCKET] [--once]   (SOCKET: else $POPGESTURED_SOCKET, else the default)"""
import json, os, socket, sys

args = [a for a in sys.argv[1:] if a != "--once"]
path = args[0] if args else os.environ.get("POPGESTURED_SOCKET") or "/run/popgestured/popgestured.sock"
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    sock.connect(path)
except OSError as error:
    sys.exit(f"cannot connect to {path}: {error.strerror} - is popgestured running?")
lines = sock.makefile("r", encoding="utf-8", newline="\n")  # read-only: a write would drop read-ahead

def send(**request):  # one JSON object per line
    sock.sendall((json.dumps(request) + "\n").encode())

send(type="hello", version=1, name="client.py")
send(type="create", navigator="main", pages=[{"id": "home"}, {"id": "detail"}])
for line in lines:
    message = json.loads(line)
    if message["type"] == "error":
        sys.exit(f"popgestured: {message['code']}: {message['message']}")
    if message["type"] == "back":
        print(f"back: {message['popped']} -> {message['top']}", flush=True)
        if "--once" in sys.argv:
            break
        send(type="push", navigator="main", page={"id": message["popped"]})
else:
    sys.exit("popgestured closed the connection")
