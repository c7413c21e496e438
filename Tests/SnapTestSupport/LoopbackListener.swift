import Foundation
import Glibc

/// A TCP socket listening on 127.0.0.1 at a port the kernel chose: the kernel completes each connection,
/// whether or not anyone accepts it. The socket and its port; the caller closes it.
public func loopbackListener(backlog: Int32) throws -> (socket: Int32, port: Int) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(.EMFILE) }
    var yes: Int32 = 1
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
        }
    }
    guard bound, listen(socket, backlog) == 0 else {
        close(socket)
        throw POSIXError(.EADDRINUSE)
    }
    return (socket, Int(UInt16(bigEndian: address.sin_port)))
}
