//! Flink's `ParquetSchemaConverter.convertToParquetMessageType`: the Parquet schema of a
//! row type (see the table in the module docs of `parquet`).

use std::sync::Arc;

use parquet::basic::{
    LogicalType as ParquetLogicalType, Repetition, TimeUnit, Type as PhysicalType,
};
use parquet::schema::types::{Type, TypePtr};
use streamfusion_core::types::{LogicalType, RowField};

use super::FORMAT;
use super::timestamp::TimestampUnit;
use crate::error::{FormatError, Result};

/// The message name Flink's `ParquetRowDataBuilder` gives the schema.
pub const MESSAGE_NAME: &str = "flink_schema";

/// `ParquetSchemaConverter.computeMinBytesForDecimalPrecision`: the fewest bytes whose
/// two's complement holds `10^precision` (`2^(8n-1) >= 10^p`), computed exactly.
pub fn min_bytes_for_decimal_precision(precision: u8) -> usize {
    let limit = 10u128.pow(u32::from(precision.min(38)));
    let mut bytes = 1usize;
    // 2^(8n-1) < 10^p  <=>  keep growing; for n = 16, 2^127 > 10^38.
    while bytes < 16 && (1u128 << (8 * bytes - 1)) < limit {
        bytes += 1;
    }
    bytes
}

/// The Parquet schema Flink writes for `fields`; `int64_timestamps` is the unit of
/// `write.int64.timestamp` (`None`: INT96).
pub fn flink_message_type(
    fields: &[RowField],
    int64_timestamps: Option<TimestampUnit>,
) -> Result<TypePtr> {
    let mut children = Vec::with_capacity(fields.len());
    for field in fields {
        children.push(Arc::new(field_type(
            &field.name,
            &field.ty,
            int64_timestamps,
            &field.name,
        )?));
    }
    Ok(Arc::new(build(
        Type::group_type_builder(MESSAGE_NAME)
            .with_fields(children)
            .build(),
    )?))
}

fn build(result: parquet::errors::Result<Type>) -> Result<Type> {
    result.map_err(|e| FormatError::Unsupported {
        format: FORMAT,
        problem: format!("building the Parquet schema: {e}"),
    })
}

fn primitive(
    name: &str,
    physical: PhysicalType,
    logical: Option<ParquetLogicalType>,
) -> Result<Type> {
    build(
        Type::primitive_type_builder(name, physical)
            .with_repetition(Repetition::OPTIONAL)
            .with_logical_type(logical)
            .build(),
    )
}

fn field_type(
    name: &str,
    ty: &LogicalType,
    int64: Option<TimestampUnit>,
    path: &str,
) -> Result<Type> {
    Ok(match ty {
        LogicalType::Char(_) | LogicalType::VarChar(_) => primitive(
            name,
            PhysicalType::BYTE_ARRAY,
            Some(ParquetLogicalType::String),
        )?,
        LogicalType::Boolean => primitive(name, PhysicalType::BOOLEAN, None)?,
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
            primitive(name, PhysicalType::BYTE_ARRAY, None)?
        }
        LogicalType::Decimal { precision, scale } => build(
            Type::primitive_type_builder(name, PhysicalType::FIXED_LEN_BYTE_ARRAY)
                .with_repetition(Repetition::OPTIONAL)
                .with_length(min_bytes_for_decimal_precision(*precision) as i32)
                .with_precision(i32::from(*precision))
                .with_scale(i32::from(*scale))
                .with_logical_type(Some(ParquetLogicalType::Decimal {
                    scale: i32::from(*scale),
                    precision: i32::from(*precision),
                }))
                .build(),
        )?,
        LogicalType::TinyInt => primitive(
            name,
            PhysicalType::INT32,
            Some(ParquetLogicalType::Integer {
                bit_width: 8,
                is_signed: true,
            }),
        )?,
        LogicalType::SmallInt => primitive(
            name,
            PhysicalType::INT32,
            Some(ParquetLogicalType::Integer {
                bit_width: 16,
                is_signed: true,
            }),
        )?,
        LogicalType::Int => primitive(name, PhysicalType::INT32, None)?,
        LogicalType::BigInt => primitive(name, PhysicalType::INT64, None)?,
        LogicalType::Float => primitive(name, PhysicalType::FLOAT, None)?,
        LogicalType::Double => primitive(name, PhysicalType::DOUBLE, None)?,
        LogicalType::Date => primitive(name, PhysicalType::INT32, Some(ParquetLogicalType::Date))?,
        LogicalType::Time(_) => primitive(
            name,
            PhysicalType::INT32,
            Some(ParquetLogicalType::Time {
                is_adjusted_to_u_t_c: true,
                unit: TimeUnit::MILLIS,
            }),
        )?,
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => match int64 {
            None => primitive(name, PhysicalType::INT96, None)?,
            Some(unit) => primitive(
                name,
                PhysicalType::INT64,
                Some(ParquetLogicalType::Timestamp {
                    is_adjusted_to_u_t_c: true,
                    unit: match unit {
                        TimestampUnit::Millis => TimeUnit::MILLIS,
                        TimestampUnit::Micros => TimeUnit::MICROS,
                        TimestampUnit::Nanos => TimeUnit::NANOS,
                    },
                }),
            )?,
        },
        LogicalType::Array(element) => {
            let element = field_type("element", element, int64, &format!("{path}[]"))?;
            let list = build(
                Type::group_type_builder("list")
                    .with_repetition(Repetition::REPEATED)
                    .with_fields(vec![Arc::new(element)])
                    .build(),
            )?;
            build(
                Type::group_type_builder(name)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(Some(ParquetLogicalType::List))
                    .with_fields(vec![Arc::new(list)])
                    .build(),
            )?
        }
        LogicalType::Map(key, value) => {
            let key = field_type("key", key, int64, &format!("{path}.key"))?;
            let value = field_type("value", value, int64, &format!("{path}.value"))?;
            let entries = build(
                Type::group_type_builder("key_value")
                    .with_repetition(Repetition::REPEATED)
                    .with_converted_type(parquet::basic::ConvertedType::MAP_KEY_VALUE)
                    .with_fields(vec![Arc::new(key), Arc::new(value)])
                    .build(),
            )?;
            build(
                Type::group_type_builder(name)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(Some(ParquetLogicalType::Map))
                    .with_fields(vec![Arc::new(entries)])
                    .build(),
            )?
        }
        LogicalType::Row(fields) => {
            let mut children = Vec::with_capacity(fields.len());
            for field in fields {
                children.push(Arc::new(field_type(
                    &field.name,
                    &field.ty,
                    int64,
                    &format!("{path}.{}", field.name),
                )?));
            }
            build(
                Type::group_type_builder(name)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_fields(children)
                    .build(),
            )?
        }
        LogicalType::IntervalYearMonth | LogicalType::IntervalDayTime => {
            return Err(FormatError::Unsupported {
                format: FORMAT,
                problem: format!(
                    "field `{path}` of type {ty}: Flink's ParquetSchemaConverter has no \
                     Parquet type for intervals (Unsupported type)"
                ),
            });
        }
    })
}
