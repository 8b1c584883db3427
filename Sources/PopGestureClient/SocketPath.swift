import Glibc

/// Where popgestured listens (docs/PROTOCOL.md, "The socket").
public enum PopGestureSocket {
    /// The daemon's socket when neither a path nor `$POPGESTURED_SOCKET` says otherwise:
    /// `/run/popgestured/popgestured.sock`, which `popgestured.socket` (systemd) creates.
    public static let defaultPath = "/run/popgestured/popgestured.sock"

    /// The environment variable that names another socket, as popgesturectl reads it.
    public static let environmentVariable = "POPGESTURED_SOCKET"

    /// `option` when given, else `environment` when set and not empty, else ``defaultPath``.
    public static func path(option: String?, environment: String?) -> String {
        if let option { return option }
        if let environment, !environment.isEmpty { return environment }
        return defaultPath
    }

    /// `option` when given, else `$POPGESTURED_SOCKET` when set and not empty, else ``defaultPath``.
    public static func path(option: String? = nil) -> String {
        path(option: option, environment: getenv(environmentVariable).map { String(cString: $0) })
    }
}
