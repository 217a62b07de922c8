#if Postgres
/// The tables, indexes and triggers Micro keeps in PostgreSQL, created when missing.
///
/// Every change to `users` (by an instance, `add-user`, `remove-user` or plain SQL) and every
/// revocation is announced on the channel `micro_changes` by a trigger: `u` and the lowercased
/// name (`u*` after a TRUNCATE), `r` and the revocation.
enum PostgresSchema {
    /// The advisory lock instances take while creating the schema.
    static let lockKey: Int64 = 0x6d69_6372_6f00_0001

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS users (
            username text NOT NULL,
            password_hash text NOT NULL,
            name text
        )
        """,
        // Role names separated by spaces: added to a table made before users had roles.
        "ALTER TABLE users ADD COLUMN IF NOT EXISTS roles text",
        "CREATE UNIQUE INDEX IF NOT EXISTS users_username_key ON users (lower(username))",
        // Where mail to the user goes, and whether their password was set by someone else:
        // added to a table made before either.
        "ALTER TABLE users ADD COLUMN IF NOT EXISTS email text",
        "ALTER TABLE users ADD COLUMN IF NOT EXISTS password_change_due boolean NOT NULL DEFAULT false",
        "CREATE UNIQUE INDEX IF NOT EXISTS users_email_key ON users (lower(email))",
        """
        CREATE OR REPLACE FUNCTION micro_users_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'TRUNCATE' THEN
                PERFORM pg_notify('micro_changes', 'u*');
                RETURN NULL;
            END IF;
            IF TG_OP IN ('UPDATE', 'DELETE') THEN
                PERFORM pg_notify('micro_changes', 'u' || lower(OLD.username));
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                PERFORM pg_notify('micro_changes', 'u' || lower(NEW.username));
            END IF;
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE TRIGGER micro_users_changed AFTER INSERT OR UPDATE OR DELETE ON users
            FOR EACH ROW EXECUTE FUNCTION micro_users_changed()
        """,
        """
        CREATE OR REPLACE TRIGGER micro_users_truncated AFTER TRUNCATE ON users
            FOR EACH STATEMENT EXECUTE FUNCTION micro_users_changed()
        """,
        // When a revocation took effect, in milliseconds since 1970; when it may go, in seconds.
        """
        CREATE TABLE IF NOT EXISTS micro_session_revocations (
            kind text NOT NULL,
            subject text NOT NULL,
            revoked_at_ms bigint NOT NULL,
            expires_at bigint NOT NULL,
            PRIMARY KEY (kind, subject)
        )
        """,
        // A table from before revocations were timed to the millisecond held seconds in
        // `revoked_at`: converted and renamed in one statement, each row taken as revoked at the
        // end of its second (it ends the sessions begun in that second, as it did). Converted
        // first: the trigger of that time, which fires on the update, names the old column.
        """
        DO $$
        BEGIN
            IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'micro_session_revocations'::regclass
                    AND attname = 'revoked_at' AND NOT attisdropped) THEN
                UPDATE micro_session_revocations SET revoked_at = revoked_at * 1000 + 999;
                ALTER TABLE micro_session_revocations RENAME COLUMN revoked_at TO revoked_at_ms;
            END IF;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION micro_revocations_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('micro_changes',
                'r' || NEW.kind || ' ' || NEW.revoked_at_ms || ' ' || NEW.expires_at || ' ' || NEW.subject);
            RETURN NULL;
        END $$
        """,
        """
        CREATE OR REPLACE TRIGGER micro_revocations_changed AFTER INSERT OR UPDATE ON micro_session_revocations
            FOR EACH ROW EXECUTE FUNCTION micro_revocations_changed()
        """,
    ]
}
#endif
