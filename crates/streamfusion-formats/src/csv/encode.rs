//! `CsvRowDataSerializationSchema`: each row written as Jackson's `CsvGenerator` writes the
//! `ObjectNode` that `RowDataToCsvConverters` builds, without a line separator.
//!
//! - Numbers and booleans are written as they are, never quoted; FLOAT/DOUBLE as Java's
//!   `Float/Double.toString`, DECIMAL as `toPlainString` at the type's scale (or, with
//!   `write-bigdecimal-in-scientific-notation`, `stripTrailingZeros().toString()`).
//! - NULL is the null literal (empty by default), never quoted.
//! - Text (strings, Base64 binaries, ISO dates and times, `yyyy-MM-dd HH:mm:ss[.f]`
//!   timestamps with a `Z` for TIMESTAMP_LTZ, ARRAY and ROW values joined by the array
//!   element delimiter) is quoted when it is not empty and has a char below
//!   `max(separator, quote) + 1`, the escape character, or (without one) a backslash. In
//!   quotes, the quote is doubled and the escape character is doubled.

use arrow::array::{Array, ArrayRef, AsArray, BinaryArray, BinaryBuilder, RecordBatch};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Time32MillisecondType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType,
};
use streamfusion_calc::calc::FloatText;
use streamfusion_calc::calc::functions::java_format::{double_to_string, float_to_string};
use streamfusion_calc::calc::functions::string_codec::to_base64;
use streamfusion_core::types::RowField;

use super::CsvOptions;
use super::schema::{Kind, kinds};
use super::text::{
    Timestamp, write_iso_date, write_iso_time, write_plain_decimal, write_scientific_decimal,
    write_timestamp,
};
use crate::Encoder;
use crate::error::{FormatError, Result};

/// Encodes rows into CSV messages (`'format' = 'csv'`).
#[derive(Debug)]
pub struct CsvEncoder {
    columns: Vec<(String, Kind, DataType)>,
    separator: char,
    quote: Option<char>,
    escape: Option<char>,
    /// Chars below this make a text value quoted.
    min_safe: u32,
    array_delimiter: String,
    null_literal: String,
    scientific: bool,
}

impl CsvEncoder {
    /// An encoder for a table with `fields`. Refuses what Flink's CSV format refuses, FLOAT or
    /// DOUBLE under [`FloatText::FloatingDecimal`] (JDK 18 and older print them differently;
    /// decision 0037), and an escape character with quoting disabled (not encoded natively).
    pub fn try_new(
        fields: &[RowField],
        options: &CsvOptions,
        float_text: FloatText,
    ) -> Result<Self> {
        let kinds = kinds(fields, false)?;
        let has_float = |k: &Kind| -> bool {
            fn walk(k: &Kind) -> bool {
                match k {
                    Kind::F32 | Kind::F64 => true,
                    Kind::Array(e) => walk(e),
                    Kind::Row(fs) => fs.iter().any(|(_, k)| walk(k)),
                    _ => false,
                }
            }
            walk(k)
        };
        if float_text == FloatText::FloatingDecimal && kinds.iter().any(|(_, k)| has_float(k)) {
            return Err(FormatError::Unsupported {
                format: "CSV",
                problem: "FLOAT/DOUBLE text of JDK 18 and older (FloatingDecimal) is not \
                          printed natively (decision 0037)"
                    .into(),
            });
        }
        let quote = options.quote();
        if quote.is_none() && options.escape_character.is_some() {
            return Err(FormatError::Unsupported {
                format: "CSV",
                problem: "an escape character with the quote character disabled is not \
                          encoded natively"
                    .into(),
            });
        }
        let min_safe = u32::from(options.field_delimiter)
            .max(quote.map_or(0, u32::from))
            .max(u32::from('\n'))
            + 1;
        Ok(Self {
            columns: kinds
                .into_iter()
                .zip(fields)
                .map(|((n, k), f)| (n, k, f.ty.to_arrow()))
                .collect(),
            separator: options.field_delimiter,
            quote,
            escape: options.escape_character,
            min_safe,
            array_delimiter: options.array_element_delimiter.clone(),
            null_literal: options.null_literal.clone().unwrap_or_default(),
            scientific: options.write_bigdecimal_in_scientific_notation,
        })
    }

