//! One text of each statement for both backends, run on a connection of
//! either: the store functions are written once, against [`Conn`], and run
//! on a blocking thread that owns the connection (SQLite's writer thread or
//! a reader, or a PostgreSQL connection in a transaction).
//!
//! Statements are written for SQLite with `?` placeholders, in the SQL the
//! two backends share; PostgreSQL gets them numbered (`$1`, `$2`, ...). A
//! statement the backends spell differently names both ([`Sql::dialects`]).
//! The schema's types were chosen so that both bind and read the same Rust
//! values (see `migrations/postgres/0001_schema.sql`): ids and JSON as
//! text, times and counts as `i64`, flags as `bool`, reals as `f64`.

pub(crate) use crate::arg::{Arg, args};
use crate::db_error::DbResult;
use agenteval_domain::error::{Context, Error, Result};
use std::borrow::Cow;

/// A statement's text, per backend.
#[derive(Debug, Clone, Copy)]
pub struct Sql {
    sqlite: &'static str,
    postgres: Option<&'static str>,
}

impl Sql {
    /// A statement the backends spell differently. The PostgreSQL text may
    /// number its parameters itself (`$1`); otherwise its `?` are numbered.
    pub const fn dialects(sqlite: &'static str, postgres: &'static str) -> Self {
        Self {
            sqlite,
            postgres: Some(postgres),
        }
    }

    /// The text for SQLite.
    pub fn sqlite(&self) -> &'static str {
        self.sqlite
    }

    /// The text for PostgreSQL.
    pub fn postgres(&self) -> Cow<'static, str> {
        let text = self.postgres.unwrap_or(self.sqlite);
        if text.contains("$1") {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(numbered(text))
        }
    }
}

impl From<&'static str> for Sql {
    fn from(sqlite: &'static str) -> Self {
        Self {
            sqlite,
            postgres: None,
        }
    }
}

/// `?` placeholders as PostgreSQL numbers them, outside quoted text.
pub fn numbered(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let (mut n, mut quote) = (0, None);
    for c in sql.chars() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            ('?', None) => {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// What a column is read as on both backends.
pub trait Column:
    rusqlite::types::FromSql + for<'r> sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>
{
}

impl<T> Column for T where
    T: rusqlite::types::FromSql
        + for<'r> sqlx::Decode<'r, sqlx::Postgres>
        + sqlx::Type<sqlx::Postgres>
{
}

/// How a column is named on both backends: its position or its name.
pub trait Index: rusqlite::RowIndex + sqlx::ColumnIndex<sqlx::postgres::PgRow> + Copy {}

impl Index for usize {}
impl Index for &str {}

/// A row of a result, on either backend.
pub enum Row<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r sqlx::postgres::PgRow),
}

impl Row<'_> {
    /// Column `at`, as `T`.
    pub fn get<T: Column>(&self, at: impl Index) -> Result<T> {
        match self {
            Row::Sqlite(row) => row.get(at).db(),
            Row::Postgres(row) => sqlx::Row::try_get(*row, at).db(),
        }
    }

    /// Column `at`, text or null, borrowed from the row.
    pub fn text(&self, at: impl Index) -> Result<Option<&str>> {
        match self {
            Row::Sqlite(row) => row
                .get_ref(at)
                .db()?
                .as_str_or_null()
                .map_err(Error::internal),
            Row::Postgres(row) => sqlx::Row::try_get(*row, at).db(),
        }
    }

    /// Column `at`, text that may not be null, borrowed from the row.
    pub fn str(&self, at: impl Index) -> Result<&str> {
        match self {
            Row::Sqlite(row) => row.get_ref(at).db()?.as_str().map_err(Error::internal),
            Row::Postgres(row) => sqlx::Row::try_get(*row, at).db(),
        }
    }

    /// Column `at`, a UUID in its text form, read without allocating.
    pub fn uuid(&self, at: impl Index) -> Result<uuid::Uuid> {
        uuid::Uuid::parse_str(self.str(at)?).map_err(Error::internal)
    }
}

