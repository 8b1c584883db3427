// popgestured's GNOME Shell extension, its one part for every Shell version: tells
// `popgesturectl bridge gnome`, on the session bus, the focus window (its WM class,
// which is the Wayland app_id or the X11 WM_CLASS class, and its pid), the transform of
// the built-in monitor (else the primary one), the session's text direction and whether
// it scrolls touchpads naturally (mutter applies that key to every touchpad, the
// daemon's virtual one too). It
// reports everything again whenever the bridge's name appears on the bus, so a bridge
// started after the Shell learns the state at once. Calls without a bridge fail quietly.
// `build` puts this between the imports and the entry point of the Shell's own kind.

const BRIDGE = 'org.popgestured.Bridge';
const BRIDGE_PATH = '/org/popgestured/Bridge';
const BRIDGE_INTERFACE = 'org.popgestured.Bridge1';
const DISPLAY_CONFIG = 'org.gnome.Mutter.DisplayConfig';
const DISPLAY_CONFIG_PATH = '/org/gnome/Mutter/DisplayConfig';
const TOUCHPAD_SCHEMA = 'org.gnome.desktop.peripherals.touchpad';

class PopgesturedReporter {
    enable() {
        this._focusId = global.display.connect('notify::focus-window', () => this._reportFocus());
        // org.gnome.Mutter.DisplayConfig says when any monitor's configuration changed.
        this._monitorsId = Gio.DBus.session.signal_subscribe(
            DISPLAY_CONFIG, DISPLAY_CONFIG, 'MonitorsChanged', DISPLAY_CONFIG_PATH, null,
            Gio.DBusSignalFlags.NONE, () => this._reportTransform());
        this._touchpad = new Gio.Settings({schema_id: TOUCHPAD_SCHEMA});
        this._scrollId = this._touchpad.connect('changed::natural-scroll', () => this._reportScrolling());
        this._watchId = Gio.bus_watch_name(
            Gio.BusType.SESSION, BRIDGE, Gio.BusNameWatcherFlags.NONE, () => this._reportAll(), null);
    }

    disable() {
        global.display.disconnect(this._focusId);
        Gio.DBus.session.signal_unsubscribe(this._monitorsId);
        Gio.bus_unwatch_name(this._watchId);
        this._touchpad.disconnect(this._scrollId);
        this._touchpad = null;
    }

    _reportAll() {
        this._reportFocus();
        this._reportTransform();
        this._reportScrolling();
        let rtl = false;
        try {
            rtl = Clutter.get_default_text_direction() === Clutter.TextDirection.RTL;
        } catch (e) {
            // Not in this Shell's Clutter: the daemon keeps its own layout.
            return;
        }
        this._call('TextDirection', new GLib.Variant('(s)', [rtl ? 'rtl' : 'ltr']));
    }

    _reportScrolling() {
        const natural = this._touchpad.get_boolean('natural-scroll');
        this._call('TouchpadScrolling', new GLib.Variant('(b)', [natural]));
    }

    _reportFocus() {
        const window = global.display.focus_window;
        const app = window ? window.get_wm_class() || '' : '';
        const pid = window ? window.get_pid() : 0;
        this._call('FocusedWindow', new GLib.Variant('(si)', [app, pid > 0 ? pid : 0]));
    }

    // GetCurrentState: (serial, monitors, logical monitors, properties); a monitor is
    // ((connector, vendor, product, serial), modes, properties), a logical monitor
    // (x, y, scale, transform, primary, monitors, properties). The transform is
    // wl_output's (0 to 7); the bridge turns it into degrees.
    _reportTransform() {
        Gio.DBus.session.call(
            DISPLAY_CONFIG, DISPLAY_CONFIG_PATH, DISPLAY_CONFIG, 'GetCurrentState', null, null,
            Gio.DBusCallFlags.NONE, 5000, null, (connection, result) => {
                let state;
                try {
                    state = connection.call_finish(result).recursiveUnpack();
                } catch (e) {
                    return;
                }
                const [, monitors, logicalMonitors] = state;
                const builtin = monitors.find(monitor => monitor[2]['is-builtin']);
                const connector = builtin ? builtin[0][0] : null;
                const logical = logicalMonitors.find(l => l[5].some(m => m[0] === connector)) ||
                    logicalMonitors.find(l => l[4]) || logicalMonitors[0];
                if (!logical)
                    return;
                const output = connector || (logical[5][0] ? logical[5][0][0] : '');
                this._call('OutputTransform', new GLib.Variant('(us)', [logical[3], output]));
            });
    }

    _call(method, parameters) {
        Gio.DBus.session.call(
            BRIDGE, BRIDGE_PATH, BRIDGE_INTERFACE, method, parameters, null,
            Gio.DBusCallFlags.NO_AUTO_START, 5000, null, (connection, result) => {
                try {
                    connection.call_finish(result);
                } catch (e) {
                    // No bridge, or it refused: it logs why.
                }
            });
    }
}
