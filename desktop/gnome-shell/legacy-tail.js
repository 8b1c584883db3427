
function init() {
    return new PopgesturedParts();
}
