// popgestured's back arrow in GNOME Shell's own stage: Mutter has no layer-shell, so
// the indicator that draws it elsewhere (clients/indicator/popgesture-indicator.py)
// cannot; the extension that already runs for the bridge draws it here. The same
// observer: `hello`, `subscribe`, then `input-began`, `input-progress` (progress over
// commit, clamped to 0…1), `back-input` and `input-cancelled`; every other line is
// ignored. The arrow sits at the middle of the leading edge of the primary monitor, a
// bubble from 15 % of its width at the start to all of it at the commit point, and
// takes no input (not reactive). Off with `arrow = off` in
// ~/.config/popgestured/indicator.conf, which the Python indicator reads too; with
// `refused = on` there (off by default) a `refused` swipe shows a grey "no" for
// REFUSAL_MILLISECONDS.
// `build` puts this after reporter.js, between the imports and the entry point.

const DAEMON_SOCKET = '/run/popgestured/popgestured.sock';
// The protocol's line limit: a longer line is a broken peer.
const MAXIMUM_LINE = 65536;
const RETRY_SECONDS = 2;
// The bubble's width at the start, as a fraction of its full width (ARROW_SIZE).
const MINIMUM_WIDTH = 0.15;
const ARROW_SIZE = 48;
const ARROW_COLOUR = [0x33 / 255, 0x67 / 255, 0xd6 / 255];
// The "no" of a refused swipe: how long it stays, and its grey.
const REFUSAL_MILLISECONDS = 700;
const REFUSAL_GREY = [0x75 / 255, 0x75 / 255, 0x75 / 255];

// What `~/.config/popgestured/indicator.conf` says: `key = value` lines, # comments;
// `arrow` on (the default) or off, `edge` left (the default) or right, `refused` on or
// off (the default). At most 4 KiB are read.
function readIndicatorSettings(path) {
    const settings = {arrow: true, edge: 'left', refused: false};
    let text = '';
    try {
        const [, bytes] = GLib.file_get_contents(path);
        text = new TextDecoder().decode(bytes.slice(0, 4096));
    } catch (e) {
        return settings;  // no file: the defaults
    }
    for (const line of text.split('\n')) {
        const match = line.match(/^\s*([a-z-]+)\s*=\s*(\S+)\s*$/);
        if (!match)
            continue;
        const [, key, value] = match;
        if (key === 'arrow' && (value === 'on' || value === 'off'))
            settings.arrow = value === 'on';
        else if (key === 'edge' && (value === 'left' || value === 'right'))
            settings.edge = value;
        else if (key === 'refused' && (value === 'on' || value === 'off'))
            settings.refused = value === 'on';
    }
    return settings;
}

// The arrow's state: nothing until a swipe goes to the back input, then `fraction`;
// `refused` after a swipe that looked like a back was refused, until clearRefusal().
class ArrowState {
    constructor() {
        this.visible = false;
        this.fraction = 0;
        this.refused = false;
    }

    // One event from the daemon; true when the drawing changed.
    handle(event) {
        switch (event.type) {
        case 'input-began':
            this.visible = true;
            this.fraction = 0;
            this.refused = false;
            return true;
        case 'refused':
            if (this.visible || this.refused)
                return false;
            this.refused = true;
            return true;
        case 'input-progress': {
            const {progress, commit} = event;
            if (!this.visible || typeof progress !== 'number' || typeof commit !== 'number')
                return false;
            const fraction = commit <= 0 ? 1 : Math.max(0, Math.min(1, progress / commit));
            const changed = fraction !== this.fraction;
            this.fraction = fraction;
            return changed;
        }
        case 'back-input':
        case 'input-cancelled':
            if (!this.visible)
                return false;
            this.visible = false;
            return true;
        default:
            return false;
        }
    }

    // The "no" has been up long enough; true when the drawing changed.
    clearRefusal() {
        const changed = this.refused;
        this.refused = false;
        return changed;
    }
}

