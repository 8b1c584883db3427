/* exported init */
// GNOME Shell 43 and 44 (Debian 12): legacy imports.
const {Clutter, Gio, GLib, St} = imports.gi;
const Main = imports.ui.main;

