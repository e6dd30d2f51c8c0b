//! Flink's JSON of a `LogicalType` (`LogicalTypeJsonSerializer`) as a native [`LogicalType`].
//!
//! Flink writes a type as its SQL spelling when it has one (`"INT NOT NULL"`,
//! `"DECIMAL(10, 2)"`, ``"ROW<`a` INT, `b` VARCHAR(20)>"``, `"TIMESTAMP(3) WITH LOCAL TIME
//! ZONE"`), which [`LogicalType`]'s parser reads, and as an object otherwise:
//! `{"type": <LogicalTypeRoot>, "nullable": ..., ...}` for time attributes (`"kind":
//! "ROWTIME"`), empty strings (`CHAR(0)`, the type of the literal `''`), and anything nested
//! inside those. Nullability is dropped (a column's, not a value's, property natively).
//!
//! A time attribute (`ROWTIME`, `PROCTIME`) is an ordinary TIMESTAMP in the row: operators
//! only pass a processing-time attribute through (deduplication orders by arrival), and
//! every expression that reads one goes through `PROCTIME_MATERIALIZE`, which the engine
//! does not have, so such a Calc is refused by its function.

use serde_json::Value;

use super::{Result, Unsupported};
use crate::types::{LogicalType, RowField};

/// The type Flink serialized as `value`.
pub fn logical_type(value: &Value) -> Result<LogicalType> {
    match value {
        Value::String(text) => text.parse().map_err(|e: crate::Error| Unsupported::Type {
            ty: text.clone(),
            why: e.to_string(),
        }),
        Value::Object(_) => object(value),
        other => Err(Unsupported::Malformed(format!(
            "a type is a string or an object, got {other}"
        ))),
    }
}

/// The fields of the `ROW` type Flink serialized as `value` (an input or output row type).
pub fn row_type(value: &Value) -> Result<Vec<RowField>> {
    match logical_type(value)? {
        LogicalType::Row(fields) => Ok(fields),
        other => Err(Unsupported::Malformed(format!(
            "expected a ROW type, got {other}"
        ))),
    }
}

