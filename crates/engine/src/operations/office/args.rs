//! The arguments of a call, read defensively: the caller validated them
//! against the schema, but a wrong type here is `INVALID_ARGUMENTS`, never
//! a panic.

use super::words::{Failure, invalid};
use serde_json::Value;

/// A string argument; `None` when absent or null.
pub(crate) fn text<'a>(args: &'a Value, name: &str) -> Result<Option<&'a str>, Failure> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(
            format!("{name} must be a string"),
            format!("{name} 必须是字符串"),
        )),
    }
}

/// A string argument that must be there.
pub(crate) fn required<'a>(args: &'a Value, name: &str) -> Result<&'a str, Failure> {
    match text(args, name)? {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(invalid(
            format!("{name} is required"),
            format!("缺少必填参数 {name}"),
        )),
    }
}

/// A positive whole number; `None` when absent.
pub(crate) fn count(args: &Value, name: &str) -> Result<Option<u64>, Failure> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }) {
            Some(n) if n >= 1 => Ok(Some(n)),
            _ => Err(invalid(
                format!("{name} must be a whole number from 1"),
                format!("{name} 必须是从 1 开始的整数"),
            )),
        },
    }
}

/// An array of strings; empty when absent.
pub(crate) fn texts(args: &Value, name: &str) -> Result<Vec<String>, Failure> {
    let wrong = || {
        invalid(
            format!("{name} must be an array of strings"),
            format!("{name} 必须是字符串数组"),
        )
    };
    match args.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(wrong()),
            })
            .collect(),
        Some(_) => Err(wrong()),
    }
}

/// An object argument; `None` when absent.
pub(crate) fn object<'a>(
    args: &'a Value,
    name: &str,
) -> Result<Option<&'a serde_json::Map<String, Value>>, Failure> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(_) => Err(invalid(
            format!("{name} must be an object"),
            format!("{name} 必须是对象"),
        )),
    }
}

/// An array argument; empty when absent.
pub(crate) fn array<'a>(args: &'a Value, name: &str) -> Result<&'a [Value], Failure> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(invalid(
            format!("{name} must be an array"),
            format!("{name} 必须是数组"),
        )),
    }
}

/// A value shown as table text: strings as they are, null as nothing.
pub(crate) fn shown(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
