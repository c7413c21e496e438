// swift-tools-version:6.2
// SnapStation: one binary that drives a camera station. The targets follow docs/architecture.md.
import PackageDescription

let package = Package(
    name: "SnapStation",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "snapstation", targets: ["snapstation"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The owner's page: Hummingbird, without its optional swift-configuration support.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Hummingbird's own dependencies, named for the types the page uses directly (the bound address of
        // the listening channel, the TLS certificate and key, the header fields, the request parts the
        // connection guard times).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // MARK: C libraries, bound through pkg-config or tiny shims
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CSystem/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CPangoCairo", path: "Sources/CSystem/CPangoCairo", pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(
            name: "CYUV", path: "Sources/CSystem/CYUV", providers: [.apt(["libyuv-dev"])]),
        .target(
            name: "CSnapCurl", path: "Sources/CSystem/CSnapCurl", linkerSettings: [.linkedLibrary("curl")]),
        .systemLibrary(
            name: "CLibDRM", path: "Sources/CSystem/CLibDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .target(name: "CSnapDisplay", dependencies: ["CLibDRM"], path: "Sources/CSystem/CSnapDisplay"),
        .systemLibrary(
            name: "CLibCrypto", path: "Sources/CSystem/CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CQREncode", path: "Sources/CSystem/CQREncode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(
            name: "CLibcamera", path: "Sources/CSystem/CLibcamera", pkgConfig: "libcamera",
            providers: [.apt(["libcamera-dev"])]),
        .target(name: "CSnapCamera", dependencies: ["CLibcamera"], path: "Sources/CSystem/CSnapCamera"),
        // Chipmunk2D ships no pkg-config file in Debian: the module map names the library.
        .systemLibrary(
            name: "CChipmunk", path: "Sources/CSystem/CChipmunk", providers: [.apt(["libchipmunk-dev"])]),
        // V4L2 for plain USB webcams: a C shim, as the kernel's structs are unions and its requests macros.
        .target(name: "CSnapV4L2", path: "Sources/CSystem/CSnapV4L2"),
        // A fatal signal's last word in the journal: Sources/SnapApp/CrashReport.swift.
        .target(name: "CSnapCrash", path: "Sources/CSystem/CSnapCrash"),
        // posix_spawn's close-from action (a GNU extension) for SnapFiles' ChildProcess.
        .target(name: "CSnapSpawn", path: "Sources/CSystem/CSnapSpawn"),
        // glibc's allocator controls: Sources/SnapApp/MemoryPolicy.swift.
        .systemLibrary(name: "CMalloc", path: "Sources/CSystem/CMalloc"),
        // ThreadSanitizer's annotations for SnapFiles' Lock (declarations only; used under -DSNAPSTATION_TSAN).
        .systemLibrary(name: "CSnapTSan", path: "Sources/CSystem/CSnapTSan"),
        // The home's MQTT broker: Sources/SnapServices/MQTTLink.swift.
        .systemLibrary(
            name: "CMosquitto", path: "Sources/CSystem/CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        .target(
            name: "CSnapGPIO", path: "Sources/CSystem/CSnapGPIO", linkerSettings: [.linkedLibrary("gpiod")]),
        // The station's .local name and its page as a service, over avahi-daemon: LocalNameService.swift.
        .target(
            name: "CSnapAvahi", path: "Sources/CSystem/CSnapAvahi",
            linkerSettings: [.linkedLibrary("avahi-client"), .linkedLibrary("avahi-common")]),
        .target(
            name: "CSnapTOML",
            path: "Sources/CSystem/CSnapTOML",
            cxxSettings: [.define("TOML_HEADER_ONLY", to: "0"), .define("TOML_SHARED_LIB", to: "1")],
            linkerSettings: [.linkedLibrary("tomlplusplus")]),

        // MARK: The station
        // The catalogs of what a person reads, in each language, embedded in the binary as byte arrays.
        .target(
            name: "SnapText",
            resources: ["en", "de", "es", "fr", "it"].flatMap { code in
                [Resource.embedInCode("Catalogs/\(code).json"), .embedInCode("Catalogs/\(code)-page.json")]
            }),
        .target(name: "SnapCore", dependencies: ["SnapText"]),
        .target(name: "SnapFiles", dependencies: ["CSnapTSan", "CSnapSpawn"]),
        .target(name: "SnapConfig", dependencies: ["SnapCore", "SnapText", "SnapFiles", "CSnapTOML"]),
        .target(
            name: "SnapStore",
            dependencies: ["SnapCore", "SnapFiles", "CLibCrypto", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "SnapImaging", dependencies: ["SnapCore", "CTurboJPEG", "CYUV", "CPangoCairo", "CQREncode"]),
        .target(
            name: "SnapScreens", dependencies: ["SnapCore", "SnapText", "SnapImaging", "SnapFiles", "CPangoCairo"]),
        .target(name: "SnapJar", dependencies: ["SnapCore", "SnapImaging", "SnapScreens", "CChipmunk"]),
        .target(
            name: "SnapDevices",
            dependencies: [
                "SnapCore", "SnapImaging", "SnapFiles", "CSnapGPIO", "CSnapDisplay", "CSnapCamera", "CSnapV4L2", "CYUV",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "SnapServices",
            dependencies: [
                "SnapCore", "SnapText", "SnapFiles", "SnapImaging", "CSnapCurl", "CMosquitto",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "SnapUpdates",
            dependencies: ["SnapCore", "SnapFiles", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "SnapWeb",
            dependencies: [
                "SnapCore", "SnapText", "SnapConfig", "SnapStore", "SnapFiles", "SnapImaging", "CLibCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "SnapApp",
            dependencies: [
                "SnapCore", "SnapText", "SnapConfig", "SnapStore", "SnapFiles", "SnapImaging", "SnapScreens", "SnapJar",
                "SnapDevices", "SnapServices", "SnapWeb", "SnapUpdates", "CMalloc", "CSnapCrash", "CSnapAvahi",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "snapstation",
            dependencies: [
                "SnapApp", "SnapConfig", "SnapStore", "SnapFiles", "SnapScreens", "SnapJar", "SnapCore", "SnapImaging",
                "SnapDevices", "SnapServices", "SnapText", "SnapUpdates",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Fuzzing: a corpus replayer in the normal build; the libFuzzer target under Tests/Fuzz/run.
        .target(name: "CSnapFuzz", path: "Sources/CSystem/CSnapFuzz"),
        .executableTarget(
            name: "snapfuzz",
            dependencies: [
                "SnapConfig", "SnapCore", "SnapFiles", "SnapImaging", "SnapServices", "SnapStore", "CSnapFuzz",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "SnapTestSupport",
            dependencies: [
                "SnapCore", "SnapFiles", "SnapImaging", "CTurboJPEG", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SnapTestSupport"),

        // MARK: Tests mirror Sources
        .testTarget(name: "SnapCoreTests", dependencies: ["SnapCore", "SnapTestSupport"]),
        .testTarget(name: "SnapTextTests", dependencies: ["SnapText", "SnapTestSupport"]),
        .testTarget(name: "SnapFilesTests", dependencies: ["SnapFiles", "SnapTestSupport"]),
        .testTarget(name: "SnapConfigTests", dependencies: ["SnapConfig", "SnapTestSupport"]),
        .testTarget(name: "SnapStoreTests", dependencies: ["SnapStore", "SnapTestSupport"]),
        .testTarget(name: "SnapImagingTests", dependencies: ["SnapImaging", "SnapTestSupport"]),
        .testTarget(name: "SnapScreensTests", dependencies: ["SnapScreens", "SnapText", "SnapTestSupport"]),
        .testTarget(name: "SnapJarTests", dependencies: ["SnapJar", "SnapScreens", "SnapCore", "SnapTestSupport"]),
        .testTarget(
            name: "SnapDevicesTests", dependencies: ["SnapDevices", "SnapFiles", "SnapScreens", "SnapTestSupport"]),
        .testTarget(name: "SnapServicesTests", dependencies: ["SnapServices", "SnapText", "SnapTestSupport"]),
        .testTarget(name: "SnapUpdatesTests", dependencies: ["SnapUpdates", "SnapCore", "SnapTestSupport"]),
        .testTarget(
            name: "SnapWebTests",
            dependencies: [
                "SnapWeb", "SnapText", "SnapTestSupport", "SnapCore", "SnapStore", "SnapConfig", "SnapServices",
                "SnapUpdates", "SnapFiles", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // The connection's deadlines on NIO's embedded loop, whose time the tests move.
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]),
        .testTarget(
            name: "SnapAppTests",
            dependencies: [
                "SnapApp", "SnapTestSupport", "SnapCore", "SnapStore", "SnapConfig", "SnapDevices", "SnapServices",
                "SnapWeb", "SnapText", "SnapFiles", "snapstation",
            ]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
