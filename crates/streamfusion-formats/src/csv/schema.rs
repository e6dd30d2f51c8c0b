//! The table types the CSV format maps, as `CsvRowSchemaConverter` accepts them: scalars at
//! the top level, and ARRAY and ROW (a column split by the array element delimiter) of
//! scalars only.

use streamfusion_core::types::{LogicalType, RowField};

use crate::error::{FormatError, Result};

/// A column's (or element's) type, as the converters handle it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    Bool,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Str,
    Bin,
    Date,
    /// TIME(p): milliseconds of the day.
    Time {
        precision: u8,
    },
    /// TIMESTAMP(p) / TIMESTAMP_LTZ(p) (`ltz`).
    Ts {
        precision: u8,
        ltz: bool,
    },
    Array(Box<Kind>),
    Row(Vec<(String, Kind)>),
}

impl Kind {
    /// Whether the kind is one of Jackson's scalar column types (string, number, boolean).
    fn is_scalar(&self) -> bool {
        !matches!(self, Kind::Array(_) | Kind::Row(_))
    }
}

fn unsupported(problem: String) -> FormatError {
    FormatError::Unsupported {
        format: "CSV",
        problem,
    }
}

/// The kinds of a table's fields, or Flink's refusal. `decode` adds the deserializer's own
/// refusal of TIME with a precision above 3.
pub(crate) fn kinds(fields: &[RowField], decode: bool) -> Result<Vec<(String, Kind)>> {
    if fields.is_empty() {
        return Err(unsupported("a CSV row needs at least one field".into()));
    }
    fields
        .iter()
        .map(|f| {
            let kind = kind(&f.ty, &f.name, decode, true)?;
            Ok((f.name.clone(), kind))
        })
        .collect()
}

fn kind(ty: &LogicalType, name: &str, decode: bool, top: bool) -> Result<Kind> {
    let nested = |inner: &LogicalType| -> Result<Kind> {
        let k = kind(inner, name, decode, false)
            .ok()
            .filter(Kind::is_scalar)
            .ok_or_else(|| {
                unsupported(format!(
                    "Only simple types are supported in the second level nesting of fields \
                     '{name}' but was: {inner}"
                ))
            })?;
        Ok(k)
    };
    Ok(match ty {
        LogicalType::Boolean => Kind::Bool,
        LogicalType::TinyInt => Kind::I8,
        LogicalType::SmallInt => Kind::I16,
        LogicalType::Int => Kind::I32,
        LogicalType::BigInt => Kind::I64,
        LogicalType::Float => Kind::F32,
        LogicalType::Double => Kind::F64,
        LogicalType::Decimal { precision, scale } => Kind::Decimal {
            precision: *precision,
            scale: *scale,
        },
        LogicalType::Char(_) | LogicalType::VarChar(_) => Kind::Str,
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => Kind::Bin,
        LogicalType::Date => Kind::Date,
        LogicalType::Time(p) => {
            if decode && *p > 3 {
                return Err(unsupported(format!(
                    "Csv does not support TIME type with precision: {p}, it only supports \
                     precision 0 ~ 3."
                )));
            }
            Kind::Time { precision: *p }
        }
        LogicalType::Timestamp(p) => Kind::Ts {
            precision: *p,
            ltz: false,
        },
        LogicalType::TimestampLtz(p) => Kind::Ts {
            precision: *p,
            ltz: true,
        },
        LogicalType::Array(element) if top => Kind::Array(Box::new(nested(element)?)),
        LogicalType::Row(fields) if top => Kind::Row(
            fields
                .iter()
                .map(|f| Ok((f.name.clone(), nested(&f.ty)?)))
                .collect::<Result<_>>()?,
        ),
        other => {
            return Err(unsupported(format!(
                "Unsupported type '{other}' for field '{name}'."
            )));
        }
    })
}
