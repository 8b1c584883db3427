// popgestured's KWin script: tells `popgesturectl bridge kde`, on the session bus, which
// window is active. The bridge loads it through org.kde.kwin.Scripting and unloads it
// when it ends; nothing here needs enabling by hand. Works in KWin 5.27 (clients) and
// KWin 6 (windows). Calls without a bridge on the bus fail quietly.
//
// KWin's scripting API has no output rotation (5.27 has no output objects, 6's have a
// name and geometry but no transform): the bridge reads the outputs itself, as a
// Wayland client, through kde-output-device-v2.

const service = "org.popgestured.Bridge";
const path = "/org/popgestured/Bridge";
const iface = "org.popgestured.Bridge1";

// KWin 6 names windows what KWin 5 named clients.
const activated = workspace.windowActivated || workspace.clientActivated;

function active() {
    return workspace.activeWindow !== undefined ? workspace.activeWindow : workspace.activeClient;
}

// The app id: resourceClass, a string in KWin 6 and a byte array (ArrayBuffer) in KWin 5,
// which the bridge reads as UTF-8. "" is unknown.
function report(window) {
    if (!window) {
        callDBus(service, path, iface, "FocusedWindow", "", 0);
        return;
    }
    const app = window.resourceClass;
    const pid = typeof window.pid === "number" ? Math.trunc(window.pid) : 0;
    callDBus(service, path, iface, "FocusedWindow", app ? app : "", pid);
}

activated.connect(report);
report(active());
