internal import GRDB

extension StationStore {
    /// The schema, one migration per change; applied in order at open, never edited once shipped.
    static var migrator: DatabaseMigrator { migrator(upTo: nil) }

    /// The migrations up to `last` (all of them when nil): an older binary's, for the test that opens a
    /// newer store with it. Every migration only adds (tables, columns, rows), so the slot an update goes
    /// back to opens the store the update's slot migrated: GRDB applies what it knows and leaves the
    /// newer migrations alone.
    static func migrator(upTo last: String?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        var open = true
        func register(_ identifier: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
            guard open else { return }
            migrator.registerMigration(identifier, migrate: migrate)
            if identifier == last { open = false }
        }
        register("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE photos (
                        id TEXT PRIMARY KEY,
                        taken_at REAL NOT NULL,
                        photo_path TEXT NOT NULL,
                        thumbnail_path TEXT NOT NULL
                    );
                    CREATE INDEX photos_by_time ON photos (taken_at);
                    CREATE TABLE meals (
                        id TEXT PRIMARY KEY,
                        day TEXT NOT NULL,
                        taken_at REAL NOT NULL,
                        title TEXT NOT NULL,
                        calories INTEGER NOT NULL,
                        protein INTEGER NOT NULL,
                        carbs INTEGER NOT NULL,
                        fats INTEGER NOT NULL,
                        items_json TEXT NOT NULL,
                        photo_path TEXT NOT NULL,
                        thumbnail_path TEXT NOT NULL
                    );
                    CREATE INDEX meals_by_day ON meals (day);
                    CREATE TABLE ai_uses (
                        day TEXT PRIMARY KEY,
                        count INTEGER NOT NULL
                    );
                    CREATE TABLE group_sends (
                        group_name TEXT NOT NULL,
                        day TEXT NOT NULL,
                        photo_id TEXT NOT NULL,
                        PRIMARY KEY (group_name, day)
                    );
                    CREATE TABLE upload_jobs (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        photo_id TEXT NOT NULL UNIQUE,
                        group_name TEXT NOT NULL,
                        day TEXT NOT NULL,
                        photo_path TEXT NOT NULL,
                        taken_at REAL NOT NULL,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL,
                        next_attempt REAL NOT NULL,
                        last_error TEXT
                    );
                    CREATE INDEX upload_jobs_due ON upload_jobs (state, next_attempt);
                    """)
        }
        register("v2: stickers") { db in
            try db.execute(sql: "ALTER TABLE photos ADD COLUMN sticker_path TEXT")
        }
        register("v3: analysis jobs") { db in
            try db.execute(
                sql: """
                    CREATE TABLE analysis_jobs (
                        photo_id TEXT PRIMARY KEY,
                        photo_path TEXT NOT NULL,
                        thumbnail_path TEXT NOT NULL,
                        taken_at REAL NOT NULL,
                        day TEXT NOT NULL,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL,
                        next_attempt REAL NOT NULL,
                        last_error TEXT
                    );
                    CREATE INDEX analysis_jobs_due ON analysis_jobs (state, next_attempt);
                    """)
        }
        register("v4: the group's photos received, own photos removed from the server") { db in
            try db.execute(
                sql: """
                    CREATE TABLE received_photos (
                        photo_id TEXT PRIMARY KEY,
                        group_name TEXT NOT NULL,
                        member TEXT NOT NULL,
                        taken_at REAL NOT NULL,
                        expires_at REAL NOT NULL,
                        path TEXT NOT NULL,
                        bytes INTEGER NOT NULL
                    );
                    CREATE INDEX received_photos_expiry ON received_photos (expires_at);
                    CREATE TABLE inbox_failures (
                        photo_id TEXT PRIMARY KEY,
                        attempts INTEGER NOT NULL,
                        next_attempt REAL NOT NULL,
                        last_error TEXT NOT NULL
                    );
                    ALTER TABLE upload_jobs ADD COLUMN remote_removed INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        register("v5: durable analyses with their answers") { db in
            try db.execute(sql: "ALTER TABLE analysis_jobs ADD COLUMN answer_json TEXT")
        }
        register("v6: the owner's page: sessions, settings, meal edits, the shopping list") { db in
            try db.execute(
                sql: """
                    ALTER TABLE meals ADD COLUMN fun_fact TEXT;
                    ALTER TABLE meals ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
                    ALTER TABLE meals ADD COLUMN totals_set_by_owner INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE web_sessions (
                        token_hash TEXT PRIMARY KEY,
                        csrf TEXT NOT NULL,
                        name TEXT NOT NULL,
                        created REAL NOT NULL,
                        last_seen REAL NOT NULL
                    );
                    CREATE TABLE runtime_settings (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        json TEXT NOT NULL
                    );
                    CREATE TABLE shopping_items (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL,
                        amount REAL NOT NULL,
                        unit TEXT NOT NULL,
                        ticked INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        }
        register("v7: the jar: a meal keeps its sticker past the photo's retention") { db in
            try db.execute(
                sql: """
                    ALTER TABLE meals ADD COLUMN sticker_path TEXT;
                    UPDATE meals SET sticker_path = (SELECT sticker_path FROM photos WHERE photos.id = meals.id);
                    """)
        }
        register("v8: a meal's estimates the owner's corrections replaced") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meal_estimates (
                        meal_id TEXT NOT NULL,
                        replaced_at REAL NOT NULL,
                        sentence TEXT NOT NULL,
                        analysis_json TEXT NOT NULL
                    );
                    CREATE INDEX meal_estimates_by_meal ON meal_estimates (meal_id);
                    """)
        }
        register("v9: meals planned into the shopping list") { db in
            // A planned meal's lines are its own; what each added to a merged line of the list is kept in
            // shopping_shares, so deleting the meal takes back exactly its part.
            try db.execute(
                sql: """
                    CREATE TABLE planned_meals (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        title TEXT NOT NULL,
                        asked_name TEXT NOT NULL,
                        portions INTEGER NOT NULL,
                        units TEXT NOT NULL,
                        times_a_week INTEGER NOT NULL,
                        contains_json TEXT NOT NULL,
                        created REAL NOT NULL,
                        confirmed INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE planned_lines (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        plan_id INTEGER NOT NULL REFERENCES planned_meals(id) ON DELETE CASCADE,
                        name TEXT NOT NULL,
                        amount REAL NOT NULL,
                        unit TEXT NOT NULL
                    );
                    CREATE INDEX planned_lines_by_plan ON planned_lines (plan_id);
                    CREATE TABLE shopping_shares (
                        item_id INTEGER NOT NULL REFERENCES shopping_items(id) ON DELETE CASCADE,
                        plan_id INTEGER NOT NULL REFERENCES planned_meals(id) ON DELETE CASCADE,
                        amount REAL NOT NULL
                    );
                    CREATE INDEX shopping_shares_by_plan ON shopping_shares (plan_id);
                    """)
        }
        register("v10: received photos only under ids the station can parse") { db in
            // A member could share a photo whose id was a path ("../../x"), which older versions wrote
            // and deleted outside the inbox. Such rows name no file the station made: they go, and their
            // files (wherever they are) are left alone.
            try db.execute(
                sql: """
                    DELETE FROM received_photos
                    WHERE length(photo_id) NOT BETWEEN 1 AND 64 OR photo_id GLOB '*[^A-Za-z0-9_-]*';
                    DELETE FROM inbox_failures
                    WHERE length(photo_id) NOT BETWEEN 1 AND 64 OR photo_id GLOB '*[^A-Za-z0-9_-]*';
                    """)
        }
        register("v11: each day's totals kept as meals are written") { db in
            // History lists the days and charts a month: summing every meal ever logged for it grew with
            // the log (0.65 ms a page over a year). The triggers keep one row a day as meals come, change
            // and go, whoever writes them. A day's row is added only where there is none, not with
            // INSERT OR IGNORE: inside a trigger, the conflict clause of the statement that fired it wins,
            // and a meal saved again (INSERT OR REPLACE) would have replaced the day's row with zeros.
            let remove = """
                UPDATE day_totals SET meals = meals - 1, calories = calories - OLD.calories,
                    protein = protein - OLD.protein, carbs = carbs - OLD.carbs, fats = fats - OLD.fats
                WHERE day = OLD.day;
                DELETE FROM day_totals WHERE day = OLD.day AND meals <= 0;
                """
            let add = """
                INSERT INTO day_totals SELECT NEW.day, 0, 0, 0, 0, 0
                WHERE NOT EXISTS (SELECT 1 FROM day_totals WHERE day = NEW.day);
                UPDATE day_totals SET meals = meals + 1, calories = calories + NEW.calories,
                    protein = protein + NEW.protein, carbs = carbs + NEW.carbs, fats = fats + NEW.fats
                WHERE day = NEW.day;
                """
            try db.execute(
                sql: """
                    CREATE TABLE day_totals (
                        day TEXT PRIMARY KEY,
                        meals INTEGER NOT NULL,
                        calories INTEGER NOT NULL,
                        protein INTEGER NOT NULL,
                        carbs INTEGER NOT NULL,
                        fats INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    INSERT INTO day_totals
                    SELECT day, COUNT(*), SUM(calories), SUM(protein), SUM(carbs), SUM(fats) FROM meals GROUP BY day;
                    CREATE TRIGGER day_totals_meal_added AFTER INSERT ON meals BEGIN \(add) END;
                    CREATE TRIGGER day_totals_meal_removed AFTER DELETE ON meals BEGIN \(remove) END;
                    CREATE TRIGGER day_totals_meal_changed AFTER UPDATE OF day, calories, protein, carbs, fats ON meals
                    BEGIN \(remove) \(add) END;
                    """)
        }
        register("v12: what happened once, such as the first visit's walk-through") { db in
            try db.execute(
                sql: """
                    CREATE TABLE station_marks (
                        name TEXT PRIMARY KEY,
                        at REAL NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        register("v13: the household: people, each meal one person's") { db in
            // The owner is person 1, unnamed until they name themselves: every meal logged before there were
            // people is theirs, and their goals stay the station's (`[goals]`, the page's settings). Each
            // person's day totals are kept as `day_totals` keeps the household's, by triggers on meals.
            let remove = """
                UPDATE person_day_totals SET meals = meals - 1, calories = calories - OLD.calories,
                    protein = protein - OLD.protein, carbs = carbs - OLD.carbs, fats = fats - OLD.fats
                WHERE person = OLD.person AND day = OLD.day;
                DELETE FROM person_day_totals WHERE person = OLD.person AND day = OLD.day AND meals <= 0;
                """
            let add = """
                INSERT INTO person_day_totals SELECT NEW.person, NEW.day, 0, 0, 0, 0, 0
                WHERE NOT EXISTS (SELECT 1 FROM person_day_totals WHERE person = NEW.person AND day = NEW.day);
                UPDATE person_day_totals SET meals = meals + 1, calories = calories + NEW.calories,
                    protein = protein + NEW.protein, carbs = carbs + NEW.carbs, fats = fats + NEW.fats
                WHERE person = NEW.person AND day = NEW.day;
                """
            try db.execute(
                sql: """
                    CREATE TABLE people (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL,
                        colour TEXT NOT NULL,
                        goals_json TEXT,
                        ai_share INTEGER
                    );
                    INSERT INTO people (id, name, colour) VALUES (1, '', 'orange');
                    ALTER TABLE meals ADD COLUMN person INTEGER NOT NULL DEFAULT 1;
                    ALTER TABLE analysis_jobs ADD COLUMN person INTEGER NOT NULL DEFAULT 1;
                    CREATE TABLE person_day_totals (
                        person INTEGER NOT NULL,
                        day TEXT NOT NULL,
                        meals INTEGER NOT NULL,
                        calories INTEGER NOT NULL,
                        protein INTEGER NOT NULL,
                        carbs INTEGER NOT NULL,
                        fats INTEGER NOT NULL,
                        PRIMARY KEY (person, day)
                    ) WITHOUT ROWID;
                    INSERT INTO person_day_totals
                    SELECT person, day, COUNT(*), SUM(calories), SUM(protein), SUM(carbs), SUM(fats)
                    FROM meals GROUP BY person, day;
                    CREATE TRIGGER person_day_totals_meal_added AFTER INSERT ON meals BEGIN \(add) END;
                    CREATE TRIGGER person_day_totals_meal_removed AFTER DELETE ON meals BEGIN \(remove) END;
                    CREATE TRIGGER person_day_totals_meal_changed
                    AFTER UPDATE OF person, day, calories, protein, carbs, fats ON meals
                    BEGIN \(remove) \(add) END;
                    """)
        }
        register("v14: each person's analyses a day, against their share") { db in
            // `ai_uses` stays the station's count (the owner's bill, `ai.daily_limit`); this is who asked.
            // An older binary after a rollback counts only the station's: a person's count is then low.
            try db.execute(
                sql: """
                    CREATE TABLE person_ai_uses (
                        day TEXT NOT NULL,
                        person INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (day, person)
                    ) WITHOUT ROWID;
                    """)
        }
        register("v15: files named from ids, a restore's addresses to confirm, owners and members") { db in
            // The path columns stay for the older slot a rollback starts (it reads them), and are written
            // with the path the station makes; this binary reads only `files_day` and makes every path from
            // the row's id (`StationStore+Files.swift`). Rows from before get their day at open
            // (`fillFilesDays`). Browsers paired before there were roles keep the owner's rights they had.
            try db.execute(
                sql: """
                    ALTER TABLE photos ADD COLUMN files_day TEXT;
                    ALTER TABLE meals ADD COLUMN files_day TEXT;
                    ALTER TABLE analysis_jobs ADD COLUMN files_day TEXT;
                    ALTER TABLE upload_jobs ADD COLUMN files_day TEXT;
                    ALTER TABLE web_sessions ADD COLUMN role TEXT NOT NULL DEFAULT 'owner';
                    CREATE TABLE restored_settings (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        json TEXT NOT NULL
                    );
                    """)
        }
        register("v16: a household member's browser logs for one person") { db in
            // NULL: the owner's browser (it logs for anyone), or a member's that has not said who it is yet.
            try db.execute(sql: "ALTER TABLE web_sessions ADD COLUMN person INTEGER")
        }
        return migrator
    }
}
