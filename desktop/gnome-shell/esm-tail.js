
export default class PopgesturedBridgeExtension extends Extension {
    enable() {
        this._reporter = new PopgesturedReporter();
        this._reporter.enable();
    }

    disable() {
        this._reporter.disable();
        this._reporter = null;
    }
}
