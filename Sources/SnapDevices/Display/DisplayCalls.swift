import CSnapDisplay

/// An opaque handle from the display layer: an open DRM output or framebuffer.
public struct DisplayHandle: DriverHandle {
    public var raw: UInt
    public init(raw: UInt) { self.raw = raw }
}

/// The DRM output that was opened.
public struct DRMOutput: Sendable, Hashable {
    public var card: String
    public var driver: String
    public var connector: String
    public var width: Int
    public var height: Int
    public var refreshHz: Double
    /// Bytes per row of the buffers.
    public var stride: Int
    public init(
        card: String, driver: String, connector: String, width: Int, height: Int, refreshHz: Double, stride: Int
    ) {
        self.card = card
        self.driver = driver
        self.connector = connector
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
        self.stride = stride
    }
}

/// A framebuffer device's geometry and pixel layout.
public struct FramebufferInfo: Sendable, Hashable {
    public var id: String
    public var width: Int
    public var height: Int
    public var bitsPerPixel: Int
    public var stride: Int
    /// Red in the high bits (RGB565, XRGB8888) rather than the low ones (BGR).
    public var redHigh: Bool
    public init(id: String, width: Int, height: Int, bitsPerPixel: Int, stride: Int, redHigh: Bool = true) {
        self.id = id
        self.width = width
        self.height = height
        self.bitsPerPixel = bitsPerPixel
        self.stride = stride
        self.redHigh = redHigh
    }
}

/// What `snapstation selftest` reports about a DRM card.
public struct DRMCardInfo: Sendable, Hashable {
    public struct Connector: Sendable, Hashable {
        public var name: String
        public var connected: Bool
        public var width: Int
        public var height: Int
        public var refreshHz: Double
    }
    public var driver: String
    public var kms: Bool
    public var masterAvailable: Bool
    public var connectors: [Connector]
    public var planes: Int
    /// Planes that take NV12 or YUV420: a camera buffer could be scanned out without a copy.
    public var yuvPlanes: Int
}

/// The display operations the station makes, one per call of the ss_display shim, as a table that tests
/// can replace (see `GPIOCalls`). `LibDRM` is the real one.
public protocol DisplayCalls: Sendable {
    func openDRM(card: String, connector: String, width: Int, height: Int)
        -> Result<(DisplayHandle, DRMOutput), DriverFailure>
    /// The buffer not on screen, `stride * height` bytes.
    func backBuffer(_ output: DisplayHandle) -> UnsafeMutablePointer<UInt8>
    /// Shows the back buffer, waiting at most `timeout` for the flip.
    func present(_ output: DisplayHandle, timeout: Duration) -> Result<Void, SystemError>
    func closeDRM(_ output: DisplayHandle)
    /// Turns the panel off or on (the connector's DPMS).
    func setPower(_ output: DisplayHandle, on: Bool) -> Result<Void, SystemError>
    /// Finds a plane that scans out `format` and an ARGB8888 plane above it for the screens.
    func enableVideo(_ output: DisplayHandle, format: FourCC) -> Result<Void, DriverFailure>
    /// The screens' buffer not on screen in video mode (premultiplied ARGB, `stride` bytes per row).
    func videoScreenBuffer(_ output: DisplayHandle) -> UnsafeMutablePointer<UInt8>
    /// A framebuffer of a camera buffer, without a copy.
    func importVideo(_ output: DisplayHandle, _ scanout: Scanout) -> Result<UInt32, SystemError>
    func forgetVideo(_ output: DisplayHandle, framebuffer: UInt32)
    /// Shows `framebuffer` (0: none) under the screens' buffer in one commit, and waits for it.
    func presentVideo(_ output: DisplayHandle, framebuffer: UInt32, width: Int, height: Int, timeout: Duration)
        -> Result<Void, SystemError>
    func describeDRM(card: String) -> Result<DRMCardInfo, SystemError>
    func openFramebuffer(_ path: String) -> Result<(DisplayHandle, FramebufferInfo), SystemError>
    func framebufferMemory(_ framebuffer: DisplayHandle) -> UnsafeMutablePointer<UInt8>
    func closeFramebuffer(_ framebuffer: DisplayHandle)
}

/// The real display layer: libdrm and fbdev through the ss_display shim.
public struct LibDRM: DisplayCalls {
    public init() {}

    public func openDRM(card: String, connector: String, width: Int, height: Int)
        -> Result<(DisplayHandle, DRMOutput), DriverFailure>
    {
        var drm: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        let result = ss_drm_open(card, connector, UInt32(width), UInt32(height), &drm, &message, message.count)
        guard result == 0 else {
            return .failure(DriverFailure(SystemError(negative: result), cString(message)))
        }
        var info = ss_drm_info()
        ss_drm_info_get(drm, &info)
        let output = DRMOutput(
            card: text(info.card), driver: text(info.driver), connector: text(info.connector),
            width: Int(info.width), height: Int(info.height), refreshHz: Double(info.refresh_mhz) / 1000,
            stride: Int(info.stride))
        return .success((DisplayHandle(drm), output))
    }