class PopgesturedArrow {
    enable() {
        const config = GLib.build_filenamev([GLib.get_user_config_dir(), 'popgestured', 'indicator.conf']);
        this._settings = readIndicatorSettings(config);
        this._configFile = Gio.File.new_for_path(config);
        this._configMonitor = this._configFile.monitor_file(Gio.FileMonitorFlags.NONE, null);
        this._configId = this._configMonitor.connect('changed', () => {
            this._settings = readIndicatorSettings(config);
            this._arrow.visible = false;
            this._update();
        });
        this._arrow = new ArrowState();
        this._area = new St.DrawingArea({reactive: false, width: ARROW_SIZE, height: 2 * ARROW_SIZE});
        this._area.connect('repaint', area => this._paint(area));
        this._area.hide();
        Main.layoutManager.uiGroup.add_child(this._area);
        this._cancellable = new Gio.Cancellable();
        this._connect();
    }

    disable() {
        this._cancellable.cancel();
        if (this._retryId)
            GLib.source_remove(this._retryId);
        this._retryId = 0;
        if (this._refusalId)
            GLib.source_remove(this._refusalId);
        this._refusalId = 0;
        this._closeConnection();
        this._configMonitor.disconnect(this._configId);
        this._configMonitor.cancel();
        this._area.destroy();
        this._area = null;
    }

    _socketPath() {
        return GLib.getenv('POPGESTURED_SOCKET') || DAEMON_SOCKET;
    }

