//! The JSON encoder: Flink's `JsonRowDataSerializationSchema` with `RowDataToJsonConverters`,
//! which builds a Jackson tree per row and writes it with `ObjectMapper.writeValueAsBytes`.
//! The bytes are written here directly, as that writer prints them.
//!
//! # Encoding per type
//!
//! - ROW: `{"name":value,...}` in schema order, no spaces; a NULL field is `null`, or left
//!   out under `encode.ignore-null-fields` (at every ROW level, not inside ARRAY or MAP).
//! - BOOLEAN `true`/`false`; TINYINT..BIGINT and both INTERVALs as decimal integers.
//! - FLOAT, DOUBLE: `Float.toString`/`Double.toString` (`1.0E10`); NaN and the infinities as
//!   strings (`"NaN"`, `"-Infinity"`), Jackson's `QUOTE_NON_NUMERIC_NUMBERS`.
//! - DECIMAL: `BigDecimal.stripTrailingZeros().toString()` (`12.3`, `1E-8`, `1E+19`, `0`), or
//!   `toPlainString()` of the unstripped value under `encode.decimal-as-plain-number` (`12.30`).
//! - CHAR/VARCHAR: a string: `"` and `\` escaped, `\b \t \n \f \r`, other controls as
//!   `\u00XX` (upper-case hex), characters outside the BMP as two `\uXXXX` surrogate escapes;
//!   everything else (`/`, U+007F, U+2028) as UTF-8.
//! - BINARY/VARBINARY: Base64 with padding.
//! - DATE `yyyy-MM-dd` (`+10000-01-01`, `-0001-...`); TIME `HH:mm:ss[.fff]` (milliseconds,
//!   trailing zeros dropped).
//! - TIMESTAMP: `yyyy-MM-dd HH:mm:ss[.f]` (SQL) or `yyyy-MM-ddTHH:mm:ss[.f]` (ISO-8601), the
//!   fraction to the nanosecond without trailing zeros; TIMESTAMP_LTZ the same in UTC with `Z`.
//! - ARRAY: `[...]` with `null` elements. MAP: `{"key":value}` in entry order; a repeated key
//!   keeps its first place and its last value; a NULL key fails the row (`FAIL`), is left out
//!   (`DROP`) or written as the literal (`LITERAL`).

use std::collections::HashMap;

use arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BinaryBuilder, BooleanArray, GenericByteArray,
    ListArray, PrimitiveArray, RecordBatch, StructArray,
};
use arrow::datatypes::{
    Date32Type, Decimal128Type, DurationMillisecondType, Float32Type, Float64Type,
    GenericStringType, Int8Type, Int16Type, Int32Type, Int64Type, IntervalYearMonthType,
    Time32MillisecondType, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use streamfusion_calc::calc::FloatText;
use streamfusion_calc::calc::functions::java_format::{double_to_string, float_to_string};
use streamfusion_calc::calc::functions::string_codec::base64_bytes;
use streamfusion_core::types::{LogicalType, RowField, row_arrow_fields};

use super::options::{JsonOptions, MapNullKeyMode, TimestampFormat};
use super::timestamps::{write_date, write_time, write_timestamp};
use super::write_json_string;
use crate::Encoder;
use crate::error::{FormatError, Result};
use crate::java_text::{write_plain_decimal, write_scientific_decimal};

const NULL_KEY: &str = "JSON format doesn't support to serialize map data with null keys. You can drop null key entries or encode null in literals by specifying map-null-key.mode option.";

/// Encodes rows as Flink 2.3.0's `'format' = 'json'` writes them.
#[derive(Debug)]
pub struct JsonEncoder {
    fields: Vec<RowField>,
    options: JsonOptions,
}

fn has_float(ty: &LogicalType) -> bool {
    match ty {
        LogicalType::Float | LogicalType::Double => true,
        LogicalType::Row(fields) => fields.iter().any(|f| has_float(&f.ty)),
        LogicalType::Array(e) => has_float(e),
        LogicalType::Map(k, v) => has_float(k) || has_float(v),
        _ => false,
    }
}

impl JsonEncoder {
    /// An encoder for rows of `fields`. A FLOAT or DOUBLE field needs the job's JVM to print
    /// floats as the shortest text (JDK 19+); under `FloatText::FloatingDecimal` it is refused.
    pub fn try_new(
        fields: &[RowField],
        options: &JsonOptions,
        float_text: FloatText,
    ) -> Result<Self> {
        if float_text == FloatText::FloatingDecimal && fields.iter().any(|f| has_float(&f.ty)) {
            return Err(FormatError::Unsupported {
                format: "JSON",
                problem: "FLOAT/DOUBLE fields print through the JVM's Double.toString, and this job's JDK (18 or older, FloatingDecimal) prints some values differently from native code (decision 0037)".into(),
            });
        }
        Ok(Self {
            fields: fields.to_vec(),
            options: options.clone(),
        })
    }
}

/// A column, downcast once per batch.
enum Col<'a> {
    Bool(&'a BooleanArray),
    I8(&'a PrimitiveArray<Int8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a PrimitiveArray<Int32Type>),
    Iym(&'a PrimitiveArray<IntervalYearMonthType>),
    I64(&'a PrimitiveArray<Int64Type>),
    Idt(&'a PrimitiveArray<DurationMillisecondType>),
    F32(&'a PrimitiveArray<Float32Type>),
    F64(&'a PrimitiveArray<Float64Type>),
    Dec(&'a PrimitiveArray<Decimal128Type>, u8),
    Str(&'a GenericByteArray<GenericStringType<i32>>),
    Bin(&'a BinaryArray),
    Date(&'a PrimitiveArray<Date32Type>),
    Time(&'a PrimitiveArray<Time32MillisecondType>),
    TsMs(&'a PrimitiveArray<TimestampMillisecondType>, bool),
    TsUs(&'a PrimitiveArray<TimestampMicrosecondType>, bool),
    TsNs(&'a PrimitiveArray<TimestampNanosecondType>, bool),
    Row(&'a StructArray, Vec<(&'a str, Col<'a>)>),
    Array(&'a ListArray, Box<Col<'a>>),
    Map(&'a ListArray, Box<Col<'a>>, Box<Col<'a>>),
}

fn schema_error(problem: String) -> FormatError {
    FormatError::Schema {
        format: "JSON",
        problem,
    }
}

fn col<'a>(array: &'a ArrayRef, ty: &'a LogicalType, name: &str) -> Result<Col<'a>> {
    if array.data_type() != &ty.to_arrow() {
        return Err(schema_error(format!(
            "field `{name}` is {} in the batch, {} in the encoder's schema",
            array.data_type(),
            ty.to_arrow()
        )));
    }
    Ok(match ty {
        LogicalType::Boolean => Col::Bool(array.as_boolean()),
        LogicalType::TinyInt => Col::I8(array.as_primitive()),
        LogicalType::SmallInt => Col::I16(array.as_primitive()),
        LogicalType::Int => Col::I32(array.as_primitive()),
        LogicalType::IntervalYearMonth => Col::Iym(array.as_primitive()),
        LogicalType::BigInt => Col::I64(array.as_primitive()),
        LogicalType::IntervalDayTime => Col::Idt(array.as_primitive()),
        LogicalType::Float => Col::F32(array.as_primitive()),
        LogicalType::Double => Col::F64(array.as_primitive()),
        LogicalType::Decimal { scale, .. } => Col::Dec(array.as_primitive(), *scale),
        LogicalType::Char(_) | LogicalType::VarChar(_) => Col::Str(array.as_string::<i32>()),
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => Col::Bin(array.as_binary::<i32>()),
        LogicalType::Date => Col::Date(array.as_primitive()),
        LogicalType::Time(_) => Col::Time(array.as_primitive()),
        LogicalType::Timestamp(p) | LogicalType::TimestampLtz(p) => {
            let ltz = matches!(ty, LogicalType::TimestampLtz(_));
            match p {
                0..=3 => Col::TsMs(array.as_primitive(), ltz),
                4..=6 => Col::TsUs(array.as_primitive(), ltz),
                _ => Col::TsNs(array.as_primitive(), ltz),
            }
        }
        LogicalType::Row(fields) => {
            let s = array.as_struct();
            let children = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| Ok((f.name.as_str(), col(c, &f.ty, &f.name)?)))
                .collect::<Result<_>>()?;
            Col::Row(s, children)
        }
        LogicalType::Array(e) => {
            let l = array.as_list::<i32>();
            Col::Array(l, Box::new(col(l.values(), e, name)?))
        }
        LogicalType::Map(k, v) => {
            let l = array.as_list::<i32>();
            let entries = l.values().as_struct();
            Col::Map(
                l,
                Box::new(col(entries.column(0), k, name)?),
                Box::new(col(entries.column(1), v, name)?),
            )
        }
    })
}

struct Writer<'o> {
    options: &'o JsonOptions,
    /// The row being written (for errors).
    row: usize,
}

fn write_f32(v: f32, out: &mut Vec<u8>) {
    if v.is_finite() {
        out.extend_from_slice(float_to_string(v).as_bytes());
    } else {
        out.push(b'"');
        out.extend_from_slice(float_to_string(v).as_bytes());
        out.push(b'"');
    }
}

fn write_f64(v: f64, out: &mut Vec<u8>) {
    if v.is_finite() {
        out.extend_from_slice(double_to_string(v).as_bytes());
    } else {
        out.push(b'"');
        out.extend_from_slice(double_to_string(v).as_bytes());
        out.push(b'"');
    }
}

fn int(out: &mut Vec<u8>, v: impl std::fmt::Display) {
    use std::io::Write;
    let _ = write!(out, "{v}");
}

/// A field's path (`r.x`), put together only when an error names it: every row would
/// otherwise allocate one per field.
#[derive(Debug, Clone, Copy)]
enum Path<'a> {
    Root,
    Field(&'a Path<'a>, &'a str),
}

impl Path<'_> {
    fn render(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Field(parent, name) => match parent.render() {
                p if p.is_empty() => (*name).to_string(),
                p => format!("{p}.{name}"),
            },
        }
    }
}

impl Writer<'_> {
    fn value(&self, c: &Col<'_>, i: usize, out: &mut Vec<u8>, path: &Path<'_>) -> Result<()> {
        let iso = self.options.timestamp_format == TimestampFormat::Iso8601;
        let sep = if iso { b'T' } else { b' ' };
        macro_rules! null_or {
            ($a:expr) => {
                if $a.is_null(i) {
                    out.extend_from_slice(b"null");
                    return Ok(());
                }
            };
        }
        match c {
            Col::Bool(a) => {
                null_or!(a);
                out.extend_from_slice(if a.value(i) { b"true" } else { b"false" });
            }
            Col::I8(a) => {
                null_or!(a);
                int(out, a.value(i));
            }
            Col::I16(a) => {
                null_or!(a);
                int(out, a.value(i));
            }
            Col::I32(a) => {
                null_or!(a);
                int(out, a.value(i));
            }
            Col::Iym(a) => {
                null_or!(a);
                int(out, a.value(i));
            }
            Col::I64(a) => {
                null_or!(a);
                int(out, a.value(i));
            }
            Col::Idt(a) => {
                null_or!(a);
                int(out, a.value(i));
            }
            Col::F32(a) => {
                null_or!(a);
                write_f32(a.value(i), out);
            }
            Col::F64(a) => {
                null_or!(a);
                write_f64(a.value(i), out);
            }
            Col::Dec(a, scale) => {
                null_or!(a);
                let mut text = String::new();
                if self.options.encode_decimal_as_plain_number {
                    write_plain_decimal(a.value(i), *scale, &mut text);
                } else {
                    write_scientific_decimal(a.value(i), *scale, &mut text);
                }
                out.extend_from_slice(text.as_bytes());
            }
            Col::Str(a) => {
                null_or!(a);
                write_json_string(a.value(i), out, true);
            }
            Col::Bin(a) => {
                null_or!(a);
                out.push(b'"');
                out.extend(base64_bytes(a.value(i)));
                out.push(b'"');
            }
            Col::Date(a) => {
                null_or!(a);
                out.push(b'"');
                write_date(out, a.value(i) as i64);
                out.push(b'"');
            }
            Col::Time(a) => {
                null_or!(a);
                let ms = a.value(i) as i64;
                if !(0..86_400_000).contains(&ms) {
                    // `LocalTime.ofNanoOfDay` refuses it.
                    return Err(FormatError::Unencodable {
                        format: "JSON",
                        index: self.row,
                        field: path.render(),
                        problem: format!(
                            "Invalid value for NanoOfDay (valid values 0 - 86399999999999): {}",
                            ms * 1_000_000
                        ),
                    });
                }
                out.push(b'"');
                write_time(out, ms * 1_000_000);
                out.push(b'"');
            }
            Col::TsMs(a, ltz) => {
                null_or!(a);
                out.push(b'"');
                write_timestamp(out, a.value(i), 0, sep);
                if *ltz {
                    out.push(b'Z');
                }
                out.push(b'"');
            }
            Col::TsUs(a, ltz) => {
                null_or!(a);
                let v = a.value(i);
                out.push(b'"');
                write_timestamp(out, v.div_euclid(1000), v.rem_euclid(1000) * 1000, sep);
                if *ltz {
                    out.push(b'Z');
                }
                out.push(b'"');
            }
            Col::TsNs(a, ltz) => {
                null_or!(a);
                let v = a.value(i);
                out.push(b'"');
                write_timestamp(out, v.div_euclid(1_000_000), v.rem_euclid(1_000_000), sep);
                if *ltz {
                    out.push(b'Z');
                }
                out.push(b'"');
            }
            Col::Row(a, children) => {
                null_or!(a);
                self.row(children, i, out, path)?;
            }
            Col::Array(a, element) => {
                null_or!(a);
                let offsets = a.value_offsets();
                out.push(b'[');
                for (n, j) in (offsets[i] as usize..offsets[i + 1] as usize).enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    self.value(element, j, out, path)?;
                }
                out.push(b']');
            }
            Col::Map(a, keys, values) => {
                null_or!(a);
                let Col::Str(keys) = keys.as_ref() else {
                    return Err(FormatError::Unsupported {
                        format: "JSON",
                        problem: "JSON format doesn't support non-string as key type of map".into(),
                    });
                };
                let offsets = a.value_offsets();
                let range = offsets[i] as usize..offsets[i + 1] as usize;
                // ObjectNode.set: a repeated key keeps its first place and takes the last value.
                let mut entries: Vec<(&str, usize)> = Vec::with_capacity(range.len());
                let mut seen: HashMap<&str, usize> = HashMap::new();
                for j in range {
                    let key = if keys.is_null(j) {
                        match self.options.map_null_key_mode {
                            MapNullKeyMode::Fail => {
                                return Err(FormatError::Unencodable {
                                    format: "JSON",
                                    index: self.row,
                                    field: path.render(),
                                    problem: NULL_KEY.into(),
                                });
                            }
                            MapNullKeyMode::Drop => continue,
                            MapNullKeyMode::Literal => self.options.map_null_key_literal.as_str(),
                        }
                    } else {
                        keys.value(j)
                    };
                    match seen.get(key) {
                        Some(&at) => entries[at].1 = j,
                        None => {
                            seen.insert(key, entries.len());
                            entries.push((key, j));
                        }
                    }
                }
                out.push(b'{');
                for (n, (k, j)) in entries.iter().enumerate() {
                    if n > 0 {
                        out.push(b',');
                    }
                    write_json_string(k, out, true);
                    out.push(b':');
                    self.value(values, *j, out, path)?;
                }
                out.push(b'}');
            }
        }
        Ok(())
    }

    fn row(
        &self,
        children: &[(&str, Col<'_>)],
        i: usize,
        out: &mut Vec<u8>,
        path: &Path<'_>,
    ) -> Result<()> {
        out.push(b'{');
        let mut first = true;
        for (name, c) in children {
            if self.options.encode_ignore_null_fields && is_null(c, i) {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            write_json_string(name, out, true);
            out.push(b':');
            self.value(c, i, out, &Path::Field(path, name))?;
        }
        out.push(b'}');
        Ok(())
    }
}

fn is_null(c: &Col<'_>, i: usize) -> bool {
    let a: &dyn Array = match c {
        Col::Bool(a) => *a,
        Col::I8(a) => *a,
        Col::I16(a) => *a,
        Col::I32(a) => *a,
        Col::Iym(a) => *a,
        Col::I64(a) => *a,
        Col::Idt(a) => *a,
        Col::F32(a) => *a,
        Col::F64(a) => *a,
        Col::Dec(a, _) => *a,
        Col::Str(a) => *a,
        Col::Bin(a) => *a,
        Col::Date(a) => *a,
        Col::Time(a) => *a,
        Col::TsMs(a, _) => *a,
        Col::TsUs(a, _) => *a,
        Col::TsNs(a, _) => *a,
        Col::Row(a, _) => *a,
        Col::Array(a, _) | Col::Map(a, ..) => *a,
    };
    a.is_null(i)
}

impl Encoder for JsonEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        if batch.num_columns() != self.fields.len() {
            return Err(schema_error(format!(
                "batch of {} columns for a schema of {} fields",
                batch.num_columns(),
                self.fields.len()
            )));
        }
        let expected = row_arrow_fields(&self.fields);
        let columns = self
            .fields
            .iter()
            .zip(batch.columns())
            .zip(expected.iter())
            .map(|((f, c), _)| Ok((f.name.as_str(), col(c, &f.ty, &f.name)?)))
            .collect::<Result<Vec<_>>>()?;
        let mut builder = BinaryBuilder::with_capacity(batch.num_rows(), batch.num_rows() * 64);
        let mut out = Vec::new();
        for i in 0..batch.num_rows() {
            out.clear();
            let writer = Writer {
                options: &self.options,
                row: i,
            };
            writer.row(&columns, i, &mut out, &Path::Root)?;
            builder.append_value(&out);
        }
        Ok(builder.finish())
    }
}