    public func backBuffer(_ output: DisplayHandle) -> UnsafeMutablePointer<UInt8> {
        ss_drm_back_buffer(output.pointer)
    }

    public func present(_ output: DisplayHandle, timeout: Duration) -> Result<Void, SystemError> {
        let result = ss_drm_present(output.pointer, Int32(timeout.seconds * 1000))
        return SystemError.check(result)
    }

    public func closeDRM(_ output: DisplayHandle) { ss_drm_close(output.pointer) }

    public func setPower(_ output: DisplayHandle, on: Bool) -> Result<Void, SystemError> {
        SystemError.check(ss_drm_set_power(output.pointer, on))
    }

    public func enableVideo(_ output: DisplayHandle, format: FourCC) -> Result<Void, DriverFailure> {
        var message = [CChar](repeating: 0, count: 256)
        let result = ss_drm_video_enable(output.pointer, format.rawValue, &message, message.count)
        return result < 0 ? .failure(DriverFailure(SystemError(negative: result), cString(message))) : .success(())
    }

    public func videoScreenBuffer(_ output: DisplayHandle) -> UnsafeMutablePointer<UInt8> {
        ss_drm_video_ui_buffer(output.pointer)
    }

    public func importVideo(_ output: DisplayHandle, _ scanout: Scanout) -> Result<UInt32, SystemError> {
        var framebuffer: UInt32 = 0
        let result = ss_drm_video_import(
            output.pointer, scanout.planes.map(\.fd), scanout.planes.map { UInt32($0.stride) },
            scanout.planes.map { UInt32($0.offset) }, Int32(scanout.planes.count), scanout.format.rawValue,
            UInt32(scanout.width), UInt32(scanout.height), &framebuffer)
        return SystemError.check(result).map { framebuffer }
    }

    public func forgetVideo(_ output: DisplayHandle, framebuffer: UInt32) {
        ss_drm_video_forget(output.pointer, framebuffer)
    }

    public func presentVideo(_ output: DisplayHandle, framebuffer: UInt32, width: Int, height: Int, timeout: Duration)
        -> Result<Void, SystemError>
    {
        let result = ss_drm_video_present(
            output.pointer, framebuffer, UInt32(width), UInt32(height), Int32(timeout.seconds * 1000))
        return SystemError.check(result)
    }

    public func describeDRM(card: String) -> Result<DRMCardInfo, SystemError> {
        var info = ss_drm_card_info()
        let result = ss_drm_describe(card, &info)
        guard result == 0 else { return .failure(SystemError(negative: result)) }
        let connectors = withUnsafeBytes(of: info.connectors) { raw in
            Array(raw.bindMemory(to: ss_drm_connector_info.self).prefix(Int(info.connector_count)))
        }
        return .success(
            DRMCardInfo(
                driver: text(info.driver), kms: info.kms, masterAvailable: info.master_available,
                connectors: connectors.map {
                    DRMCardInfo.Connector(
                        name: text($0.name), connected: $0.connected, width: Int($0.width), height: Int($0.height),
                        refreshHz: Double($0.refresh_mhz) / 1000)
                }, planes: Int(info.plane_count), yuvPlanes: Int(info.yuv_planes)))
    }

    public func openFramebuffer(_ path: String) -> Result<(DisplayHandle, FramebufferInfo), SystemError> {
        var fb: OpaquePointer?
        let result = ss_fb_open(path, &fb)
        guard result == 0 else { return .failure(SystemError(negative: result)) }
        var info = ss_fb_info()
        ss_fb_info_get(fb, &info)
        return .success(
            (
                DisplayHandle(fb),
                FramebufferInfo(
                    id: text(info.id), width: Int(info.width), height: Int(info.height),
                    bitsPerPixel: Int(info.bits_per_pixel), stride: Int(info.stride),
                    redHigh: info.red_offset > info.blue_offset)
            ))
    }

    public func framebufferMemory(_ framebuffer: DisplayHandle) -> UnsafeMutablePointer<UInt8> {
        ss_fb_memory(framebuffer.pointer)
    }

    public func closeFramebuffer(_ framebuffer: DisplayHandle) { ss_fb_close(framebuffer.pointer) }
}

/// A fixed-size C char array (a tuple in Swift) as a String.
func text<Tuple>(_ tuple: Tuple) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

func cString(_ characters: [CChar]) -> String {
    String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
