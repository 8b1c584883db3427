
function init() {
    return new PopgesturedReporter();
}
