"""What the desktops tier's scenarios share (Tests/Desktops): run inside the release's
root, as root, with the package's files where dpkg puts them; /tmp is this scenario's
own, /logs its log folder on the host, /tier this folder (read-only)."""
import json
import os
import shutil
import subprocess
import sys
import time

T0 = time.monotonic()
RUNTIME = "/tmp/runtime"
SOCKET = "/tmp/popgestured.sock"
children = []
# The session's variables (its bus), for every program started after session_bus().
SESSION = {}


def log(message):
    print(f"[{time.monotonic() - T0:7.2f}] {message}", flush=True)


def step(message):
    print(flush=True)
    log(f"---- {message}")


def fail(message):
    print(f"FAIL: {message}", flush=True)
    raise SystemExit(1)


def within(seconds, condition):
    """Polls condition every 0.1 s until it holds (its value) or the time is up (None)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(0.1)


def wait_for(seconds, what, condition):
    """within(), failing with what when the time is up."""
    return within(seconds, condition) or fail(f"timed out after {seconds} s waiting for {what}")


def environment(**extra):
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/tmp/home", "XDG_RUNTIME_DIR": RUNTIME,
           "LC_ALL": "C.UTF-8"}
    env.update(SESSION)
    env.update(extra)
    return env


def start(name, command, env=None):
    """command in the background, its output to /logs/NAME.log; stopped at exit."""
    out = open(f"/logs/{name}.log", "wb")
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             env=env or environment())
    child.log_path = f"/logs/{name}.log"
    children.append(child)
    return child


def text_of(child):
    with open(child.log_path, "rb") as f:
        return f.read().decode(errors="replace")


def stop_all():
    for child in reversed(children):
        if child.poll() is None:
            child.kill()
        child.wait()


def session_bus():
    """A session bus of the scenario's own, in SESSION for environment()."""
    os.makedirs(RUNTIME, mode=0o700, exist_ok=True)
    os.makedirs("/tmp/home", exist_ok=True)
    address = f"unix:path={RUNTIME}/bus"
    start("dbus", ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={address}"])
    wait_for(10, "the session bus", lambda: os.path.exists(f"{RUNTIME}/bus"))
    SESSION["DBUS_SESSION_BUS_ADDRESS"] = address
    return address


def daemon():
    """The package's popgestured, on SOCKET with an empty configuration."""
    open("/tmp/empty.conf", "w").close()
    process = start("popgestured", ["/usr/bin/popgestured", "run", "--socket", SOCKET, "--config", "/tmp/empty.conf"])
    wait_for(30, "the daemon's socket", lambda: os.path.exists(SOCKET) or process.poll() is not None)
    if process.poll() is not None:
        fail(f"popgestured ended with {process.returncode}:\n{text_of(process)}")
    return process


def status():
    done = subprocess.run(["/usr/bin/popgesturectl", "status", "--json", "--socket", SOCKET],
                          capture_output=True, text=True, timeout=10, env=environment())
    try:
        return json.loads(done.stdout)
    except ValueError:
        return {}


def start_bridge(kind, env=None, says=None):
    """The package's `popgesturectl bridge KIND`, waited for until it is the daemon's
    shell; fails when it ends first, or never logs says."""
    bridge = start("bridge", ["/usr/bin/popgesturectl", "bridge", kind, "--verbose", "--socket", SOCKET], env)
    wait_for(60, "the bridge to be the daemon's shell",
             lambda: (status().get("focus") or {}).get("shell") is not None or bridge.poll() is not None)
    if bridge.poll() is not None:
        fail(f"the bridge ended with {bridge.returncode}:\n{text_of(bridge)}")
    if says and says not in text_of(bridge):
        fail(f"bridge {kind} did not say \"{says}\":\n{text_of(bridge)}")
    return bridge


def shell_focus(app, pid):
    """The daemon's focus is the shell's word for app and pid."""
    focus = status().get("focus") or {}
    return focus.get("source") == "shell" and focus.get("app") == app and focus.get("pid") == pid


def window(app, display):
    """A GTK 4 window whose Wayland app_id is app."""
    script = ("import sys, gi\n"
              "gi.require_version('Gtk', '4.0')\n"
              "from gi.repository import Gtk\n"
              "app = Gtk.Application(application_id=sys.argv[1])\n"
              "app.connect('activate', lambda a: Gtk.ApplicationWindow(application=a, title=sys.argv[1]).present())\n"
              "app.run([])\n")
    return start(f"window-{app}", ["python3", "-c", script, app], environment(
        WAYLAND_DISPLAY=display, GDK_BACKEND="wayland", GSK_RENDERER="cairo", NO_AT_BRIDGE="1"))


def gdbus(destination, path, method, *arguments):
    return subprocess.run(["gdbus", "call", "--session", "--dest", destination, "--object-path", path,
                           "--method", method, *arguments], capture_output=True, text=True, timeout=10,
                          env=environment())


def copy_without_capabilities(path):
    """A copy of path: Debian's kwin_wayland carries the file capability
    cap_sys_resource, which a container's bounding set may lack (exec: EPERM)."""
    copy = os.path.join("/tmp", os.path.basename(path))
    shutil.copyfile(path, copy)
    os.chmod(copy, 0o755)
    return copy


def release():
    with open("/etc/os-release") as f:
        fields = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    return fields.get("PRETTY_NAME", "?").strip('"')


def main(scenario):
    try:
        scenario()
    except SystemExit:
        raise
    except Exception as error:  # noqa: BLE001 - the scenario failed; say why
        fail(f"{type(error).__name__}: {error}")
    finally:
        stop_all()
    log("PASS")
    sys.exit(0)