    _connect() {
        this._retryId = 0;
        const client = new Gio.SocketClient();
        const address = Gio.UnixSocketAddress.new(this._socketPath());
        client.connect_async(address, this._cancellable, (source, result) => {
            let connection;
            try {
                connection = source.connect_finish(result);
            } catch (e) {
                if (!e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                    this._retry();
                return;
            }
            this._connection = connection;
            const hello = '{"type":"hello","version":1,"name":"popgestured arrow (GNOME Shell)"}\n{"type":"subscribe"}\n';
            connection.get_output_stream().write_bytes_async(
                new GLib.Bytes(new TextEncoder().encode(hello)), GLib.PRIORITY_DEFAULT, this._cancellable, (stream, res) => {
                    try {
                        stream.write_bytes_finish(res);
                    } catch (e) {
                        this._lost();
                    }
                });
            this._input = connection.get_input_stream();
            this._pending = new Uint8Array(0);
            this._read();
        });
    }

    // Reads what came, up to 64 KiB at a time, and hands each whole line to the arrow; a
    // line longer than the protocol's limit ends the connection before it is kept.
    _read() {
        this._input.read_bytes_async(MAXIMUM_LINE, GLib.PRIORITY_DEFAULT, this._cancellable, (stream, result) => {
            let chunk;
            try {
                chunk = stream.read_bytes_finish(result).toArray();
            } catch (e) {
                if (!e.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                    this._lost();
                return;
            }
            if (chunk.length === 0) {
                this._lost();  // the daemon closed it
                return;
            }
            const bytes = new Uint8Array(this._pending.length + chunk.length);
            bytes.set(this._pending);
            bytes.set(chunk, this._pending.length);
            let start = 0, changed = false;
            for (let end = bytes.indexOf(10); end >= 0; end = bytes.indexOf(10, start)) {
                changed = this._handleLine(bytes.subarray(start, end)) || changed;
                start = end + 1;
            }
            this._pending = bytes.slice(start);
            if (changed)
                this._update();
            if (this._pending.length > MAXIMUM_LINE) {
                this._lost();
                return;
            }
            this._read();
        });
    }

    // One line: whether the drawing changed.
    _handleLine(bytes) {
        let event = null;
        try {
            event = JSON.parse(new TextDecoder().decode(bytes));
        } catch (e) {
            return false;  // not JSON: not an event this arrow reads
        }
        return event !== null && typeof event === 'object' && this._arrow.handle(event);
    }

    _closeConnection() {
        if (this._connection)
            this._connection.close(null);
        this._connection = null;
        this._input = null;
    }

    // A swipe under way can no longer end here: never leave the arrow up.
    _lost() {
        this._closeConnection();
        this._arrow.visible = false;
        this._update();
        this._retry();
    }

    _retry() {
        if (!this._retryId && !this._cancellable.is_cancelled()) {
            this._retryId = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, RETRY_SECONDS, () => {
                this._connect();
                return GLib.SOURCE_REMOVE;
            });
        }
    }

    _update() {
        if (!this._area)
            return;
        if (this._arrow.refused && !this._arrow.visible && !this._refusalId) {
            this._refusalId = GLib.timeout_add(GLib.PRIORITY_DEFAULT, REFUSAL_MILLISECONDS, () => {
                this._refusalId = 0;
                if (this._arrow.clearRefusal())
                    this._update();
                return GLib.SOURCE_REMOVE;
            });
        }
        const refusal = this._arrow.refused && this._settings.refused;
        if (!(this._arrow.visible || refusal) || !this._settings.arrow) {
            this._area.hide();
            return;
        }
        const monitor = Main.layoutManager.primaryMonitor;
        if (!monitor)
            return;
        const x = this._settings.edge === 'left' ? monitor.x : monitor.x + monitor.width - ARROW_SIZE;
        this._area.set_position(x, monitor.y + Math.floor((monitor.height - 2 * ARROW_SIZE) / 2));
        const uiGroup = Main.layoutManager.uiGroup;
        uiGroup.set_child_above_sibling(this._area, null);
        this._area.show();
        this._area.queue_repaint();
    }

    // As the Python indicator draws it: a half-disc bulging from the edge, wider with
    // the finger, and a white chevron once there is room.
    _paint(area) {
        const cr = area.get_context();
        const size = ARROW_SIZE, height = 2 * ARROW_SIZE;
        if (!this._arrow.visible) {
            this._paintRefusal(cr);
            cr.$dispose();
            return;
        }
        const fraction = this._arrow.fraction;
        const width = size * (MINIMUM_WIDTH + (1 - MINIMUM_WIDTH) * fraction);
        const left = this._settings.edge === 'left';
        this._bubble(cr, width, size * (0.5 + 0.5 * fraction), ARROW_COLOUR);
        if (width >= size * 0.35) {
            const centre = left ? width * 0.5 : size - width * 0.5;
            const arm = size * 0.18, point = left ? -1 : 1;
            cr.setSourceRGBA(1, 1, 1, 0.5 + 0.5 * fraction);
            cr.setLineWidth(Math.max(2, size * 0.07));
            cr.setLineCap(1);  // CAIRO_LINE_CAP_ROUND
            cr.moveTo(centre - point * arm * 0.5, height / 2 - arm);
            cr.lineTo(centre + point * arm * 0.5, height / 2);
            cr.lineTo(centre - point * arm * 0.5, height / 2 + arm);
            cr.stroke();
        }
        cr.$dispose();
    }

    // A half-disc bulging from the edge, `width` across and `halfHeight` up and down.
    _bubble(cr, width, halfHeight, colour) {
        const left = this._settings.edge === 'left';
        cr.save();
        cr.translate(left ? 0 : ARROW_SIZE, ARROW_SIZE);
        cr.scale(left ? width : -width, halfHeight);
        cr.moveTo(0, -1);
        cr.arc(0, 0, 1, -Math.PI / 2, Math.PI / 2);
        cr.closePath();
        cr.restore();
        cr.setSourceRGBA(...colour, 1);
        cr.fill();
    }

    // The "no": the bubble at its full size in grey, with a white cross.
    _paintRefusal(cr) {
        const size = ARROW_SIZE, height = 2 * ARROW_SIZE;
        this._bubble(cr, size, size, REFUSAL_GREY);
        const centre = size * 0.5, arm = size * 0.14;
        cr.setSourceRGBA(1, 1, 1, 1);
        cr.setLineWidth(Math.max(2, size * 0.07));
        cr.setLineCap(1);  // CAIRO_LINE_CAP_ROUND
        for (const dy of [-arm, arm]) {
            cr.moveTo(centre - arm, height / 2 - dy);
            cr.lineTo(centre + arm, height / 2 + dy);
        }
        cr.stroke();
    }
}
