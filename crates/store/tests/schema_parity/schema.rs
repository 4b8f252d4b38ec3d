//! Both schemas read from live databases into one shape, and the
//! differences between them named one per line.

use sqlx::{PgPool, Row, SqlitePool};
use std::collections::{BTreeMap, BTreeSet};

/// SQLite INTEGER columns that hold a boolean: `boolean` in PostgreSQL,
/// because the store binds and reads them as `bool` (see the header of
/// migrations/postgres/0001_schema.sql).
pub const BOOLEAN_COLUMNS: &[(&str, &str)] = &[
    ("analyses", "offline"),
    ("ledger_entries", "allowed"),
    ("session_tally", "seeded"),
    ("session_tally", "has_experience"),
    ("session_tally", "record"),
    ("session_tally", "goal_achieved"),
    ("session_tally", "simulator_fault"),
];

#[derive(Debug, Default)]
pub struct Schema {
    pub tables: BTreeMap<String, Table>,
    pub views: BTreeSet<String>,
    /// `table.trigger`
    pub triggers: BTreeSet<String>,
}

#[derive(Debug, Default)]
pub struct Table {
    pub columns: BTreeMap<String, Column>,
    pub primary_key: Vec<String>,
    /// Every index but the primary key's, unique constraints included.
    pub indexes: BTreeSet<String>,
    pub foreign_keys: BTreeSet<String>,
    pub checks: usize,
}

#[derive(Debug)]
pub struct Column {
    /// The PostgreSQL type: the one it has, or for SQLite the one its
    /// declared type maps to.
    pub pg_type: String,
    /// SQLite's declared type (empty for PostgreSQL).
    pub declared: String,
    pub not_null: bool,
    pub default: Option<String>,
}

/// What an index is, whatever its name: `(a, b) unique where p`.
fn index(columns: &[String], unique: bool, predicate: &str) -> String {
    let mut out = format!("({})", columns.join(", "));
    if unique {
        out.push_str(" unique");
    }
    let predicate = normalize_expression(predicate);
    if !predicate.is_empty() {
        out.push_str(&format!(" where {predicate}"));
    }
    out
}

