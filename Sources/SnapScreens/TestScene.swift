import Foundation
import SnapImaging

/// The simulated camera's picture: a table top with a plate of food that drifts slowly, and a clock, so
/// that successive frames differ and a still shows when it was taken.
public enum TestScene {
    /// Draws the scene at `width` × `height` for the moment `seconds` after start; without the plate it is
    /// the empty table, the reference a sticker is cut against.
    public static func frame(width: Int, height: Int, seconds: Double, label: String, plate: Bool = true) -> PixelImage
    {
        Canvas.drawing(width: width, height: height) { canvas in
            draw(on: canvas, seconds: seconds, label: label, plate: plate)
        }
    }

    private static func draw(on canvas: Canvas, seconds: Double, label: String, plate: Bool) {
        let (width, height) = (canvas.width, canvas.height)
        let w = Double(width)
        let h = Double(height)
        let short = min(w, h)
        // Wooden table: bands of warm brown.
        canvas.fill(canvas.bounds, Color(0.55, 0.38, 0.24))
        for band in 0..<12 {
            let y = Double(band) * h / 12
            canvas.fill(Rect(x: 0, y: y, width: w, height: h / 24), Color(0.50, 0.34, 0.21, 0.6))
        }
        guard plate else { return }
        // The plate drifts on a small circle so the preview visibly moves.
        let cx = w / 2 + cos(seconds * 0.6) * short * 0.05
        let cy = h / 2 + sin(seconds * 0.6) * short * 0.04
        let plate = short * 0.36
        canvas.arc(
            centerX: cx, centerY: cy, radius: plate / 2, from: 0, to: 2 * .pi, Color(0.95, 0.95, 0.93), lineWidth: plate
        )
        canvas.arc(
            centerX: cx, centerY: cy, radius: plate * 0.82, from: 0, to: 2 * .pi, Color(0.85, 0.85, 0.82),
            lineWidth: short * 0.012)
        // Food: pasta, sauce and greens.
        canvas.arc(
            centerX: cx - plate * 0.2, centerY: cy, radius: plate * 0.18, from: 0, to: 2 * .pi, Color(0.96, 0.82, 0.45),
            lineWidth: plate * 0.36)
        canvas.arc(
            centerX: cx + plate * 0.25, centerY: cy - plate * 0.15, radius: plate * 0.1, from: 0, to: 2 * .pi,
            Color(0.80, 0.18, 0.12), lineWidth: plate * 0.2)
        canvas.arc(
            centerX: cx + plate * 0.2, centerY: cy + plate * 0.3, radius: plate * 0.08, from: 0, to: 2 * .pi,
            Color(0.25, 0.6, 0.22), lineWidth: plate * 0.16)
        // The label sits on the table's right edge, clear of the bars the screens draw at top and bottom.
        canvas.text(
            label, in: Rect(x: w * 0.55, y: h * 0.2, width: w * 0.43, height: short * 0.2),
            font: Font(size: short * 0.04),
            color: Color(1, 1, 1, 0.85), alignment: .trailing, maxLines: 3)
    }

    /// The scene as the simulated camera draws it, with the plate.
    public static let cameraScene: @Sendable (Int, Int, Double, String) -> PixelImage = {
        width, height, seconds, label in
        frame(width: width, height: height, seconds: seconds, label: label)
    }
}
