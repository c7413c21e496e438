import SnapCore
import SnapImaging
import SnapText

/// What shows under the ready and countdown screens.
public enum LivePreview: Sendable {
    /// A camera frame drawn as the background.
    case image(PixelImage)
    /// The camera is on a display plane underneath: the background is left transparent.
    case behind
}

/// Draws a `Screen` onto a `Canvas`, with the live preview under the screens that show it.
public struct ScreenRenderer: Sendable {
    public var images: ScreenImages
    /// The language the screens speak (`station.language`).
    public var words: Words
    /// The display is dimmed (the owner's quiet hours): every screen is drawn darker.
    public var dimmed = false

    /// How much darker a dimmed screen is drawn: its texts stay readable across a room at night.
    public static let dimming = 0.6

    public init(images: ScreenImages, words: Words = Words()) {
        self.images = images
        self.words = words
    }

    public func draw(_ screen: Screen, preview: PixelImage?, jar: JarFrame? = nil, on canvas: Canvas) {
        draw(screen, live: preview.map(LivePreview.image), jar: jar, on: canvas)
    }

    /// Draws `screen`; `live` is what shows under the screens that show the camera, `jar` where the
    /// jar's stickers are (the ready screen in meal mode).
    public func draw(_ screen: Screen, live preview: LivePreview?, jar: JarFrame? = nil, on canvas: Canvas) {
        let layout = ScreenLayout(canvas.bounds)
        canvas.clear(.ink)
        switch screen {
        case .ready(let ready): drawReady(ready, preview: preview, jar: jar, canvas, layout)
        case .countdown(let countdown): drawCountdown(countdown, preview: preview, canvas, layout)
        case .capturing: drawCapturing(canvas, layout)
        case .processing(let processing): drawProcessing(processing, canvas, layout)
        case .retake(let retake): drawRetake(retake, canvas, layout)
        case .mealResult(let result): drawMealResult(result, canvas, layout)
        case .groupReview(let review): drawGroupReview(review, canvas, layout)
        case .uploading(let uploading): drawUploading(uploading, canvas, layout)
        case .sent(let group): drawSent(group: group, canvas, layout)
        case .locked(let lock): drawLock(lock, canvas, layout)
        case .problem(let problem): drawProblem(problem, canvas, layout)
        case .idle(let idle): drawIdle(idle, canvas, layout)
        case .pairing(let pairing): drawPairing(pairing, canvas, layout)
        case .menu(let menu): drawMenu(menu, canvas, layout)
        case .week(let week): drawWeek(week, canvas, layout)
        case .question(let question): drawQuestion(question, canvas, layout)
        }
        if dimmed { canvas.shade(Self.dimming) }
    }

    // MARK: Parts shared by several screens

    /// The camera picture, or a quiet placeholder when there is none yet.
    func background(_ preview: LivePreview?, _ canvas: Canvas) {
        switch preview {
        case .image(let image): background(image, canvas)
        case .behind: canvas.punch(canvas.bounds)
        case nil: background(nil as PixelImage?, canvas)
        }
    }

    func background(_ image: PixelImage?, _ canvas: Canvas, dim: Double = 0) {
        if let image {
            canvas.draw(image, in: canvas.bounds, cover: true)
        } else {
            canvas.fill(canvas.bounds, .panel)
        }
        if dim > 0 { canvas.fill(canvas.bounds, Color.black.opacity(dim)) }
    }

    /// A processed photo from disk, fitted into `rect`, or a placeholder.
    func photo(_ path: String, in rect: Rect, cover: Bool, _ canvas: Canvas) {
        if let image = images.file(path, Int(max(rect.width, rect.height))) {
            canvas.draw(image, in: rect, cover: cover)
        } else {
            canvas.fill(rect, .panel)
        }
    }

    /// The bottom bar that says what the button does now.
    func hint(_ text: String, _ canvas: Canvas, _ layout: ScreenLayout) {
        let (_, bar) = canvas.bounds.bottom(layout.bar(layout.small))
        canvas.fill(bar, Color.black.opacity(0.6))
        let line = Rect(x: bar.x + layout.margin / 2, y: bar.y, width: bar.width - layout.margin, height: bar.height)
        canvas.text(
            text, in: line, font: layout.small, color: .muted, alignment: .center, verticallyCentered: true,
            shrinkToFit: true)
    }

    /// A rounded box with a line of text, used for totals and flags.
    @discardableResult
    func chip(
        _ text: String, at x: Double, _ y: Double, maxWidth: Double, font: Font, fill: Color, color: Color = .white,
        _ canvas: Canvas
    ) -> Rect {
        let pad = font.size * 0.5
        let box = Rect(x: x, y: y, width: maxWidth, height: font.size * 1.7)
        canvas.fill(box, fill, radius: box.height / 2)
        let line = Rect(x: box.x + pad, y: box.y, width: box.width - 2 * pad, height: box.height)
        canvas.text(
            text, in: line, font: font, color: color, alignment: .center, verticallyCentered: true, shrinkToFit: true)
        return box
    }

    /// A bar of how far `value` is toward `goal`, read across a room: the part done in the accent colour,
    /// past the goal in the warning colour. Nothing without a goal.
    func progress(_ value: Int, goal: Int, in rect: Rect, _ canvas: Canvas) {
        guard let fraction = Macros.progress(value, of: goal), rect.width > 0, rect.height > 0 else { return }
        canvas.fill(rect, Color.white.opacity(0.2), radius: rect.height / 2)
        let done = Rect(
            x: rect.x, y: rect.y, width: max(rect.height, rect.width * min(1, fraction)), height: rect.height)
        canvas.fill(done, fraction > 1 ? Color.warn : Color.accent, radius: rect.height / 2)
    }

    /// An open ring with a gap, drawn as the "working" spinner.
    func spinner(centerX: Double, centerY: Double, radius: Double, _ canvas: Canvas) {
        canvas.arc(
            centerX: centerX, centerY: centerY, radius: radius, from: 0, to: 2 * .pi, Color.white.opacity(0.2),
            lineWidth: radius * 0.22)
        canvas.arc(
            centerX: centerX, centerY: centerY, radius: radius, from: -.pi / 2, to: .pi * 0.6, .accent,
            lineWidth: radius * 0.22)
    }
}
