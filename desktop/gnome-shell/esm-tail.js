
export default class PopgesturedBridgeExtension extends Extension {
    enable() {
        this._parts = new PopgesturedParts();
        this._parts.enable();
    }

    disable() {
        this._parts.disable();
        this._parts = null;
    }
}