/// A predicate as both databases print it: PostgreSQL adds parentheses
/// and casts (`(status <> 'done'::text)`), SQLite keeps the source text.
fn normalize_expression(expression: &str) -> String {
    let mut out = expression.replace("!=", "<>").replace(['(', ')'], " ");
    for cast in [
        "::text",
        "::bigint",
        "::integer",
        "::double precision",
        "::boolean",
    ] {
        out = out.replace(cast, "");
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A default as SQLite prints it (`'none'`, `0`): PostgreSQL adds a cast
/// (`'none'::text`).
fn normalize_default(default: &str) -> String {
    let default = default.trim();
    if default.starts_with('\'')
        && let Some(end) = default.rfind('\'')
    {
        return default[..=end].to_string();
    }
    match default.split_once("::") {
        Some((value, _)) => value.trim_matches(['(', ')']).to_string(),
        None => default.to_string(),
    }
}

fn sqlite_to_pg_type(table: &str, column: &str, declared: &str) -> String {
    match declared.to_ascii_uppercase().as_str() {
        "INTEGER" if BOOLEAN_COLUMNS.contains(&(table, column)) => "boolean".into(),
        "INTEGER" => "bigint".into(),
        "REAL" => "double precision".into(),
        "TEXT" => "text COLLATE \"C\"".into(),
        other => format!("(no mapping for SQLite type {other})"),
    }
}

fn foreign_key(
    columns: &str,
    to: &str,
    to_columns: &str,
    on_delete: &str,
    on_update: &str,
) -> String {
    format!("({columns}) -> {to} ({to_columns}) on delete {on_delete} on update {on_update}")
}

/// Strips `-- comments` from SQL text.
fn without_comments(sql: &str) -> String {
    sql.lines()
        .map(|l| l.split_once("--").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n")
}

pub async fn read_sqlite(pool: &SqlitePool) -> Schema {
    let mut schema = Schema::default();
    let objects = sqlx::query(
        "SELECT type, name, tbl_name, coalesce(sql, '') AS sql FROM sqlite_master
         WHERE name NOT LIKE 'sqlite_%' AND name <> '_sqlx_migrations'",
    )
    .fetch_all(pool)
    .await
    .expect("reading sqlite_master");
    let mut index_sql = BTreeMap::new();
    for o in &objects {
        let (kind, name): (String, String) = (o.get("type"), o.get("name"));
        let (table, sql): (String, String) = (o.get("tbl_name"), o.get("sql"));
        match kind.as_str() {
            "table" => {
                let checks = without_comments(&sql).matches("CHECK").count();
                schema.tables.insert(
                    name,
                    Table {
                        checks,
                        ..Table::default()
                    },
                );
            }
            "view" => {
                schema.views.insert(name);
            }
            "trigger" => {
                schema.triggers.insert(format!("{table}.{name}"));
            }
            "index" => {
                index_sql.insert(name, sql);
            }
            _ => {}
        }
    }

    let columns = sqlx::query(
        "SELECT m.name AS tbl, p.name, p.type, p.\"notnull\", p.dflt_value, p.pk
         FROM sqlite_master m JOIN pragma_table_info(m.name) p
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> '_sqlx_migrations'
         ORDER BY m.name, p.pk",
    )
    .fetch_all(pool)
    .await
    .expect("reading the SQLite columns");
    for c in &columns {
        let (table, name, declared): (String, String, String) =
            (c.get("tbl"), c.get("name"), c.get("type"));
        let t = schema.tables.get_mut(&table).expect("a column of a table");
        if c.get::<i64, _>("pk") > 0 {
            t.primary_key.push(name.clone());
        }
        let column = Column {
            pg_type: sqlite_to_pg_type(&table, &name, &declared),
            declared,
            not_null: c.get::<i64, _>("notnull") != 0,
            default: c
                .get::<Option<String>, _>("dflt_value")
                .map(|d| normalize_default(&d)),
        };
        t.columns.insert(name, column);
    }

    let index_columns = sqlx::query(
        "SELECT m.name AS tbl, il.name AS idx, il.\"unique\" AS uniq, il.origin, ii.name AS col
         FROM sqlite_master m JOIN pragma_index_list(m.name) il JOIN pragma_index_info(il.name) ii
         WHERE m.type = 'table' AND m.name <> '_sqlx_migrations'
         ORDER BY m.name, il.name, ii.seqno",
    )
    .fetch_all(pool)
    .await
    .expect("reading the SQLite indexes");
    let mut indexes: BTreeMap<(String, String), (bool, Vec<String>)> = BTreeMap::new();
    for i in &index_columns {
        if i.get::<String, _>("origin") == "pk" {
            continue; // the primary key, compared as such
        }
        let entry = indexes
            .entry((i.get("tbl"), i.get("idx")))
            .or_insert_with(|| (i.get::<i64, _>("uniq") != 0, Vec::new()));
        entry.1.push(i.get("col"));
    }
    for ((table, name), (unique, columns)) in indexes {
        let sql = index_sql.get(&name).map(String::as_str).unwrap_or_default();
        let predicate = sql
            .find(" WHERE ")
            .map_or("", |at| &sql[at + " WHERE ".len()..]);
        let t = schema.tables.get_mut(&table).expect("an index of a table");
        t.indexes.insert(index(&columns, unique, predicate));
    }

    let keys = sqlx::query(
        "SELECT m.name AS tbl, f.id, f.\"table\" AS ref, f.\"from\" AS col, f.\"to\" AS ref_col,
                f.on_delete, f.on_update
         FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f
         WHERE m.type = 'table' ORDER BY m.name, f.id, f.seq",
    )
    .fetch_all(pool)
    .await
    .expect("reading the SQLite foreign keys");
    let mut grouped: BTreeMap<(String, i64), Vec<&sqlx::sqlite::SqliteRow>> = BTreeMap::new();
    for k in &keys {
        grouped
            .entry((k.get("tbl"), k.get("id")))
            .or_default()
            .push(k);
    }
    for ((table, _), rows) in grouped {
        let referenced: String = rows[0].get("ref");
        let columns: Vec<String> = rows.iter().map(|r| r.get("col")).collect();
        let ref_columns: Vec<String> = match rows[0].get::<Option<String>, _>("ref_col") {
            Some(_) => rows.iter().map(|r| r.get("ref_col")).collect(),
            // `REFERENCES t` alone names t's primary key.
            None => schema.tables[&referenced].primary_key.clone(),
        };
        let key = foreign_key(
            &columns.join(", "),
            &referenced,
            &ref_columns.join(", "),
            &rows[0].get::<String, _>("on_delete"),
            &rows[0].get::<String, _>("on_update"),
        );
        schema
            .tables
            .get_mut(&table)
            .expect("a key of a table")
            .foreign_keys
            .insert(key);
    }
    schema
}

pub async fn read_postgres(pool: &PgPool) -> Schema {
    let mut schema = Schema::default();
    let tables = sqlx::query(
        "SELECT tablename::text AS name FROM pg_tables
         WHERE schemaname = current_schema() AND tablename <> '_sqlx_migrations'",
    )
    .fetch_all(pool)
    .await
    .expect("reading the PostgreSQL tables");
    for t in &tables {
        schema.tables.insert(t.get("name"), Table::default());
    }
    let views = sqlx::query(
        "SELECT viewname::text AS name FROM pg_views WHERE schemaname = current_schema()",
    )
    .fetch_all(pool)
    .await
    .expect("reading the PostgreSQL views");
    schema.views = views.iter().map(|v| v.get("name")).collect();
    let triggers = sqlx::query(
        "SELECT c.relname::text || '.' || t.tgname::text AS name
         FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE NOT t.tgisinternal AND n.nspname = current_schema()",
    )
    .fetch_all(pool)
    .await
    .expect("reading the PostgreSQL triggers");
    schema.triggers = triggers.iter().map(|t| t.get("name")).collect();

    let columns = sqlx::query(
        "SELECT table_name::text AS tbl, column_name::text AS name, data_type::text AS ty,
                collation_name::text AS collation, is_nullable::text AS nullable,
                column_default::text AS dflt
         FROM information_schema.columns WHERE table_schema = current_schema()",
    )
    .fetch_all(pool)
    .await
    .expect("reading the PostgreSQL columns");
    for c in &columns {
        let Some(t) = schema.tables.get_mut(&c.get::<String, _>("tbl")) else {
            continue; // a view's
        };
        let mut pg_type: String = c.get("ty");
        if let Some(collation) = c.get::<Option<String>, _>("collation") {
            pg_type.push_str(&format!(" COLLATE \"{collation}\""));
        }
        let column = Column {
            pg_type,
            declared: String::new(),
            not_null: c.get::<String, _>("nullable") == "NO",
            default: c
                .get::<Option<String>, _>("dflt")
                .map(|d| normalize_default(&d)),
        };
        t.columns.insert(c.get("name"), column);
    }

    // Columns of an index or a constraint, in key order.
    let key_columns = |keys: &str, table: &str| {
        format!(
            "(SELECT string_agg(a.attname::text, ', ' ORDER BY key.n)
              FROM unnest({keys}) WITH ORDINALITY key(attnum, n)
              JOIN pg_attribute a ON a.attrelid = {table} AND a.attnum = key.attnum)"
        )
    };
    let indexes = sqlx::query(&format!(
        "SELECT c.relname::text AS tbl, i.indisprimary AS pk, i.indisunique AS uniq,
                coalesce(pg_get_expr(i.indpred, i.indrelid), '') AS pred, {} AS cols
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND c.relname <> '_sqlx_migrations'",
        key_columns("i.indkey::int2[]", "i.indrelid")
    ))
    .fetch_all(pool)
    .await
    .expect("reading the PostgreSQL indexes");
    for i in &indexes {
        let Some(t) = schema.tables.get_mut(&i.get::<String, _>("tbl")) else {
            continue;
        };
        let columns: Vec<String> = i
            .get::<String, _>("cols")
            .split(", ")
            .map(str::to_string)
            .collect();
        if i.get("pk") {
            t.primary_key = columns;
        } else {
            t.indexes
                .insert(index(&columns, i.get("uniq"), &i.get::<String, _>("pred")));
        }
    }

    let constraints = sqlx::query(&format!(
        "SELECT c.relname::text AS tbl, k.contype::text AS kind, r.relname::text AS ref,
                {} AS cols, {} AS ref_cols,
                CASE k.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT'
                    WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' END
                    AS on_delete,
                CASE k.confupdtype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT'
                    WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' END
                    AS on_update
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_class r ON r.oid = k.confrelid
         WHERE n.nspname = current_schema() AND k.contype IN ('f', 'c')",
        key_columns("k.conkey", "k.conrelid"),
        key_columns("k.confkey", "k.confrelid"),
    ))
    .fetch_all(pool)
    .await
    .expect("reading the PostgreSQL constraints");
    for k in &constraints {
        let Some(t) = schema.tables.get_mut(&k.get::<String, _>("tbl")) else {
            continue;
        };
        if k.get::<String, _>("kind") == "c" {
            t.checks += 1;
            continue;
        }
        t.foreign_keys.insert(foreign_key(
            &k.get::<String, _>("cols"),
            &k.get::<String, _>("ref"),
            &k.get::<String, _>("ref_cols"),
            &k.get::<String, _>("on_delete"),
            &k.get::<String, _>("on_update"),
        ));
    }
    schema
}

/// What one side has and the other lacks.
fn one_side(out: &mut Vec<String>, what: &str, sqlite: &BTreeSet<String>, pg: &BTreeSet<String>) {
    for x in sqlite.difference(pg) {
        out.push(format!("{what} {x}: in SQLite only"));
    }
    for x in pg.difference(sqlite) {
        out.push(format!("{what} {x}: in PostgreSQL only"));
    }
}

/// Every difference between the two schemas, one line each.
pub fn differences(sqlite: &Schema, pg: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    let names = |s: &Schema| s.tables.keys().cloned().collect::<BTreeSet<_>>();
    one_side(&mut out, "table", &names(sqlite), &names(pg));
    one_side(&mut out, "view", &sqlite.views, &pg.views);
    one_side(&mut out, "trigger", &sqlite.triggers, &pg.triggers);

    for (name, s) in &sqlite.tables {
        let Some(p) = pg.tables.get(name) else {
            continue;
        };
        let qualified = |set: &BTreeSet<String>| -> BTreeSet<String> {
            set.iter().map(|x| format!("{name}.{x}")).collect()
        };
        let columns = |t: &Table| qualified(&t.columns.keys().cloned().collect());
        one_side(&mut out, "column", &columns(s), &columns(p));
        let on = |set: &BTreeSet<String>| -> BTreeSet<String> {
            set.iter().map(|x| format!("on {name} {x}")).collect()
        };
        one_side(&mut out, "index", &on(&s.indexes), &on(&p.indexes));
        one_side(
            &mut out,
            "foreign key",
            &on(&s.foreign_keys),
            &on(&p.foreign_keys),
        );
        if s.primary_key != p.primary_key {
            out.push(format!(
                "table {name}: primary key ({}) in SQLite, ({}) in PostgreSQL",
                s.primary_key.join(", "),
                p.primary_key.join(", ")
            ));
        }
        if s.checks != p.checks {
            out.push(format!(
                "table {name}: {} CHECK constraints in SQLite, {} in PostgreSQL",
                s.checks, p.checks
            ));
        }
        for (column, sc) in &s.columns {
            let Some(pc) = p.columns.get(column) else {
                continue;
            };
            let at = format!("column {name}.{column}");
            if sc.pg_type != pc.pg_type {
                out.push(format!(
                    "{at}: SQLite {} maps to {}, PostgreSQL has {}",
                    sc.declared, sc.pg_type, pc.pg_type
                ));
            }
            let nullability = |not_null| if not_null { "NOT NULL" } else { "nullable" };
            if sc.not_null != pc.not_null {
                out.push(format!(
                    "{at}: {} in SQLite, {} in PostgreSQL",
                    nullability(sc.not_null),
                    nullability(pc.not_null)
                ));
            }
            if sc.default != pc.default {
                let shown = |d: &Option<String>| d.clone().unwrap_or_else(|| "no default".into());
                out.push(format!(
                    "{at}: default {} in SQLite, {} in PostgreSQL",
                    shown(&sc.default),
                    shown(&pc.default)
                ));
            }
        }
    }
    out
}
