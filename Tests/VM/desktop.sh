# A real desktop in the VM, for scenarios that check what real apps do: sway with its
# libinput backend (so it reads the VM's evdev nodes as on a tablet, the daemon's
# back input and grab clone included) and a headless output, run as `nobody` on a
# seatd seat. Sourced after lib.sh.
#
# Why each part:
# - sway refuses to run as root ("Unable to drop root"), so the session is nobody's,
#   in DESKTOP_HOME (a tmpfs folder nobody owns), with its own XDG_RUNTIME_DIR.
# - wlroots' libinput backend opens devices through libseat; the VM has no logind
#   session, and libseat's noop backend never reports the seat active to wlroots
#   0.15 (sway times out), so seatd runs the seat, its socket open to nogroup.
# - The output is headless (no DRM in the VM) and drawn by pixman; 1280x800, the
#   ELAN panel's 16:9-ish shape, so the touchscreen maps onto all of it.

DESKTOP_HOME=/tmp/desktop
DESKTOP_RUNTIME="$DESKTOP_HOME/runtime"
DESKTOP_WIDTH=1280 DESKTOP_HEIGHT=800

# as_desktop_user CMD...: runs CMD as nobody in the session's environment (sway's, or
# DESKTOP_NAME's, with DESKTOP_BUS as its session bus when set). GTK 4
# draws with cairo (GSK_RENDERER): the VM has no GPU, and GL through llvmpipe under TCG
# held a first GTK 4 window back for minutes; no accessibility bus (GTK_A11Y, NO_AT_BRIDGE).
as_desktop_user() {
    setpriv --reuid=nobody --regid=nogroup --clear-groups \
        env -i PATH=/usr/bin:/bin HOME="$DESKTOP_HOME/home" XDG_RUNTIME_DIR="$DESKTOP_RUNTIME" \
        WAYLAND_DISPLAY="${WAYLAND_DISPLAY:-wayland-1}" SWAYSOCK="${SWAYSOCK:-}" LANG=C.UTF-8 \
        XDG_SESSION_TYPE=wayland XDG_CURRENT_DESKTOP="${DESKTOP_NAME:-sway}" MOZ_ENABLE_WAYLAND=1 \
        "QT_QPA_PLATFORM=wayland;xcb" ${DESKTOP_BUS:+DBUS_SESSION_BUS_ADDRESS="$DESKTOP_BUS"} \
        GDK_BACKEND=wayland NO_AT_BRIDGE=1 GTK_A11Y=none GSK_RENDERER=cairo "$@"
}

# start_seatd: seatd runs the seat (see above), its socket open to nogroup.
start_seatd() {
    seatd -g nogroup >"$WORK/seatd.log" 2>&1 &
    BG_PIDS+=("$!")
    wait_for 30 "seatd's socket" test -S /run/seatd.sock
}

