import PopGestureCore
@testable import PopGestureInput
import Testing

/// What a touch clone is created with, decided without uinput.
@Suite struct CloneTemplateTests {
    static let panel = DeviceDescription(
        name: "ELAN Touchscreen", bustype: 0x18, vendor: 0x04f3, product: 0x2a1c, version: 0x0100,
        properties: [], keys: [BTN.touch], eventTypes: [EV.syn, EV.key, EV.abs, EV.msc],
        axes: [
            ABS.x: AbsoluteAxis(minimum: 0, maximum: 3000, fuzz: 4, resolution: 10),
            ABS.y: AbsoluteAxis(minimum: 0, maximum: 2000, fuzz: 4, resolution: 10),
            ABS.mtSlot: AbsoluteAxis(minimum: 0, maximum: 9),
            ABS.mtTouchMajor: AbsoluteAxis(minimum: 0, maximum: 255, flat: 2),
            ABS.mtPositionX: AbsoluteAxis(minimum: 0, maximum: 3000, fuzz: 4, flat: 1, resolution: 10),
            ABS.mtPositionY: AbsoluteAxis(minimum: 0, maximum: 2000, fuzz: 4, resolution: 10),
            ABS.mtTrackingID: AbsoluteAxis(minimum: 0, maximum: 65535),
        ])

    @Test func keepsIdsKeysAndRangesAndAddsDirect() {
        let template = CloneTemplate(cloning: Self.panel, sysname: "event7", miscCodes: [MSC.timestamp])
        let clone = template.description
        #expect(clone.name == "ELAN Touchscreen")  // the real name: settings keyed on it apply
        #expect(template.phys == "popgestured/event7")  // what tells it apart
        #expect(CloneTemplate.isClone(phys: template.phys))
        #expect([clone.bustype, clone.vendor, clone.product, clone.version] == [0x18, 0x04f3, 0x2a1c, 0x0100])
        #expect(clone.properties == [InputProperty.direct])
        #expect(clone.keys == [BTN.touch])
        #expect(clone.eventTypes == [EV.syn, EV.key, EV.abs, EV.msc])
        #expect(clone.inferredKind == .touchscreen)
        #expect(template.miscCodes == [MSC.timestamp])
        #expect(template.slotCount == 10)
        #expect(template.description.axes[ABS.mtPositionX] == AbsoluteAxis(minimum: 0, maximum: 3000, fuzz: 0, flat: 1, resolution: 10))
        #expect(template.description.axes[ABS.mtTouchMajor] == AbsoluteAxis(minimum: 0, maximum: 255, flat: 2))
        // Every real axis is there, plus the tool type.
        #expect(Set(template.description.axes.keys) == Set(Self.panel.axes.keys).union([ABS.mtToolType]))
    }

    @Test func otherPropertiesStay() {
        var description = Self.panel
        description.properties = [InputProperty.direct, 5]
        #expect(CloneTemplate(cloning: description, sysname: "event0").description.properties == [InputProperty.direct, 5])
    }

    /// The kernel's fuzz filter is not idempotent: filtering the clone's events again
    /// would move them. The fuzz goes, the rest of the axis stays.
    @Test func fuzzIsZeroBecauseTheEventsAreFilteredAlready() {
        let cloned = CloneTemplate.clonedAxis(AbsoluteAxis(minimum: -5, maximum: 5, fuzz: 8, flat: 1, resolution: 3))
        #expect(cloned == AbsoluteAxis(minimum: -5, maximum: 5, fuzz: 0, flat: 1, resolution: 3))
    }

    @Test func theToolTypeIsAddedWhenMissing() {
        #expect(CloneTemplate.toolTypeAxis(cloning: nil) == AbsoluteAxis(minimum: MTTool.finger, maximum: 15))
        #expect(CloneTemplate(cloning: Self.panel, sysname: "e").description.axes[ABS.mtToolType]
            == AbsoluteAxis(minimum: 0, maximum: 15))
    }

    @Test func aToolTypeThatReachesPalmIsKept() {
        let real = AbsoluteAxis(minimum: 0, maximum: 2, resolution: 0)
        #expect(CloneTemplate.toolTypeAxis(cloning: real) == real)
    }

    /// A pen-only range (0…1) has no palm: libinput would not cancel through it.
    @Test func aToolTypeWithoutPalmIsWidened() {
        #expect(CloneTemplate.toolTypeAxis(cloning: AbsoluteAxis(minimum: 0, maximum: 1))
            == AbsoluteAxis(minimum: 0, maximum: 15))
    }

    @Test func slotsStopAtTheTrackedMaximum() {
        var description = Self.panel
        description.axes[ABS.mtSlot] = AbsoluteAxis(minimum: 0, maximum: Int32.max)
        let template = CloneTemplate(cloning: description, sysname: "event1")
        #expect(template.slotCount == DeviceDescription.maximumTrackedSlots)
    }

    @Test func emptyAxesAreWidenedAndInvertedOnesLeftOut() {
        #expect(CloneTemplate.clonedAxis(AbsoluteAxis(minimum: 7, maximum: 7, flat: 3))
            == AbsoluteAxis(minimum: 7, maximum: 8, flat: 1))
        #expect(CloneTemplate.clonedAxis(AbsoluteAxis(minimum: .max, maximum: .max))
            == AbsoluteAxis(minimum: .max - 1, maximum: .max))
        #expect(CloneTemplate.clonedAxis(AbsoluteAxis(minimum: 1, maximum: 0)) == nil)
        var description = Self.panel
        description.axes[ABS.mtPressure] = AbsoluteAxis(minimum: 10, maximum: 0)
        #expect(CloneTemplate(cloning: description, sysname: "e").description.axes[ABS.mtPressure] == nil)
    }

    @Test func miscCodesNeedTheMiscType() {
        var description = Self.panel
        description.eventTypes.remove(EV.msc)
        #expect(CloneTemplate(cloning: description, sysname: "e", miscCodes: [MSC.timestamp]).miscCodes.isEmpty)
    }

    /// uinput takes 79 bytes of name: a longer real name is cut on a character
    /// boundary; any other is kept as it is.
    @Test func longNamesAreCutOnACharacter() {
        let long = String(repeating: "é", count: 60)  // 120 bytes
        let name = CloneTemplate.cloneName(of: long)
        #expect(name.utf8.count <= CloneTemplate.maximumNameBytes)
        #expect(name.utf8.count >= CloneTemplate.maximumNameBytes - 1)
        #expect(name.allSatisfy { $0 == "é" })
        #expect(CloneTemplate.cloneName(of: "short") == "short")
        let exact = String(repeating: "n", count: CloneTemplate.maximumNameBytes)
        #expect(CloneTemplate.cloneName(of: exact) == exact)
        let sysname = String(repeating: "x", count: 100)
        #expect(CloneTemplate(cloning: Self.panel, sysname: sysname).phys == "popgestured/" + String(repeating: "x", count: 64))
    }
}
