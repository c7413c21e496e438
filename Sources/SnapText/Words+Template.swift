extension Words {
    /// A text of the catalog read once and filled many times: a page's rows fill the same few texts, and
    /// a fill by name builds a dictionary and searches the text for braces each time. A template splits
    /// the text (each plural form) at its placeholders once; a fill joins the pieces with the values in
    /// the order of the `names` it was made with. A placeholder it was not given a name for stays as it
    /// is written, as a fill by name leaves it.
    ///
    ///     let line = words.template("page.macros", ["protein", "carbs", "fats"])
    ///     line("24", "80", "22")                      // "P 24 · C 80 · F 22 g"
    ///     let day = words.template("page.history.day", ["count", "kcal"])
    ///     day(count: 3, words.integer(3), "1,920 kcal")
    public struct Template: Sendable {
        /// One form: the text between the placeholders, and for each placeholder the value's index.
        struct Form: Sendable {
            var pieces: [String]
            var slots: [Int]
            /// The pieces' bytes, together: what a filled text needs besides its values.
            var length = 0
        }

        private let forms: [PluralRule.Category: Form]
        /// The `.other` form, or the only one: looked up once, not once a row.
        private let other: Form?
        private let rule: PluralRule
        private let key: String

        init(_ entry: Catalog.Entry?, key: String, names: [String], rule: PluralRule) {
            self.key = key
            self.rule = rule
            switch entry {
            case .text(let text)?: forms = [.other: Self.split(text, names)]
            case .plural(let texts)?: forms = texts.mapValues { Self.split($0, names) }
            case nil: forms = [:]
            }
            other = forms[.other]
        }

        /// The text with `values` in its placeholders.
        public func callAsFunction(_ values: String...) -> String { self(values) }

        public func callAsFunction(_ values: [String]) -> String { fill(other, values) }

        /// The form for `count` with `values` in its placeholders (the count among them, as written).
        public func callAsFunction(count: Int, _ values: String...) -> String { self(count: count, values) }

        public func callAsFunction(count: Int, _ values: [String]) -> String {
            fill(forms[rule.category(count)] ?? other, values)
        }

        private func fill(_ form: Form?, _ values: [String]) -> String {
            guard let form else { return key }
            var text = ""
            text.reserveCapacity(form.length + values.reduce(0) { $0 + $1.utf8.count })
            text += form.pieces[0]
            for (index, slot) in form.slots.enumerated() {
                text += values[slot]
                text += form.pieces[index + 1]
            }
            return text
        }

        private static func split(_ text: String, _ names: [String]) -> Form {
            var form = Form(pieces: [""], slots: [])
            let bytes = text.utf8
            var copied = bytes.startIndex
            while let open = bytes[copied...].firstIndex(of: UInt8(ascii: "{")),
                let close = bytes[open...].firstIndex(of: UInt8(ascii: "}"))
            {
                let name = String(text[bytes.index(after: open)..<close])
                let after = bytes.index(after: close)
                if let slot = names.firstIndex(of: name) {
                    form.pieces[form.pieces.count - 1] += text[copied..<open]
                    form.slots.append(slot)
                    form.pieces.append("")
                } else {
                    form.pieces[form.pieces.count - 1] += text[copied..<after]
                }
                copied = after
            }
            form.pieces[form.pieces.count - 1] += text[copied...]
            form.length = form.pieces.reduce(0) { $0 + $1.utf8.count }
            return form
        }
    }

    /// `key`'s text as a template whose placeholders are filled in the order of `names`.
    public func template(_ key: String, _ names: [String]) -> Template {
        let catalog = Catalog.of(language)
        return Template(
            catalog.entries[key] ?? Catalog.of(.en).entries[key], key: key, names: names, rule: catalog.plural)
    }
}
