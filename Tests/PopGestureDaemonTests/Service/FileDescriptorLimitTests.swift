import PopGestureDaemon
import Testing

/// The soft limit on open files is raised toward 4096, never past the hard
/// limit, and never lowered.
@Suite struct FileDescriptorLimitTests {
    @Test func theUsualShellLimitIsRaisedTo4096() {
        #expect(FileDescriptorLimit.wanted == 4096)
        #expect(FileDescriptorLimit.raisedSoftLimit(soft: 1024, hard: 524_288) == 4096)
        #expect(FileDescriptorLimit.raisedSoftLimit(soft: 1024, hard: .max) == 4096)  // RLIM_INFINITY
    }

    @Test func aLowHardLimitCapsIt() {
        #expect(FileDescriptorLimit.raisedSoftLimit(soft: 256, hard: 2048) == 2048)
    }

    @Test func enoughIsLeftAlone() {
        #expect(FileDescriptorLimit.raisedSoftLimit(soft: 4096, hard: 4096) == nil)  // the unit's LimitNOFILE=4096
        #expect(FileDescriptorLimit.raisedSoftLimit(soft: 1024, hard: 1024) == nil)
        #expect(FileDescriptorLimit.raisedSoftLimit(soft: 65536, hard: 524_288) == nil)  // never lowered
    }
}
