/// The station's own account on the group's server (Supabase Auth), made or signed in to from the owner's
/// page: what the server said.
public enum GroupAccountOutcome: Sendable, Hashable {
    /// Signed in: the account works now.
    case signedIn
    /// Made, and the project asks for the email to be confirmed first (Auth without autoconfirm): the
    /// station signs in once it is.
    case confirmationSent
    /// Refused, with the server's HTTP status and its own words ("User already registered", a weak
    /// password, "Invalid login credentials").
    case refused(status: Int, words: String)
    /// The server was not reached, or did not answer as Supabase Auth.
    case failed(UploadFailure)
}

/// Makes the station's account on the group's server, or signs in to one it already has
/// (`GroupAccountOutcome`); SnapServices' `SupabaseAccounts` is the one the station uses.
public protocol GroupAccounts: Sendable {
    /// A new account for `email` with `password` (`POST /auth/v1/signup`).
    func signUp(email: String, password: String) async -> GroupAccountOutcome
    /// Signs in to an account the station already has (the password grant).
    func signIn(email: String, password: String) async -> GroupAccountOutcome
}
