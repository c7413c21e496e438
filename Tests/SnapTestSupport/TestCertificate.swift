import Foundation
import Testing

/// A throwaway self-signed certificate for 127.0.0.1, made with openssl: `cert.pem` and `key.pem` in
/// `folder`. Fails the test, saying why, when openssl cannot make one.
public enum TestCertificate {
    public static func make(in folder: String) throws -> (certificate: String, key: String) {
        let (certificate, key) = (folder + "/cert.pem", folder + "/key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl is needed to make a test certificate")
        return (certificate, key)
    }
}
