//! Iceberg field IDs on Arrow schemas.
//!
//! Iceberg identifies columns by ID, not name, and Parquet files carry the ID of every field
//! (nested ones included) in the `PARQUET:field_id` metadata key that parquet-rs and
//! iceberg-rust read and write. IDs are assigned the way Iceberg's `TypeUtil.assignFreshIds`
//! does: a struct's own fields are numbered first, in order, and only then are their nested
//! types visited, depth first; a list numbers its element, a map its key then its value
//! (Arrow's map `entries` struct is Iceberg's map itself and gets no ID).
//!
//! ```text
//! a: struct<x, y>, b: map<k, v: list<e>>   ->   a=1 b=2 x=3 y=4 k=5 v=6 e=7
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema};

/// The metadata key holding a field's Iceberg ID.
pub const FIELD_ID_KEY: &str = "PARQUET:field_id";

/// Why a schema's field IDs cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldIdError {
    /// A field without an ID: the file was written without Iceberg field IDs.
    #[error(
        "field `{path}` has no `{FIELD_ID_KEY}`; legacy files without field IDs need name mapping"
    )]
    Missing {
        /// The field's path (`a.b.element`).
        path: String,
    },
    /// An ID that is not a positive 32-bit integer.
    #[error("field `{path}` has `{FIELD_ID_KEY}` = {value:?}, not a positive 32-bit integer")]
    Invalid {
        /// The field's path.
        path: String,
        /// The metadata value.
        value: String,
    },
    /// Two fields with the same ID.
    #[error("field ID {id} is used by both `{first}` and `{second}`")]
    Duplicate {
        /// The repeated ID.
        id: i32,
        /// The first field with it.
        first: String,
        /// The second field with it.
        second: String,
    },
}

/// Returns `schema` with fresh Iceberg field IDs on every field, nested ones included,
/// numbered from 1 in Iceberg's order. Existing IDs are replaced; other metadata is kept.
pub fn assign_field_ids(schema: &Schema) -> Schema {
    let mut next = 0;
    let fields = assign_struct(schema.fields(), &mut next);
    Schema::new_with_metadata(fields, schema.metadata().clone())
}

fn next_id(next: &mut i32) -> i32 {
    *next += 1;
    *next
}

fn with_id(field: &Field, id: i32, data_type: DataType) -> FieldRef {
    let mut metadata = field.metadata().clone();
    metadata.insert(FIELD_ID_KEY.to_string(), id.to_string());
    Arc::new(
        field
            .clone()
            .with_data_type(data_type)
            .with_metadata(metadata),
    )
}

fn assign_struct(fields: &Fields, next: &mut i32) -> Fields {
    // This struct's fields first, then their nested types.
    let ids: Vec<i32> = fields.iter().map(|_| next_id(next)).collect();
    fields
        .iter()
        .zip(ids)
        .map(|(field, id)| with_id(field, id, assign_nested(field.data_type(), next)))
        .collect()
}

fn assign_nested(data_type: &DataType, next: &mut i32) -> DataType {
    match data_type {
        DataType::Struct(fields) => DataType::Struct(assign_struct(fields, next)),
        DataType::List(element) => DataType::List(assign_element(element, next)),
        DataType::LargeList(element) => DataType::LargeList(assign_element(element, next)),
        DataType::FixedSizeList(element, size) => {
            DataType::FixedSizeList(assign_element(element, next), *size)
        }
        DataType::Map(entries, sorted) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return data_type.clone();
            };
            let (key_id, value_id) = (next_id(next), next_id(next));
            let mut kv_fields = kv.iter();
            let (Some(key), Some(value)) = (kv_fields.next(), kv_fields.next()) else {
                return data_type.clone();
            };
            let key = with_id(key, key_id, assign_nested(key.data_type(), next));
            let value = with_id(value, value_id, assign_nested(value.data_type(), next));
            let entries = entries
                .as_ref()
                .clone()
                .with_data_type(DataType::Struct(Fields::from(vec![key, value])));
            DataType::Map(Arc::new(entries), *sorted)
        }
        other => other.clone(),
    }
}

fn assign_element(element: &FieldRef, next: &mut i32) -> FieldRef {
    let id = next_id(next);
    with_id(element, id, assign_nested(element.data_type(), next))
}

