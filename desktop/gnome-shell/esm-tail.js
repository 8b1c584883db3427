
export default class PopgesturedBridgeExtension extends Extension {
    enable() {
        this._parts = [new PopgesturedReporter(), new PopgesturedArrow()];
        this._parts.forEach(part => part.enable());
    }

    disable() {
        this._parts.forEach(part => part.disable());
        this._parts = null;
    }
}
