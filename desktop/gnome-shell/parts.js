
// The extension's parts, enabled and disabled together: the reporter and the arrow.
class PopgesturedParts {
    enable() {
        this._parts = [new PopgesturedReporter(), new PopgesturedArrow()];
        this._parts.forEach(part => part.enable());
    }

    disable() {
        this._parts.forEach(part => part.disable());
        this._parts = null;
    }
}
