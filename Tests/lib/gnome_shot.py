"""A GNOME Shell extension for tests: Screenshot(path, width) writes a PNG of the
screen's left strip, `width` pixels wide and the stage's height, taken in the Shell
itself (Shell.Screenshot): the Shell's D-Bus Screenshot answers only the callers it
allows. Shared by the GUI tests and the desktops tier (/testlib there).

    gnome_shot.install(data_dir, shell_major)   # into DATA/gnome-shell/extensions/UUID
    gdbus call --session --dest NAME --object-path PATH --method METHOD /tmp/x.png 192
"""

import os

UUID = "popgestured-test-shot@popgestured"
NAME = "org.popgestured.TestShot"
PATH = "/org/popgestured/TestShot"
METHOD = "org.popgestured.TestShot.Screenshot"

BODY = """
const HOOK_XML = '<node><interface name="org.popgestured.TestShot"><method name="Screenshot">' +
    '<arg type="s" direction="in"/><arg type="i" direction="in"/></method></interface></node>';
class TestShot {
    enable() {
        this._object = Gio.DBusExportedObject.wrapJSObject(HOOK_XML, this);
        this._object.export(Gio.DBus.session, '/org/popgestured/TestShot');
        this._owner = Gio.bus_own_name_on_connection(Gio.DBus.session, 'org.popgestured.TestShot',
            Gio.BusNameOwnerFlags.NONE, null, null);
    }
    disable() {
        this._object.unexport();
        Gio.bus_unown_name(this._owner);
    }
    ScreenshotAsync([path, width], invocation) {
        const stream = Gio.File.new_for_path(path).replace(null, false, Gio.FileCreateFlags.NONE, null);
        new Shell.Screenshot().screenshot_area(0, 0, width, global.stage.height, stream, (shooter, result) => {
            try {
                shooter.screenshot_area_finish(result);
                stream.close(null);
                invocation.return_value(null);
            } catch (e) {
                invocation.return_dbus_error('org.popgestured.TestShot.Failed', String(e));
            }
        });
    }
}
"""


def install(data, major):
    """The extension for GNOME Shell `major` (legacy imports before 45, ES modules from
    45) under the data folder `data`; enable it with EnableExtension(UUID)."""
    folder = os.path.join(data, "gnome-shell", "extensions", UUID)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "extension.js"), "w") as file:
        if major < 45:
            file.write("const {Gio, Shell} = imports.gi;\n" + BODY + "function init() { return new TestShot(); }\n")
        else:
            file.write("import Gio from 'gi://Gio';\nimport Shell from 'gi://Shell';\n"
                       "import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';\n" + BODY
                       + "export default class extends Extension {\n"
                       "    enable() { this._hook = new TestShot(); this._hook.enable(); }\n"
                       "    disable() { this._hook.disable(); }\n}\n")
    with open(os.path.join(folder, "metadata.json"), "w") as file:
        file.write('{"uuid": "%s", "name": "popgestured test shot", "description": "Screenshots for tests.", '
                   '"shell-version": ["%d"]}' % (UUID, major))
