/// The station's version, shown on the owner's status page and in `snapstation --version`.
public enum StationVersion {
    public static let current = "0.5.0"
}
