/// A look applied to the whole photo, blended with the original by an intensity from 0 (none) to 1.
/// The config names one; SnapImaging applies it (`PhotoFilter.apply`).
public enum PhotoFilter: String, Sendable, Hashable, Codable, CaseIterable {
    case sepia, mono, vivid, vignette, sharpen
}
