import PopGestureSystem
import SystemPackage
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct UnixSocketAddressTests {
    @Test("a path of 107 bytes fits sun_path with its NUL; 108 is refused as too long")
    func theLongestPath() throws {
        #expect(UnixSocketAddress.maximumPathBytes == 107)
        let longest = "/" + String(repeating: "s", count: 106)
        #expect(try UnixSocketAddress(path: longest).path == longest)
        let error = #expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress(path: longest + "s") }
        #expect(error?.code == .tooLong)
        #expect(error?.description == "a Unix socket path must be 1 to 107 bytes long; this one has 108")
    }

    @Test("an empty path and one with a NUL byte are refused, each with its code")
    func emptyAndNUL() {
        #expect((#expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress(path: "") })?.code == .empty)
        let nul = #expect(throws: UnixSocketAddressError.self) { try UnixSocketAddress(path: "/tmp/a\0b") }
        #expect(nul?.code == .containsNUL)
    }

    @Test("bind then connect: the address names the same file both ways")
    func bindAndConnect() throws {
        let path = "/tmp/popgestured-address-\(getpid()).sock"
        defer { unlink(path) }
        let address = try UnixSocketAddress(path: path)
        let server = try FileDescriptor.unixStreamSocket()
        defer { try? server.close() }
        try server.bind(to: address)
        #expect(listen(server.rawValue, 1) == 0)
        let client = try FileDescriptor.connectedUnixSocket(to: address)
        try client.close()
    }

    @Test("connecting to a path nobody listens on throws the errno")
    func refused() throws {
        let address = try UnixSocketAddress(path: "/tmp/popgestured-nobody-\(getpid()).sock")
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileDescriptor.connectedUnixSocket(to: address) }
    }
}

@Suite struct NonBlockingPipeTests {
    @Test("a full self-pipe never blocks its writer, and draining empties it without blocking")
    func aFullPipeDoesNotBlock() throws {
        let pipe = try FileDescriptor.nonBlockingPipe()
        defer { try? pipe.readEnd.close(); try? pipe.writeEnd.close() }
        // A pipe holds 64 KiB by default: far more wakes than that must still return.
        for _ in 0..<100_000 { pipe.writeEnd.writeWakeByte() }
        pipe.readEnd.drain()
        var byte: UInt8 = 0
        #expect(throws: Errno.wouldBlock) { try withUnsafeMutableBytes(of: &byte) { try pipe.readEnd.read(into: $0) } }
        #expect(fcntl(pipe.readEnd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(pipe.writeEnd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }
}
