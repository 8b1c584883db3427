import Foundation
import PopGestureCore
import PopGestureRecording
import Testing

// The real recordings live beside the checkout (CI puts shared/ there); they are never
// copied into the project. This file is <root>/Tests/PopGestureRecordingTests/<file>.
private let recordingsDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("../shared/recordings").standardizedFileURL.path

private let recordingsAvailable = FileManager.default.fileExists(atPath: recordingsDirectory)

private let recordingFiles: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: recordingsDirectory)) ?? [])
    .filter { $0.hasSuffix(".desc") || $0.hasSuffix(".events") || $0.hasSuffix(".evemu") }
    .sorted()

/// Devices whose events files pair with `<device>.desc` (the README's "pairs with" column).
private let pairedDevices: Set<String> = [
    "ntrig-multitouch", "ntrig-dell-xt2", "egalax-wetab", "quanta-optical", "synaptics-hp8470p", "synaptics",
]

private func path(_ file: String) -> String { recordingsDirectory + "/" + file }

private func lines(_ file: String) throws -> [Substring] {
    try String(contentsOfFile: path(file), encoding: .utf8).split(whereSeparator: \.isNewline)
}

/// The `.desc` an events file pairs with, per the README table; nil for files with their own header.
private func pairedDescription(_ file: String) -> String? {
    guard !file.hasSuffix(".desc"), let device = file.split(separator: ".").first,
          pairedDevices.contains(String(device)) else { return nil }
    return "\(device).desc"
}

private func load(_ file: String) throws -> Recording {
    if file.hasSuffix(".desc") {
        return Recording(device: try Recording.parseDescription(String(contentsOfFile: path(file), encoding: .utf8)), events: [])
    }
    return try Recording(contentsOf: path(file), descriptionPath: pairedDescription(file).map(path))
}

@Suite("shared recordings", .enabled(if: recordingsAvailable, "../shared/recordings is absent"))
struct SharedRecordingsTests {
    @Test("every recording parses", arguments: recordingFiles)
    func parses(_ file: String) throws {
        let recording = try load(file)
        let fileLines = try lines(file)

        // Every E: line is one event, in order of time.
        #expect(recording.events.count == fileLines.filter { $0.hasPrefix("E:") }.count)
        #expect(zip(recording.events, recording.events.dropFirst()).allSatisfy { $0.time <= $1.time })
        if !recording.events.isEmpty { #expect(recording.events.last?.isFrameEnd == true) }

        // The name is the N: line of whichever file carries the description.
        let header = fileLines.contains { $0.hasPrefix("N:") } ? fileLines : try lines(#require(pairedDescription(file)))
        let nameLine = try #require(header.first { $0.hasPrefix("N:") })
        #expect(recording.device.name == nameLine.dropFirst(2).trimmingCharacters(in: .whitespaces))

        // All of these are touch devices with coordinates.
        #expect(recording.device.inferredKind != nil)
        #expect(recording.device.positionAxes != nil)
    }

    @Test("events-only files are exactly the README's paired ones", arguments: recordingFiles)
    func headerlessFilesArePaired(_ file: String) throws {
        let hasHeader = try lines(file).contains { $0.hasPrefix("N:") }
        if !hasHeader { #expect(pairedDescription(file) != nil, "\(file) has no header and no paired .desc") }
        // Where an events file has both, its header says what the .desc says.
        if hasHeader, let desc = pairedDescription(file) {
            #expect(try load(file).device == load(desc).device)
        }
    }

    @Test func atmelHasTenSlotsWithoutResolution() throws {
        let device = try load("atmel-maxtouch.desc").device
        #expect(device.axes[ABS.mtSlot]?.maximum == 9)
        #expect(device.slotCount == 10)
        #expect(device.axes.values.allSatisfy { $0.resolution == 0 })
        #expect(device.positionAxes?.x == AbsoluteAxis(minimum: 0, maximum: 799))
        #expect(device.touchProtocol == .slots)
        #expect(device.inferredKind == .touchscreen)
        #expect(device.keys == [BTN.touch])
    }

    @Test func dellCanvasHasResolutionsAndTimestamps() throws {
        let recording = try load("dell-canvas-touch.evemu")
        let axes = recording.device.axes
        #expect(axes[ABS.x]?.resolution == 55)
        #expect(axes[ABS.y]?.resolution == 98)
        #expect(axes[ABS.mtPositionX]?.resolution == 55)
        #expect(axes[ABS.mtPositionY]?.resolution == 98)
        #expect(recording.device.slotCount == 5)
        #expect(recording.device.vendor == 0x2575 && recording.device.product == 0x0204)
        #expect(recording.events.contains { $0.type == EV.msc && $0.code == MSC.timestamp })
    }

    @Test func ntrigMultitouchIsProtocolA() throws {
        let recording = try load("ntrig-multitouch.2-fingers-touch-release.events")
        #expect(!recording.device.has(axis: ABS.mtSlot))
        #expect(recording.device.touchProtocol == .anonymousContacts)
        #expect(recording.device.inferredKind == .touchscreen)
        #expect(recording.events.contains { $0.type == EV.syn && $0.code == SYN.mtReport })
    }

    @Test(arguments: ["synaptics.desc", "synaptics-hp8470p.desc"])
    func synapticsIsATouchpad(_ file: String) throws {
        let device = try load(file).device
        #expect(device.inferredKind == .touchpad)
        #expect(device.has(key: BTN.toolFinger))
        #expect(device.slotCount == 2)
    }

    @Test func egalaxHasTwoSlots() throws {
        let recording = try load("egalax-wetab.events")
        #expect(recording.device.slotCount == 2)
        #expect(recording.events.first?.time == Timestamp(seconds: 1_288_981_453, microseconds: 965_969))
    }
}
