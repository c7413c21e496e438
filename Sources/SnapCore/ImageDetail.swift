/// How much of the photo the AI model examines (OpenAI's `detail`).
public enum ImageDetail: String, Sendable, Hashable, CaseIterable {
    /// The model sees a 512 × 512 version: a fixed, small cost.
    case low
    /// The model fits the image in 2048 × 2048, then scales its shortest side to 768 and reads it in
    /// 512-pixel tiles.
    case high
}
