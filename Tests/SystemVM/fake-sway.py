"""A stand-in for sway's IPC socket, for the bridge units' scenarios.

fake-sway.py SOCKET APP PID: answers the subscriptions (success) and the tree (one
focused window of APP and PID); any other request gets {}. Writing "APP PID" to
SOCKET.focus moves the focus there: every subscribed connection gets a window
`focus` event for a new container, as sway sends when another window is clicked.
"""
import json
import os
import socket
import struct
import sys
import threading
import time

WINDOW_EVENT = 0x80000003
path, app, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
lock = threading.Lock()
state = {"id": 4, "app": app, "pid": pid}
subscribers = set()


def view():
    return {"id": state["id"], "type": "con", "focused": True, "app_id": state["app"],
            "pid": state["pid"], "nodes": [], "floating_nodes": []}


def tree():
    workspace = {"id": 3, "type": "workspace", "floating_nodes": [], "nodes": [view()]}
    output = {"id": 2, "type": "output", "floating_nodes": [], "nodes": [workspace]}
    return {"id": 1, "type": "root", "nodes": [output], "floating_nodes": []}


def send(conn, kind, message):
    data = json.dumps(message).encode()
    conn.sendall(b"i3-ipc" + struct.pack("<II", len(data), kind) + data)


def serve(conn):
    buffer = b""
    while chunk := conn.recv(65536):
        buffer += chunk
        while len(buffer) >= 14 and len(buffer) >= 14 + struct.unpack("<I", buffer[6:10])[0]:
            length, kind = struct.unpack("<II", buffer[6:14])
            buffer = buffer[14 + length:]
            with lock:
                if kind == 2:
                    send(conn, kind, {"success": True})
                    subscribers.add(conn)
                else:
                    send(conn, kind, tree() if kind == 4 else {})
    with lock:
        subscribers.discard(conn)
    conn.close()


def follow_focus_file():
    seen = None
    while True:
        time.sleep(0.1)
        try:
            with open(path + ".focus") as f:
                text = f.read().strip()
        except FileNotFoundError:
            continue
        if text == seen or not text:
            continue
        seen = text
        new_app, new_pid = text.split()
        with lock:
            state.update(id=state["id"] + 1, app=new_app, pid=int(new_pid))
            for conn in list(subscribers):
                try:
                    send(conn, WINDOW_EVENT, {"change": "focus", "container": view()})
                except OSError:
                    subscribers.discard(conn)
        print(f"focus: {new_app} {new_pid}", flush=True)


threading.Thread(target=follow_focus_file, daemon=True).start()
server = socket.socket(socket.AF_UNIX)
server.bind(path)
server.listen(8)
while True:
    threading.Thread(target=serve, args=(server.accept()[0],), daemon=True).start()
