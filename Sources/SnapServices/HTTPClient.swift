internal import CSnapCurl
import Foundation
import Synchronization

/// One HTTP request.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// The largest response body accepted: a service that answers with more is cut off (`bodyTooLarge`)
    /// rather than allowed to fill the station's memory.
    public var maxBodyBytes: Int

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        maxBodyBytes: Int = 4 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maxBodyBytes = maxBodyBytes
    }
}

/// An HTTP response: status, headers (names lowercased) and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    /// The value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A transfer that did not complete: why, and libcurl's own words.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No connection: no network, DNS failure, refused.
        case unreachable
        /// The connect or total timeout ran out.
        case timedOut
        /// The connection broke mid-exchange (reset, or closed with nothing).
        case connectionLost
        /// The server's certificate did not verify.
        case tls
        /// The body was longer than the request allowed (`HTTPRequest.maxBodyBytes`).
        case bodyTooLarge
        case cancelled
        case other
    }
    public var kind: Kind
    /// libcurl's CURLcode.
    public var code: Int
    public var message: String

    public var description: String { "\(message) (curl \(code))" }
}

/// HTTP over libcurl: TLS always verified, connect and total timeouts, proxies from the environment
/// (`https_proxy`, `no_proxy`, … as libcurl reads them), progress, and cancellation.
///
/// Each transfer runs on its own thread, because `curl_easy_perform` blocks and must not hold one of the
/// few threads of Swift's cooperative pool.
public struct HTTPClient: Sendable {
    public var connectTimeout: Duration
    public var totalTimeout: Duration
    /// A CA bundle to trust instead of the system's; nil for the system's.
    public var caFile: String?

    public init(connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30), caFile: String? = nil) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.caFile = caFile
    }

    /// Sends `request`; `progress` gets the upload's fraction done (0…1). Cancelling the task aborts it.
    public func send(_ request: HTTPRequest, progress: (@Sendable (Double) -> Void)? = nil) async throws(HTTPError)
        -> HTTPResponse
    {
        let transfer = Transfer(progress: progress)
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: perform(request, transfer)) }
                thread.name = "http"
                thread.start()
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .relaxed)
        }
        return try result.get()
    }

    private func perform(_ request: HTTPRequest, _ transfer: Transfer) -> Result<HTTPResponse, HTTPError> {
        // A value from outside (a token the server issued, a key file) with a line break would add header
        // lines of its own: such a request is not sent.
        let broken = request.headers.first { header in
            (header.name + header.value).unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
        }
        if let broken {
            return .failure(
                HTTPError(
                    kind: .other, code: 43, message: "the header \(broken.name.debugDescription) holds a line break"))
        }
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        var response = ss_http_response()
        let code = withCStrings(lines) { headers in
            request.url.withCString { url in
                request.method.withCString { method in
                    withOptionalCString(caFile) { ca in
                        withOptionalBytes(request.body) { body, length in
                            var raw = ss_http_request(
                                url: url, method: method, headers: headers.baseAddress, header_count: headers.count,
                                body: body, body_length: length,
                                connect_timeout_ms: Int(connectTimeout.components.seconds * 1000),
                                total_timeout_ms: Int(totalTimeout.components.seconds * 1000), ca_file: ca,
                                max_body_bytes: request.maxBodyBytes)
                            let context = Unmanaged.passUnretained(transfer).toOpaque()
                            return withExtendedLifetime(transfer) {
                                ss_http_perform(
                                    &raw,
                                    { context, upTotal, upNow, _, _ in
                                        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                                        if transfer.cancelled.load(ordering: .relaxed) { return 1 }
                                        if upTotal > 0 { transfer.progress?(Double(upNow) / Double(upTotal)) }
                                        return 0
                                    }, context, &response)
                            }
                        }
                    }
                }
            }
        }
        defer { ss_http_response_free(&response) }
        guard code == 0 else {
            let message = withUnsafeBytes(of: response.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let kind =
                response.body_too_large != 0
                ? .bodyTooLarge : Self.kind(of: code, cancelled: transfer.cancelled.load(ordering: .relaxed))
            let said = kind == .bodyTooLarge ? "the answer is larger than \(request.maxBodyBytes) bytes" : message
            return .failure(HTTPError(kind: kind, code: Int(code), message: said))
        }
        let body = response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? []
        let headerText =
            response.headers.map {
                String(
                    decoding: UnsafeBufferPointer(
                        start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: response.headers_length),
                    as: UTF8.self)
            } ?? ""
        return .success(HTTPResponse(status: response.status, headers: Self.parseHeaders(headerText), body: body))
    }

    /// The last response's headers (after redirects or a 100 Continue, only the final block counts).
    public static func parseHeaders(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("HTTP/") {
                headers.removeAll()
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    static func kind(of code: Int32, cancelled: Bool) -> HTTPError.Kind {
        switch code {
        case 42: cancelled ? .cancelled : .other  // CURLE_ABORTED_BY_CALLBACK
        case 5, 6, 7: .unreachable  // couldn't resolve proxy / host, couldn't connect
        case 28: .timedOut  // CURLE_OPERATION_TIMEDOUT
        case 52, 55, 56: .connectionLost  // got nothing, send error, receive error (reset)
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91: .tls
        default: .other
        }
    }
}

/// What the progress callback on libcurl's thread shares with the task that waits.
private final class Transfer: Sendable {
    let cancelled = Atomic<Bool>(false)
    let progress: (@Sendable (Double) -> Void)?
    init(progress: (@Sendable (Double) -> Void)?) { self.progress = progress }
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer(body)
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString(body)
}

private func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
    guard let bytes else { return body(nil, 0) }
    return bytes.withUnsafeBufferPointer { body($0.baseAddress ?? UnsafePointer(bitPattern: 1), $0.count) }
}