fn object(value: &Value) -> Result<LogicalType> {
    let root = value.get("type").and_then(Value::as_str).ok_or_else(|| {
        Unsupported::Malformed(format!("a type object without \"type\": {value}"))
    })?;
    let unsupported = |why: &str| Unsupported::Type {
        ty: value.to_string(),
        why: why.to_string(),
    };
    let number = |field: &str| -> Result<u32> {
        value
            .get(field)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| Unsupported::Malformed(format!("{root} without \"{field}\": {value}")))
    };
    let nested = |field: &str| -> Result<LogicalType> {
        logical_type(
            value
                .get(field)
                .ok_or_else(|| Unsupported::Malformed(format!("{root} without \"{field}\"")))?,
        )
    };
    Ok(match root {
        // Only the empty string's type has no SQL spelling: it holds nothing to pad, so it is
        // the shortest VARCHAR.
        "CHAR" | "VARCHAR" => match number("length")? {
            0 => LogicalType::VarChar(1),
            n if root == "CHAR" => LogicalType::Char(n),
            n => LogicalType::VarChar(n),
        },
        "BINARY" | "VARBINARY" => match number("length")? {
            0 => LogicalType::VarBinary(1),
            n if root == "BINARY" => LogicalType::Binary(n),
            n => LogicalType::VarBinary(n),
        },
        "TIMESTAMP_WITHOUT_TIME_ZONE" | "TIMESTAMP_WITH_LOCAL_TIME_ZONE" => {
            let precision = u8::try_from(number("precision")?)
                .ok()
                .filter(|p| *p <= 9)
                .ok_or_else(|| unsupported("precision above 9"))?;
            match value.get("kind").and_then(Value::as_str) {
                None | Some("REGULAR") | Some("ROWTIME") | Some("PROCTIME") => {}
                Some(kind) => return Err(unsupported(&format!("{kind} time attributes"))),
            }
            if root == "TIMESTAMP_WITHOUT_TIME_ZONE" {
                LogicalType::Timestamp(precision)
            } else {
                LogicalType::TimestampLtz(precision)
            }
        }
        "ROW" => {
            let fields = value
                .get("fields")
                .and_then(Value::as_array)
                .ok_or_else(|| Unsupported::Malformed(format!("ROW without \"fields\": {value}")))?
                .iter()
                .map(|f| {
                    let name = f.get("name").and_then(Value::as_str).ok_or_else(|| {
                        Unsupported::Malformed(format!("a ROW field without \"name\": {f}"))
                    })?;
                    let ty = logical_type(f.get("fieldType").ok_or_else(|| {
                        Unsupported::Malformed(format!("a ROW field without \"fieldType\": {f}"))
                    })?)?;
                    Ok(RowField::new(name, ty))
                })
                .collect::<Result<Vec<_>>>()?;
            if fields.is_empty() {
                return Err(unsupported("a ROW without fields"));
            }
            LogicalType::Row(fields)
        }
        "ARRAY" => LogicalType::Array(Box::new(nested("elementType")?)),
        "MAP" => LogicalType::Map(Box::new(nested("keyType")?), Box::new(nested("valueType")?)),
        _ => return Err(unsupported("no native representation")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<LogicalType> {
        logical_type(&v)
    }

    #[test]
    fn sql_spellings_parse_without_nullability() {
        assert_eq!(parse(json!("INT NOT NULL")).unwrap(), LogicalType::Int);
        assert_eq!(
            parse(json!("DECIMAL(10, 2)")).unwrap(),
            LogicalType::Decimal {
                precision: 10,
                scale: 2
            }
        );
        assert_eq!(
            parse(json!("TIMESTAMP(3) WITH LOCAL TIME ZONE")).unwrap(),
            LogicalType::TimestampLtz(3)
        );
        let row = row_type(&json!(
            "ROW<`id` BIGINT NOT NULL, `EXPR$1` VARCHAR(2147483647), `ts` TIMESTAMP(3)>"
        ))
        .unwrap();
        assert_eq!(
            row,
            vec![
                RowField::new("id", LogicalType::BigInt),
                RowField::new("EXPR$1", LogicalType::VarChar(i32::MAX as u32)),
                RowField::new("ts", LogicalType::Timestamp(3)),
            ]
        );
    }

    #[test]
    fn object_forms_cover_time_attributes_and_the_empty_string() {
        assert_eq!(
            parse(
                json!({"type": "TIMESTAMP_WITHOUT_TIME_ZONE", "nullable": false,
                         "precision": 3, "kind": "ROWTIME"})
            )
            .unwrap(),
            LogicalType::Timestamp(3)
        );
        assert_eq!(
            parse(
                json!({"type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "nullable": false,
                         "precision": 3, "kind": "PROCTIME"})
            )
            .unwrap(),
            LogicalType::TimestampLtz(3)
        );
        assert_eq!(
            parse(json!({"type": "CHAR", "nullable": false, "length": 0})).unwrap(),
            LogicalType::VarChar(1)
        );
        let row = row_type(&json!({"type": "ROW", "nullable": true, "fields": [
            {"name": "a", "fieldType": "INT"},
            {"name": "rt", "fieldType": {"type": "TIMESTAMP_WITHOUT_TIME_ZONE",
                                          "precision": 3, "kind": "ROWTIME"}}]}))
        .unwrap();
        assert_eq!(row[1], RowField::new("rt", LogicalType::Timestamp(3)));
    }

    #[test]
    fn types_without_a_native_form_are_refused_by_their_flink_spelling() {
        let err = parse(json!("MULTISET<INT>")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("type MULTISET<INT> is not supported"),
            "{err}"
        );
        assert_eq!(
            parse(json!("INTERVAL DAY(2) TO SECOND(3)")).unwrap(),
            LogicalType::IntervalDayTime
        );
        let err = parse(
            json!({"type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "precision": 3,
                               "kind": "SOMETIME"}),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("SOMETIME time attributes"),
            "{err}"
        );
        let err = parse(json!({"type": "RAW", "class": "java.lang.Object"})).unwrap_err();
        assert!(err.to_string().contains("RAW"), "{err}");
        let err = parse(json!({"type": "SYMBOL", "nullable": false})).unwrap_err();
        assert!(err.to_string().contains("SYMBOL"), "{err}");
    }
}
