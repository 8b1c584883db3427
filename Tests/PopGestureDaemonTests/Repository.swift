import Foundation

/// The checkout these tests were built from: the folder above this file that holds
/// Package.swift, wherever in the test tree a test sits.
enum Repository {
    static let root: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path),
              folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        return folder
    }()

    /// `relative` under the checkout: `Tests/Fixtures/sway/tree-two-windows.json`.
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