_sway_answers() { swaymsg -t get_version >/dev/null 2>&1; }
# sway_input_id NAME: sway's identifier (vendor:product:name) of the input device of
# that name, for `swaymsg input IDENTIFIER ...`; nothing when sway has none.
sway_input_id() { swaymsg -t get_inputs -r | python3 -c '
import json, sys
print(next((i["identifier"] for i in json.load(sys.stdin) if i.get("name") == sys.argv[1]), ""))' "$1"; }
_sway_has_input() { [ -n "$(sway_input_id "$1")" ]; }

# The desktop user's folders, fresh for each scenario (call before writing into them).
rm -rf "$DESKTOP_HOME"
mkdir -p "$DESKTOP_RUNTIME" "$DESKTOP_HOME/home"

# start_sway [CONFIG-LINES]: seatd, then sway as nobody, CONFIG-LINES at the end of its
# config (what sway's get_config then shows, as a user's config file would).
# Exports SWAYSOCK and WAYLAND_DISPLAY.
start_sway() {
    chmod 700 "$DESKTOP_RUNTIME"
    cat >"$DESKTOP_HOME/sway.conf" <<EOF
output HEADLESS-1 resolution ${DESKTOP_WIDTH}x${DESKTOP_HEIGHT}
default_border none
focus_follows_mouse no
xwayland enable
${1:-}
EOF
    chown -R nobody:nogroup "$DESKTOP_HOME"
    start_seatd
    as_desktop_user env -u WAYLAND_DISPLAY -u SWAYSOCK WLR_BACKENDS=headless,libinput LIBSEAT_BACKEND=seatd \
        WLR_RENDERER=pixman sway -c "$DESKTOP_HOME/sway.conf" >"$WORK/sway.log" 2>&1 &
    SWAY_PID=$!
    BG_PIDS+=("$SWAY_PID")
    wait_for 120 "sway's IPC socket" sh -c "ls $DESKTOP_RUNTIME/sway-ipc.*.sock >/dev/null 2>&1"
    SWAYSOCK=$(ls "$DESKTOP_RUNTIME"/sway-ipc.*.sock | head -n 1)
    export SWAYSOCK WAYLAND_DISPLAY=wayland-1
    wait_for 120 "sway to answer on its IPC socket" _sway_answers
    log "sway $(swaymsg -t get_version -r | python3 -c 'import json,sys; print(json.load(sys.stdin)["human_readable"])') runs as nobody on seatd, pid $SWAY_PID"
}

# wait_sway_input NAME: sway's libinput backend lists a device of that name.
wait_sway_input() { wait_for "${2:-60}" "sway to read the input device \"$1\"" _sway_has_input "$1"; }

# focused_window: "APP_ID<TAB>TITLE" of sway's focused window (for an Xwayland
# window its WM_CLASS class), else of its newest window (a window sway mapped
# without focus, as Chromium's under TCG), or nothing.
focused_window() {
    swaymsg -t get_tree -r 2>/dev/null | python3 -c '
import json, sys
windows = []
def walk(node):
    if node.get("type") in ("con", "floating_con") and not node.get("nodes") and node.get("pid"):
        app = node.get("app_id") or (node.get("window_properties") or {}).get("class") or ""
        windows.append((not node.get("focused"), -node["id"], app + "\t" + (node.get("name") or "")))
    for child in node.get("nodes", []) + node.get("floating_nodes", []):
        walk(child)
walk(json.load(sys.stdin))
if windows:
    print(min(windows)[2])' || true
}
focused_title() { focused_window | cut -f2-; }
_title_is() { focused_title | grep -qE "$1"; }
# wait_title SECONDS REGEX: the focused window's title matches REGEX (grep -E).
wait_title() { wait_for "$1" "the focused window's title to match /$2/ (it is \"$(focused_title)\")" _title_is "$2"; }

# plug_keyboard: keyboard.desc as a uinput keyboard that sway reads through libinput,
# as a user's keyboard (wtype's virtual keyboard lost modifiers on sway 1.7 here:
# Ctrl+L arrived as nothing). Sets KEYBOARD_NODE; DEV_NODE stays the touchscreen's.
plug_keyboard() {
    local touchscreen=${DEV_NODE:-} touchscreen_pid=${DEV_PID:-}
    create_device "$VM_DIR/keyboard.desc"
    KEYBOARD_NODE=$DEV_NODE
    DEV_NODE=$touchscreen DEV_PID=$touchscreen_pid
    wait_sway_input "popgestured test keyboard"
}
# press COMBO (ctrl+l, enter, alt+left) or press --text TEXT: on KEYBOARD_NODE.
press() {
    python3 "$VM_DIR/make-keys.py" "$@" >"$DESKTOP_HOME/keys.events"
    evemu-play "$KEYBOARD_NODE" <"$DESKTOP_HOME/keys.events" || fail "evemu-play $KEYBOARD_NODE failed"
}

# navigate ADDRESS: the app's location bar (Ctrl+L), the address, Enter, as a user types.
navigate() {
    press ctrl+l
    sleep 1
    press --text "$1"
    sleep 0.5
    press enter
}
# navigate_until ADDRESS REGEX: navigate, until the focused window's title matches
# REGEX: up to 3 tries, 40 s each, Escape before a retry (an app that has just drawn
# its first window may not take keys yet: Firefox under TCG). Returns 1 when none did.
navigate_until() {
    local try
    for try in 1 2 3; do
        [ "$try" = 1 ] || { log "the title is still \"$(focused_title)\": typing $1 again"; press esc; sleep 1; }
        navigate "$1"
        try_wait 40 _title_is "$2" && return 0
    done
    return 1
}
# app_selected NAME: VM_APPS (a regex over the scenarios' app names) is unset or matches.
app_selected() { [ -z "${VM_APPS:-}" ] || [[ $1 =~ $VM_APPS ]]; }

# screenshot FILE: grim of the whole output.
screenshot() { as_desktop_user grim -t png "$DESKTOP_HOME/shot.png" && cp "$DESKTOP_HOME/shot.png" "$1"; }

_no_window() { [ -z "$(focused_window)" ]; }
# close_apps: every process of the desktop user but sway and its Xwayland (SWAY_PID is
# the shell that started sway as nobody, not sway itself).
close_apps() {
    local pid round
    for round in TERM KILL; do
        for pid in $(pgrep -u nobody || true); do
            case "$(cat /proc/"$pid"/comm 2>/dev/null)" in Xwayland | sway) continue ;; esac
            kill -"$round" "$pid" 2>/dev/null || true
        done
        sleep 3
    done
    try_wait 30 _no_window || true
}

