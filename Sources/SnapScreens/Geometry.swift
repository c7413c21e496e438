import SnapImaging

/// A rectangle in device pixels.
public struct Rect: Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var midX: Double { x + width / 2 }
    public var midY: Double { y + height / 2 }

    /// The rectangle shrunk by `amount` on every side.
    public func inset(_ amount: Double) -> Rect {
        Rect(x: x + amount, y: y + amount, width: max(0, width - 2 * amount), height: max(0, height - 2 * amount))
    }

    /// Splits off the top `height` pixels: (top, rest).
    public func top(_ height: Double) -> (Rect, Rect) {
        let height = min(height, self.height)
        return (
            Rect(x: x, y: y, width: width, height: height),
            Rect(x: x, y: y + height, width: width, height: self.height - height)
        )
    }

    /// Splits off the bottom `height` pixels: (rest, bottom).
    public func bottom(_ height: Double) -> (Rect, Rect) {
        let height = min(height, self.height)
        return (
            Rect(x: x, y: y, width: width, height: self.height - height),
            Rect(x: x, y: maxY - height, width: width, height: height)
        )
    }

    /// The smallest rectangle holding both.
    public func union(_ other: Rect) -> Rect {
        let (left, top) = (min(x, other.x), min(y, other.y))
        return Rect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    /// The whole pixels the rectangle touches, inside `bounds` (nil: none).
    public func pixels(inside bounds: Rect) -> PixelRegion? {
        let (left, top) = (Int(max(x, bounds.x).rounded(.down)), Int(max(y, bounds.y).rounded(.down)))
        let (right, bottom) = (Int(min(maxX, bounds.maxX).rounded(.up)), Int(min(maxY, bounds.maxY).rounded(.up)))
        guard right > left, bottom > top else { return nil }
        return PixelRegion(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Splits off the left `width` pixels: (left, rest).
    public func left(_ width: Double) -> (Rect, Rect) {
        let width = min(width, self.width)
        return (
            Rect(x: x, y: y, width: width, height: height),
            Rect(x: x + width, y: y, width: self.width - width, height: height)
        )
    }
}

/// A colour with alpha, each component 0…1.
public struct Color: Sendable, Hashable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(_ red: Double, _ green: Double, _ blue: Double, _ alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// 0xRRGGBB.
    public init(rgb: UInt32) {
        self.init(Double(rgb >> 16 & 0xFF) / 255, Double(rgb >> 8 & 0xFF) / 255, Double(rgb & 0xFF) / 255)
    }

    public func opacity(_ alpha: Double) -> Color { Color(red, green, blue, alpha) }

    public static let white = Color(1, 1, 1)
    public static let black = Color(0, 0, 0)
    /// The station's palette: dark panels, a warm accent, and signal colours.
    public static let ink = Color(0.09, 0.10, 0.12)
    public static let panel = Color(0.13, 0.14, 0.17)
    public static let muted = Color(0.70, 0.72, 0.76)
    public static let accent = Color(1.0, 0.62, 0.16)
    public static let good = Color(0.20, 0.75, 0.42)
    public static let bad = Color(0.91, 0.30, 0.27)
    public static let warn = Color(0.98, 0.76, 0.20)
}

/// A font size and weight; the family is the station's one sans face.
public struct Font: Sendable, Hashable {
    public var size: Double
    public var bold: Bool
    public init(size: Double, bold: Bool = false) {
        self.size = size
        self.bold = bold
    }
}
