//! A statement's parameters, typed even when null, and how SQLite binds
//! them (PostgreSQL's binding is in `postgres.rs`). Both the statements
//! over either backend (`sql.rs`) and the PostgreSQL session use them.

use std::borrow::Cow;

/// A parameter of a statement, typed even when null: PostgreSQL checks a
/// parameter's type against its column.
#[derive(Debug, Clone)]
pub enum Arg<'a> {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<Cow<'a, str>>),
    Bool(Option<bool>),
}

macro_rules! arg_from {
    ($($t:ty => |$v:ident| $e:expr),* $(,)?) => {
        $(impl<'a> From<$t> for Arg<'a> {
            fn from($v: $t) -> Self {
                $e
            }
        })*
    };
}

arg_from! {
    i64 => |v| Arg::Int(Some(v)),
    Option<i64> => |v| Arg::Int(v),
    u32 => |v| Arg::Int(Some(i64::from(v))),
    Option<u32> => |v| Arg::Int(v.map(i64::from)),
    f64 => |v| Arg::Real(Some(v)),
    Option<f64> => |v| Arg::Real(v),
    bool => |v| Arg::Bool(Some(v)),
    Option<bool> => |v| Arg::Bool(v),
    String => |v| Arg::Text(Some(Cow::Owned(v))),
    Option<String> => |v| Arg::Text(v.map(Cow::Owned)),
    &'a str => |v| Arg::Text(Some(Cow::Borrowed(v))),
    &'a String => |v| Arg::Text(Some(Cow::Borrowed(v.as_str()))),
    Option<&'a str> => |v| Arg::Text(v.map(Cow::Borrowed)),
    &'a Option<String> => |v| Arg::Text(v.as_deref().map(Cow::Borrowed)),
    uuid::Uuid => |v| Arg::Text(Some(Cow::Owned(v.to_string()))),
    Option<uuid::Uuid> => |v| Arg::Text(v.map(|v| Cow::Owned(v.to_string()))),
}

/// The parameters of a statement: `args![a, b]` is `&[Arg::from(a), ...]`.
macro_rules! args {
    ($($a:expr),* $(,)?) => {
        &[$($crate::arg::Arg::from($a)),*][..]
    };
}
pub(crate) use args;

impl rusqlite::ToSql for Arg<'_> {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value, ValueRef};
        Ok(match self {
            Arg::Int(v) => v.map_or(ToSqlOutput::Owned(Value::Null), |v| v.into()),
            Arg::Real(v) => v.map_or(ToSqlOutput::Owned(Value::Null), |v| v.into()),
            Arg::Bool(v) => v.map_or(ToSqlOutput::Owned(Value::Null), |v| v.into()),
            Arg::Text(Some(v)) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
            Arg::Text(None) => ToSqlOutput::Owned(Value::Null),
        })
    }
}