# firefox_profile: a Firefox profile in $DESKTOP_HOME/firefox with no first-run pages,
# so that the window's title is the page's from the start.
firefox_profile() {
    mkdir -p "$DESKTOP_HOME/firefox"
    cat >"$DESKTOP_HOME/firefox/user.js" <<'EOF'
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.tabs.warnOnClose", false);
EOF
    chown -R nobody:nogroup "$DESKTOP_HOME/firefox"
}

# tap X Y: a finger down and up, 80 ms and no move, at fractions of the screen, on the
# touchscreen (DEV_NODE, from TOUCH_DESC), where a person taps a row or a key.
tap() { _touch_line "$1" "$1" "$2" 80; }
# drag X0 X1 Y: a finger across the touchscreen at height Y, 300 ms.
drag() { _touch_line "$1" "$2" "$3" 300; }
_touch_line() {  # X0 X1 Y MS
    python3 "$VM_DIR/make-swipe.py" "$TOUCH_DESC" --from "$1" --to "$2" --y "$3" --to-y "$3" \
        --duration-ms "$4" >"$DESKTOP_HOME/touch.events"
    evemu-play "$DEV_NODE" <"$DESKTOP_HOME/touch.events" || fail "evemu-play $DEV_NODE failed"
}

# gsettings_keyfile: stdin (keyfile groups and keys) as nobody's gsettings, for apps
# started with GSETTINGS_BACKEND=keyfile (no dconf service in the VM).
gsettings_keyfile() {
    mkdir -p "$DESKTOP_HOME/home/.config/glib-2.0/settings"
    cat >"$DESKTOP_HOME/home/.config/glib-2.0/settings/keyfile"
    chown -R nobody:nogroup "$DESKTOP_HOME/home/.config"
}

# start_desktop DESC: the touchscreen from DESC (DEV_NODE), sway reading it, the
# keyboard, and `popgesturectl bridge sway` telling the daemon the app in front.
start_desktop() {
    TOUCH_DESC=$1
    create_device "$1"
    start_sway
    wait_sway_input "$(desc_name "$1")"
    plug_keyboard
    start_bridge
}

# start_bridge: `popgesturectl bridge sway --verbose` (into bridge.log), the daemon's
# shell: it tells the daemon sway's focused window (and its outputs). Sets BRIDGE_PID.
start_bridge() {
    # With sway's Wayland display too: the outputs' sizes and their changes come through
    # wlr-output-management (sway 1.7's IPC sends no output events).
    XDG_RUNTIME_DIR="$DESKTOP_RUNTIME" "$POPGESTURECTL" bridge sway --verbose >"$WORK/bridge.log" 2>&1 &
    BRIDGE_PID=$!
    BG_PIDS+=("$BRIDGE_PID")
}