/// A connection of either backend, owned by the blocking thread that runs
/// the store function.
pub enum Conn<'c> {
    Sqlite(&'c rusqlite::Connection),
    Postgres(&'c crate::postgres::Session),
}

impl Conn<'_> {
    /// Whether this is PostgreSQL (for the rare statement that a backend
    /// needs and the other does not).
    pub fn is_postgres(&self) -> bool {
        matches!(self, Conn::Postgres(_))
    }

    /// Runs a statement; how many rows it changed.
    pub fn exec(&self, sql: impl Into<Sql>, args: &[Arg<'_>]) -> Result<u64> {
        let sql = sql.into();
        match self {
            Conn::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql.sqlite()).db()?;
                Ok(statement.execute(rusqlite::params_from_iter(args)).db()? as u64)
            }
            Conn::Postgres(session) => session.exec(&sql.postgres(), args),
        }
    }

    /// Runs a query and calls `each` on every row, in order, as it comes.
    pub fn each(
        &self,
        sql: impl Into<Sql>,
        args: &[Arg<'_>],
        mut each: impl FnMut(&Row<'_>) -> Result<()>,
    ) -> Result<()> {
        let sql = sql.into();
        match self {
            Conn::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql.sqlite()).db()?;
                let mut rows = statement.query(rusqlite::params_from_iter(args)).db()?;
                while let Some(row) = rows.next().db()? {
                    each(&Row::Sqlite(row))?;
                }
                Ok(())
            }
            Conn::Postgres(session) => {
                for row in session.fetch(&sql.postgres(), args)? {
                    each(&Row::Postgres(&row))?;
                }
                Ok(())
            }
        }
    }

    /// Runs a query; every row, mapped.
    pub fn rows<T>(
        &self,
        sql: impl Into<Sql>,
        args: &[Arg<'_>],
        mut map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.each(sql, args, |row| {
            out.push(map(row)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Runs a query; its first row, mapped, if there is one.
    pub fn row<T>(
        &self,
        sql: impl Into<Sql>,
        args: &[Arg<'_>],
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<Option<T>> {
        let sql = sql.into();
        match self {
            Conn::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql.sqlite()).db()?;
                let mut rows = statement.query(rusqlite::params_from_iter(args)).db()?;
                rows.next()
                    .db()?
                    .map(|row| map(&Row::Sqlite(row)))
                    .transpose()
            }
            Conn::Postgres(session) => session
                .fetch_optional(&sql.postgres(), args)?
                .map(|row| map(&Row::Postgres(&row)))
                .transpose(),
        }
    }

    /// Runs a query that yields exactly one value.
    pub fn value<T: Column>(&self, sql: impl Into<Sql>, args: &[Arg<'_>]) -> Result<T> {
        self.row(sql, args, |row| row.get(0))?.ok_or_else(|| {
            Error::internal(anyhow::anyhow!("a query for one value returned no row"))
        })
    }

    /// Runs statements without parameters, one after the other.
    pub fn batch(&self, sql: &str) -> Result<()> {
        match self {
            Conn::Sqlite(conn) => conn.execute_batch(sql).db(),
            Conn::Postgres(session) => session.batch(sql),
        }
    }

    /// The SQLite connection, for the statements that only SQLite runs.
    pub fn sqlite(&self) -> Result<&rusqlite::Connection> {
        match self {
            Conn::Sqlite(conn) => Ok(conn),
            Conn::Postgres(_) => Err(Error::internal(anyhow::anyhow!(
                "a statement for SQLite only was run on PostgreSQL"
            )))
            .context("store"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_numbered_outside_quotes() {
        assert_eq!(
            numbered("SELECT '?', \"a?\" FROM t WHERE a = ? AND b IN (?, ?)"),
            "SELECT '?', \"a?\" FROM t WHERE a = $1 AND b IN ($2, $3)"
        );
    }

    #[test]
    fn a_postgres_text_that_numbers_itself_is_kept() {
        let sql = Sql::dialects("SELECT ? + ?", "SELECT $1 + $1");
        assert_eq!(sql.postgres(), "SELECT $1 + $1");
        assert_eq!(Sql::from("SELECT ? + ?").postgres(), "SELECT $1 + $2");
    }
}
