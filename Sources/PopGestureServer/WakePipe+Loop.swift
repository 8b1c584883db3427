import PopGestureInput
import PopGestureSystem

extension WakePipe {
    /// A wake pipe for a loop being set up (the daemon's mailbox, a ``SocketServer``'s
    /// own thread); its failure is the loop's.
    public static func forLoop() throws(InputError) -> WakePipe {
        do {
            return try WakePipe()
        } catch {
            throw InputError(.loopSetup, "cannot create the wake pipe: \(error)")
        }
    }
}
