import SnapDevices
import SnapImaging
import SnapScreens

// The tests draw their frames with the screens' canvas; the displays take pixels.
extension Display {
    func present(_ canvas: Canvas, change: FrameChange) throws(DeviceError) {
        try canvas.withFrame { frame throws(DeviceError) in try present(frame, change: change) }
    }
}

extension ScanoutDisplay {
    func present(_ canvas: Canvas, over preview: PreviewFrame) throws(DeviceError) -> Bool {
        try canvas.withFrame { frame throws(DeviceError) in try present(frame, over: preview) }
    }
}
