import Foundation
import PopGestureCore
import PopGestureRecording

/// The real recordings in `../shared/recordings`, beside the repository. Tests that
/// need them are disabled, with this folder named, when it is absent.
enum SharedRecordings {
    static let folder: String = {
        // Tests/ReplayTests/SharedRecordings.swift → package root → ../shared/recordings
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.deletingLastPathComponent().appendingPathComponent("shared/recordings").path
    }()

    static let available = FileManager.default.fileExists(atPath: folder + "/README.md")
    static let absent = "../shared/recordings is absent: the real recordings live beside the repository"

    static func path(_ name: String) -> String { folder + "/" + name }

    static func description(_ name: String) throws -> DeviceDescription {
        try Recording(contentsOf: path(name)).device
    }

    static func recording(_ name: String, desc: String? = nil) throws -> Recording {
        try Recording(contentsOf: path(name), descriptionPath: desc.map(path))
    }

    /// The touchscreen descriptions the scenarios run on: protocol B with and without
    /// resolution, 2 slots, protocol A (through mtdev) and an infrared frame.
    static let touchscreens = [
        "atmel-maxtouch.desc",        // B, 10 slots, resolution 0
        "dell-canvas-touch.evemu",    // B, 5 slots, resolution 55/98, MSC_TIMESTAMP
        "egalax-wetab.desc",          // B, 2 slots, fuzz 31
        "elan-touchscreen.desc",
        "irtouch-infrared.desc",
        "quanta-optical.desc",
        "ntrig-multitouch.desc",      // protocol A
        "ep0430m09.desc",
    ]
}