/// Every field's ID by path (`a`, `a.x`, `b.key`, `c.element`), checked: each field has one,
/// each is a positive integer, none repeats.
pub fn field_ids(schema: &Schema) -> Result<Vec<(String, i32)>, FieldIdError> {
    let mut out = Vec::new();
    let mut seen: HashMap<i32, String> = HashMap::new();
    for field in schema.fields() {
        collect(field, field.name().clone(), &mut out, &mut seen)?;
    }
    Ok(out)
}

fn collect(
    field: &Field,
    path: String,
    out: &mut Vec<(String, i32)>,
    seen: &mut HashMap<i32, String>,
) -> Result<(), FieldIdError> {
    let Some(value) = field.metadata().get(FIELD_ID_KEY) else {
        return Err(FieldIdError::Missing { path });
    };
    let id = value
        .parse::<i32>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| FieldIdError::Invalid {
            path: path.clone(),
            value: value.clone(),
        })?;
    if let Some(first) = seen.insert(id, path.clone()) {
        return Err(FieldIdError::Duplicate {
            id,
            first,
            second: path,
        });
    }
    out.push((path.clone(), id));
    match field.data_type() {
        DataType::Struct(fields) => {
            for child in fields {
                collect(child, format!("{path}.{}", child.name()), out, seen)?;
            }
        }
        DataType::List(element)
        | DataType::LargeList(element)
        | DataType::FixedSizeList(element, _) => {
            collect(element, format!("{path}.element"), out, seen)?;
        }
        DataType::Map(entries, _) => {
            if let DataType::Struct(kv) = entries.data_type() {
                for (child, name) in kv.iter().zip(["key", "value"]) {
                    collect(child, format!("{path}.{name}"), out, seen)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        let xy = Fields::from(vec![
            Field::new("x", DataType::Int32, false),
            Field::new("y", DataType::Utf8, true),
        ]);
        let map = DataType::Map(
            Arc::new(Field::new(
                "entries",
                DataType::Struct(Fields::from(vec![
                    Field::new("k", DataType::Utf8, false),
                    Field::new(
                        "v",
                        DataType::List(Arc::new(Field::new("item", DataType::Int64, true))),
                        true,
                    ),
                ])),
                false,
            )),
            false,
        );
        Schema::new(vec![
            Field::new("a", DataType::Struct(xy), true),
            Field::new("b", map, true),
            Field::new("c", DataType::Utf8, true)
                .with_metadata([("doc".to_string(), "kept".to_string())].into()),
        ])
    }

    #[test]
    fn ids_follow_icebergs_struct_first_order() {
        let ids = field_ids(&assign_field_ids(&schema())).unwrap();
        // Written out by hand from Iceberg's AssignFreshIds rules.
        let expected = vec![
            ("a", 1),
            ("a.x", 4),
            ("a.y", 5),
            ("b", 2),
            ("b.key", 6),
            ("b.value", 7),
            ("b.value.element", 8),
            ("c", 3),
        ];
        assert_eq!(
            ids,
            expected
                .into_iter()
                .map(|(p, id)| (p.to_string(), id))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn other_metadata_is_kept_and_ids_are_replaced() {
        let once = assign_field_ids(&schema());
        assert_eq!(
            once.field(2).metadata().get("doc").map(String::as_str),
            Some("kept")
        );
        assert_eq!(assign_field_ids(&once), once);
    }

    #[test]
    fn a_legacy_schema_without_ids_names_the_first_field() {
        let err = field_ids(&schema()).unwrap_err();
        assert_eq!(err, FieldIdError::Missing { path: "a".into() });
    }

    #[test]
    fn duplicate_and_invalid_ids_are_rejected() {
        let id = |v: &str| [(FIELD_ID_KEY.to_string(), v.to_string())].into();
        let dup = Schema::new(vec![
            Field::new("p", DataType::Int32, false).with_metadata(id("1")),
            Field::new("q", DataType::Int32, false).with_metadata(id("1")),
        ]);
        assert!(matches!(
            field_ids(&dup),
            Err(FieldIdError::Duplicate { id: 1, .. })
        ));
        let bad = Schema::new(vec![
            Field::new("p", DataType::Int32, false).with_metadata(id("-3")),
        ]);
        assert!(matches!(field_ids(&bad), Err(FieldIdError::Invalid { .. })));
    }
}