    fn needs_quotes(&self, text: &str) -> bool {
        let Some(quote) = self.quote else {
            return false;
        };
        let esc1 = self.escape.unwrap_or(quote);
        let esc2 = self.escape.unwrap_or('\\');
        !text.is_empty()
            && text
                .chars()
                .any(|c| u32::from(c) < self.min_safe || c == esc1 || c == esc2)
    }

    /// Appends a text value, quoted when needed.
    fn push_text(&self, text: &str, out: &mut String) {
        match self.quote {
            Some(q) if self.needs_quotes(text) => {
                out.push(q);
                for c in text.chars() {
                    if c == q || Some(c) == self.escape {
                        out.push(c);
                    }
                    out.push(c);
                }
                out.push(q);
            }
            _ => out.push_str(text),
        }
    }

    /// Appends a non-NULL scalar: numbers and booleans go to `out` directly (`raw`), text to
    /// `text` (the caller quotes it).
    fn scalar(&self, kind: &Kind, array: &dyn Array, i: usize, out: &mut String) -> Result<bool> {
        use std::fmt::Write as _;
        let unencodable = |problem: String| FormatError::Unencodable {
            format: "CSV",
            index: i,
            field: String::new(),
            problem,
        };
        let wrong = || FormatError::Schema {
            format: "CSV",
            problem: format!("a column of {} does not match its type", array.data_type()),
        };
        Ok(match kind {
            Kind::Bool => {
                out.push_str(if array.as_boolean_opt().ok_or_else(wrong)?.value(i) {
                    "true"
                } else {
                    "false"
                });
                false
            }
            Kind::I8 => {
                let _ = write!(
                    out,
                    "{}",
                    array
                        .as_primitive_opt::<Int8Type>()
                        .ok_or_else(wrong)?
                        .value(i)
                );
                false
            }
            Kind::I16 => {
                let _ = write!(
                    out,
                    "{}",
                    array
                        .as_primitive_opt::<Int16Type>()
                        .ok_or_else(wrong)?
                        .value(i)
                );
                false
            }
            Kind::I32 => {
                let _ = write!(
                    out,
                    "{}",
                    array
                        .as_primitive_opt::<Int32Type>()
                        .ok_or_else(wrong)?
                        .value(i)
                );
                false
            }
            Kind::I64 => {
                let _ = write!(
                    out,
                    "{}",
                    array
                        .as_primitive_opt::<Int64Type>()
                        .ok_or_else(wrong)?
                        .value(i)
                );
                false
            }
            Kind::F32 => {
                out.push_str(&float_to_string(
                    array
                        .as_primitive_opt::<Float32Type>()
                        .ok_or_else(wrong)?
                        .value(i),
                ));
                false
            }
            Kind::F64 => {
                out.push_str(&double_to_string(
                    array
                        .as_primitive_opt::<Float64Type>()
                        .ok_or_else(wrong)?
                        .value(i),
                ));
                false
            }
            Kind::Decimal { scale, .. } => {
                let v = array
                    .as_primitive_opt::<Decimal128Type>()
                    .ok_or_else(wrong)?
                    .value(i);
                if self.scientific {
                    write_scientific_decimal(v, *scale, out);
                } else {
                    write_plain_decimal(v, *scale, out);
                }
                false
            }
            Kind::Str => {
                out.push_str(array.as_string_opt::<i32>().ok_or_else(wrong)?.value(i));
                true
            }
            Kind::Bin => {
                to_base64(
                    array.as_binary_opt::<i32>().ok_or_else(wrong)?.value(i),
                    out,
                );
                true
            }
            Kind::Date => {
                let days = array
                    .as_primitive_opt::<Date32Type>()
                    .ok_or_else(wrong)?
                    .value(i);
                if !write_iso_date(i64::from(days), out) {
                    return Err(unencodable(format!("DATE {days} days is out of range")));
                }
                true
            }
            Kind::Time { .. } => {
                let ms = array
                    .as_primitive_opt::<Time32MillisecondType>()
                    .ok_or_else(wrong)?
                    .value(i);
                if !(0..86_400_000).contains(&ms) {
                    return Err(unencodable(format!(
                        "TIME {ms} ms is not a time of day (LocalTime.ofNanoOfDay fails)"
                    )));
                }
                write_iso_time(i64::from(ms) * 1_000_000, out);
                true
            }
            Kind::Ts { ltz, .. } => {
                let ts = match array.data_type() {
                    DataType::Timestamp(TimeUnit::Millisecond, _) => Timestamp {
                        millis: array.as_primitive::<TimestampMillisecondType>().value(i),
                        nanos_of_milli: 0,
                    },
                    DataType::Timestamp(TimeUnit::Microsecond, _) => {
                        let v = array.as_primitive::<TimestampMicrosecondType>().value(i);
                        Timestamp {
                            millis: v.div_euclid(1000),
                            nanos_of_milli: (v.rem_euclid(1000) * 1000) as u32,
                        }
                    }
                    DataType::Timestamp(TimeUnit::Nanosecond, _) => {
                        let v = array.as_primitive::<TimestampNanosecondType>().value(i);
                        Timestamp {
                            millis: v.div_euclid(1_000_000),
                            nanos_of_milli: v.rem_euclid(1_000_000) as u32,
                        }
                    }
                    _ => return Err(wrong()),
                };
                if !write_timestamp(ts, out) {
                    return Err(unencodable(format!(
                        "timestamp {} ms is beyond the years this encoder prints",
                        ts.millis
                    )));
                }
                if *ltz {
                    out.push('Z');
                }
                true
            }
            Kind::Array(_) | Kind::Row(_) => return Err(wrong()),
        })
    }

    /// Appends one top-level field of row `i`.
    fn field(
        &self,
        kind: &Kind,
        array: &ArrayRef,
        i: usize,
        out: &mut String,
        text: &mut String,
    ) -> Result<()> {
        if array.is_null(i) {
            out.push_str(&self.null_literal);
            return Ok(());
        }
        text.clear();
        match kind {
            Kind::Array(element) => {
                let list = array
                    .as_list_opt::<i32>()
                    .ok_or_else(|| FormatError::Schema {
                        format: "CSV",
                        problem: "an ARRAY column is not a list".into(),
                    })?;
                let values = list.value(i);
                for k in 0..values.len() {
                    if k > 0 {
                        text.push_str(&self.array_delimiter);
                    }
                    if values.is_null(k) {
                        text.push_str(&self.null_literal);
                    } else {
                        self.scalar(element, values.as_ref(), k, text)?;
                    }
                }
            }
            Kind::Row(fields) => {
                let row = array.as_struct_opt().ok_or_else(|| FormatError::Schema {
                    format: "CSV",
                    problem: "a ROW column is not a struct".into(),
                })?;
                for (k, (_, element)) in fields.iter().enumerate() {
                    if k > 0 {
                        text.push_str(&self.array_delimiter);
                    }
                    let child = row.column(k);
                    if child.is_null(i) {
                        text.push_str(&self.null_literal);
                    } else {
                        self.scalar(element, child.as_ref(), i, text)?;
                    }
                }
            }
            scalar => {
                if !self.scalar(scalar, array.as_ref(), i, text)? {
                    out.push_str(text);
                    return Ok(());
                }
            }
        }
        self.push_text(text, out);
        Ok(())
    }
}

impl Encoder for CsvEncoder {
    fn encode(&mut self, batch: &RecordBatch) -> Result<BinaryArray> {
        if batch.num_columns() != self.columns.len()
            || batch
                .columns()
                .iter()
                .zip(&self.columns)
                .any(|(a, (_, _, dt))| a.data_type() != dt)
        {
            return Err(FormatError::Schema {
                format: "CSV",
                problem: format!(
                    "expected columns {:?}, got {:?}",
                    self.columns.iter().map(|(_, _, dt)| dt).collect::<Vec<_>>(),
                    batch
                        .schema()
                        .fields()
                        .iter()
                        .map(|f| f.data_type())
                        .collect::<Vec<_>>()
                ),
            });
        }
        let columns: Vec<&ArrayRef> = batch.columns().iter().collect();
        let mut out = BinaryBuilder::with_capacity(batch.num_rows(), batch.num_rows() * 16);
        let mut line = String::new();
        let mut text = String::new();
        for i in 0..batch.num_rows() {
            line.clear();
            for (c, (name, kind, _)) in self.columns.iter().enumerate() {
                if c > 0 {
                    line.push(self.separator);
                }
                self.field(kind, columns[c], i, &mut line, &mut text)
                    .map_err(|e| match e {
                        FormatError::Unencodable {
                            format, problem, ..
                        } => FormatError::Unencodable {
                            format,
                            index: i,
                            field: name.clone(),
                            problem,
                        },
                        other => other,
                    })?;
            }
            out.append_value(line.as_bytes());
        }
        Ok(out.finish())
    }
}
