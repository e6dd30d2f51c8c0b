//! `CsvRowDataDeserializationSchema`: each message's first record, split as Jackson splits
//! it ([`super::reader`]), converted field by field as `CsvToRowDataConverters` converts
//! them, straight into Arrow builders.

use std::sync::Arc;

use arrow::array::builder::NullBufferBuilder;
use arrow::array::{
    Array, ArrayRef, BinaryArray, BinaryBuilder, BooleanBuilder, Date32Builder, Decimal128Builder,
    Float32Builder, Float64Builder, Int8Builder, Int16Builder, Int32Builder, Int64Array,
    Int64Builder, ListArray, RecordBatch, StringArray, StructArray, Time32MillisecondBuilder,
};
use arrow::buffer::{OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{DataType, Schema};
use streamfusion_calc::calc::functions::java_format::{parse_double, parse_float};
use streamfusion_core::types::{RowField, row_arrow_fields};

use super::CsvOptions;
use super::reader::{ReadError, Reader, Span};
use super::schema::{Kind, kinds};
use super::text::{
    Timestamp, jackson_base64, java_decimal, java_local_time_millis, java_parse_long,
    java_sql_date, java_trim, plain_float_text, sql_timestamp,
};
use crate::error::{FormatError, Result};
use crate::{Decoded, Decoder};

/// Decodes CSV messages into rows of the table's schema (`'format' = 'csv'`).
#[derive(Debug)]
pub struct CsvDecoder {
    columns: Vec<(String, Kind, DataType)>,
    schema: Arc<Schema>,
    reader: Reader,
    array_delimiter: String,
    null_literal: Option<String>,
    ignore_parse_errors: bool,
    fields: Vec<Span>,
    scratch: Vec<u8>,
    bytes: Vec<u8>,
}

/// Why a field did not convert.
enum FieldError {
    /// Flink's converter throws: the message fails, or the field is NULL under
    /// `ignore-parse-errors`.
    Invalid(String),
    /// A value Flink reads that Arrow cannot carry: always an error.
    Unrepresentable(String),
}

impl CsvDecoder {
    /// A decoder for a table with `fields`, refusing what Flink's CSV format refuses
    /// (`MAP`, `MULTISET`, intervals, nesting below ARRAY/ROW, TIME with a precision above 3),
    /// and separators, quote or escape characters that are not ASCII (not run natively).
    pub fn try_new(fields: &[RowField], options: &CsvOptions) -> Result<Self> {
        let kinds = kinds(fields, true)?;
        let ascii = |c: char, what: &str| -> Result<u8> {
            if c.is_ascii() {
                Ok(c as u8)
            } else {
                Err(FormatError::Unsupported {
                    format: "CSV",
                    problem: format!("the {what} `{c}` is not ASCII; not decoded natively"),
                })
            }
        };
        let reader = Reader::new(
            ascii(options.field_delimiter, "field delimiter")?,
            options
                .quote()
                .map(|q| ascii(q, "quote character"))
                .transpose()?,
            options
                .escape_character
                .map(|e| ascii(e, "escape character"))
                .transpose()?,
            options.allow_comments,
        );
        let columns = kinds
            .into_iter()
            .zip(fields)
            .map(|((name, kind), f)| (name, kind, f.ty.to_arrow()))
            .collect();
        Ok(Self {
            columns,
            schema: Arc::new(Schema::new(row_arrow_fields(fields))),
            reader,
            array_delimiter: options.array_element_delimiter.clone(),
            null_literal: options.null_literal.clone(),
            ignore_parse_errors: options.ignore_parse_errors,
            fields: Vec::new(),
            scratch: Vec::new(),
            bytes: Vec::new(),
        })
    }
}

impl Decoder for CsvDecoder {
    fn decode(&mut self, messages: &BinaryArray) -> Result<Decoded> {
        let n = self.columns.len();
        let mut builders: Vec<Col> = self
            .columns
            .iter()
            .map(|(_, kind, dt)| Col::new(kind, dt, messages.len()))
            .collect();
        let mut skipped = Vec::new();
        let mut rows = 0usize;
        let mut fields = std::mem::take(&mut self.fields);
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut bytes = std::mem::take(&mut self.bytes);
        let result = (|| -> Result<()> {
            for index in 0..messages.len() {
                if messages.is_null(index) {
                    skipped.push(index as u32);
                    continue;
                }
                let msg = messages.value(index);
                let failed = |problem: String, field: String| FormatError::Malformed {
                    format: "CSV",
                    index,
                    field,
                    problem: format!(
                        "Failed to deserialize CSV row '{}'. ({problem})",
                        String::from_utf8_lossy(msg)
                    ),
                };
                // Jackson decodes the bytes as UTF-8 first.
                let text = match std::str::from_utf8(msg) {
                    Ok(text) => text,
                    Err(e) => {
                        if self.ignore_parse_errors {
                            skipped.push(index as u32);
                            continue;
                        }
                        return Err(failed(format!("Invalid UTF-8: {e}"), String::new()));
                    }
                };
                match self.reader.read(msg, n + 2, &mut fields, &mut scratch) {
                    Ok(()) => {}
                    Err(e) => {
                        if self.ignore_parse_errors {
                            skipped.push(index as u32);
                            continue;
                        }
                        let problem = match e {
                            ReadError::NoContent => "No content to map due to end-of-input".into(),
                            ReadError::Parse(p) => p,
                        };
                        return Err(failed(problem, String::new()));
                    }
                }
                let field_text = |span: &Span| -> &str {
                    if span.scratch {
                        std::str::from_utf8(&scratch[span.start as usize..span.end as usize])
                            .unwrap_or("\u{FFFD}")
                    } else {
                        &text[span.start as usize..span.end as usize]
                    }
                };
                // Too many entries (one trailing empty field is a trailing comma).
                let count = fields.len();
                if count > n && !(count == n + 1 && fields[n].start == fields[n].end) {
                    if self.ignore_parse_errors {
                        skipped.push(index as u32);
                        continue;
                    }
                    let value = field_text(&fields[n]);
                    return Err(failed(
                        format!(
                            "Too many entries: expected at most {n} (value #{n} ({} chars) \"{value}\")",
                            value.encode_utf16().count()
                        ),
                        String::new(),
                    ));
                }
                let present = count.min(n);
                if present < n && !self.ignore_parse_errors {
                    return Err(failed(
                        format!("Row length mismatch. {n} fields expected but was {present}."),
                        String::new(),
                    ));
                }
                for (c, builder) in builders.iter_mut().enumerate() {
                    let (name, kind, _) = &self.columns[c];
                    if c >= present {
                        builder.append_null();
                        continue;
                    }
                    let value = field_text(&fields[c]);
                    let outcome = if !matches!(kind, Kind::Array(_) | Kind::Row(_))
                        && self.is_null_literal(value)
                    {
                        builder.append_null();
                        Ok(())
                    } else {
                        self.convert(kind, value, builder, &mut bytes)
                    };
                    match outcome {
                        Ok(()) => {}
                        Err(FieldError::Invalid(_)) if self.ignore_parse_errors => {
                            builder.append_null();
                        }
                        Err(FieldError::Invalid(cause)) => {
                            return Err(failed(
                                format!("Fail to deserialize at field: {name}. {cause}"),
                                name.clone(),
                            ));
                        }
                        Err(FieldError::Unrepresentable(cause)) => {
                            return Err(failed(cause, name.clone()));
                        }
                    }
                }
                rows += 1;
            }
            Ok(())
        })();
        self.fields = fields;
        self.scratch = scratch;
        self.bytes = bytes;
        result?;
        let arrays = builders
            .into_iter()
            .zip(&self.columns)
            .map(|(b, (_, _, dt))| b.finish(dt))
            .collect::<Result<Vec<_>>>()?;
        let batch = RecordBatch::try_new_with_options(
            self.schema.clone(),
            arrays,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        Ok(Decoded { batch, skipped })
    }
}

impl CsvDecoder {
    /// Converts a top-level field's text.
    fn convert(
        &self,
        kind: &Kind,
        value: &str,
        builder: &mut Col,
        bytes: &mut Vec<u8>,
    ) -> Result<(), FieldError> {
        match (kind, builder) {
            (
                Kind::Array(element),
                Col::List {
                    offsets,
                    nulls,
                    child,
                },
            ) => {
                // In strict mode an error fails the whole batch; under ignore-parse-errors an
                // element that does not convert is NULL, so nothing is ever half appended.
                self.for_each_element(value, |item| match item {
                    None => {
                        child.append_null();
                        Ok(())
                    }
                    Some(text) => match scalar(element, text, child, bytes) {
                        Err(FieldError::Invalid(_)) if self.ignore_parse_errors => {
                            child.append_null();
                            Ok(())
                        }
                        other => other,
                    },
                })?;
                offsets.push(i32::try_from(child.len()).unwrap_or(i32::MAX));
                nulls.append_non_null();
                Ok(())
            }
            (Kind::Row(row_fields), Col::Struct { children, nulls }) => {
                let mut items: Vec<Option<&str>> = Vec::with_capacity(row_fields.len());
                let _ = self.for_each_element(value, |item| {
                    items.push(item);
                    Ok(())
                });
                if items.is_empty() {
                    for child in children.iter_mut() {
                        child.append_null();
                    }
                    nulls.append_null();
                    return Ok(());
                }
                if items.len() < row_fields.len() && !self.ignore_parse_errors {
                    return Err(FieldError::Invalid(format!(
                        "Row length mismatch. {} fields expected but was {}.",
                        row_fields.len(),
                        items.len()
                    )));
                }
                for (k, ((_, element), child)) in
                    row_fields.iter().zip(children.iter_mut()).enumerate()
                {
                    let outcome = match items.get(k).copied().flatten() {
                        None => {
                            child.append_null();
                            Ok(())
                        }
                        Some(text) => match scalar(element, text, child, bytes) {
                            Err(FieldError::Invalid(_)) if self.ignore_parse_errors => {
                                child.append_null();
                                Ok(())
                            }
                            other => other,
                        },
                    };
                    outcome?;
                }
                nulls.append_non_null();
                Ok(())
            }
            (kind, builder) => scalar(kind, value, builder, bytes),
        }
    }

    /// Jackson's array splitting: a value without the delimiter that is blank has no
    /// elements; otherwise the pieces between delimiters, each NULL when it is the null
    /// literal.
    fn for_each_element<'a>(
        &self,
        value: &'a str,
        mut f: impl FnMut(Option<&'a str>) -> Result<(), FieldError>,
    ) -> Result<(), FieldError> {
        let delimiter = self.array_delimiter.as_str();
        if delimiter.is_empty() || !value.contains(delimiter) {
            if java_trim(value).is_empty() {
                return Ok(());
            }
            return f(self.element(value));
        }
        for piece in value.split(delimiter) {
            f(self.element(piece))?;
        }
        Ok(())
    }

    /// Whether `value` is the null literal (lengths first: most fields are not).
    #[inline]
    fn is_null_literal(&self, value: &str) -> bool {
        match &self.null_literal {
            None => false,
            Some(literal) => {
                literal.len() == value.len()
                    && (literal.is_empty() || literal.as_bytes() == value.as_bytes())
            }
        }
    }

    fn element<'a>(&self, piece: &'a str) -> Option<&'a str> {
        (!self.is_null_literal(piece)).then_some(piece)
    }
}

/// Converts a scalar's text (never NULL here) into `builder`.
fn scalar(
    kind: &Kind,
    text: &str,
    builder: &mut Col,
    bytes: &mut Vec<u8>,
) -> Result<(), FieldError> {
    let number = |what: &str| FieldError::Invalid(format!("For input string: \"{text}\" ({what})"));
    match (kind, builder) {
        (Kind::Bool, Col::Bool(b)) => b.append_value(java_trim(text).eq_ignore_ascii_case("true")),
        (Kind::I8, Col::I8(b)) => b.append_value(
            java_parse_long(java_trim(text), i64::from(i8::MIN), i64::from(i8::MAX))
                .ok_or_else(|| number("TINYINT"))? as i8,
        ),
        (Kind::I16, Col::I16(b)) => b.append_value(
            java_parse_long(java_trim(text), i64::from(i16::MIN), i64::from(i16::MAX))
                .ok_or_else(|| number("SMALLINT"))? as i16,
        ),
        (Kind::I32, Col::I32(b)) => b.append_value(
            java_parse_long(java_trim(text), i64::from(i32::MIN), i64::from(i32::MAX))
                .ok_or_else(|| number("INT"))? as i32,
        ),
        (Kind::I64, Col::I64(b)) => b.append_value(
            java_parse_long(java_trim(text), i64::MIN, i64::MAX).ok_or_else(|| number("BIGINT"))?,
        ),
        (Kind::F32, Col::F32(b)) => b.append_value(float_text(text, parse_float)?),
        (Kind::F64, Col::F64(b)) => b.append_value(float_text(text, parse_double)?),
        (Kind::Decimal { precision, scale }, Col::Dec(b)) => {
            match java_decimal(text, *precision, *scale) {
                Ok(Some(v)) => b.append_value(v),
                Ok(None) => b.append_null(),
                Err(()) => {
                    return Err(FieldError::Invalid(format!("not a BigDecimal: \"{text}\"")));
                }
            }
        }
        (
            Kind::Str,
            Col::Str {
                offsets,
                values,
                nulls,
            },
        ) => {
            values.extend_from_slice(text.as_bytes());
            offsets.push(i32::try_from(values.len()).map_err(|_| {
                FieldError::Unrepresentable("more than 2 GiB of strings in a batch".into())
            })?);
            nulls.append_non_null();
        }
        (Kind::Bin, Col::Bin(b)) => {
            bytes.clear();
            jackson_base64(text.as_bytes(), bytes).map_err(|e| {
                FieldError::Invalid(format!("Unable to deserialize byte array. ({e})"))
            })?;
            b.append_value(&bytes[..]);
        }
        (Kind::Date, Col::Date(b)) => b.append_value(
            java_sql_date(text)
                .ok_or_else(|| FieldError::Invalid(format!("not a date: \"{text}\"")))?,
        ),
        (Kind::Time { precision }, Col::Time(b)) => {
            let millis = java_local_time_millis(text)
                .ok_or_else(|| FieldError::Invalid(format!("Text '{text}' could not be parsed")))?;
            let unit = match precision {
                0 => 1000,
                1 => 100,
                2 => 10,
                _ => 1,
            };
            b.append_value(millis / unit * unit);
        }
        (Kind::Ts { precision, ltz }, Col::Ts(b)) => {
            let ts = sql_timestamp(java_trim(text), *ltz)
                .ok_or_else(|| FieldError::Invalid(format!("Text '{text}' could not be parsed")))?;
            b.append_value(timestamp_value(ts, *precision)?);
        }
        _ => {
            return Err(FieldError::Unrepresentable(
                "internal: builder does not match the column type".into(),
            ));
        }
    }
    Ok(())
}

/// `Float.parseFloat`/`Double.parseDouble` of a field (they trim themselves); a hexadecimal
/// literal, which Java reads but the native parser does not, fails hard.
fn float_text<T: std::str::FromStr>(
    text: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, FieldError> {
    if let Some(v) = plain_float_text(text).and_then(|t| t.parse::<T>().ok()) {
        return Ok(v);
    }
    parse(text).map_err(|e| {
        let t = java_trim(text);
        let t = t.strip_prefix(['+', '-']).unwrap_or(t);
        // Java's HexFloatingPointLiteral needs a binary exponent (`0x1p3`).
        if (t.starts_with("0x") || t.starts_with("0X")) && t.contains(['p', 'P']) {
            FieldError::Unrepresentable(format!(
                "hexadecimal floating-point text \"{text}\" is not decoded natively"
            ))
        } else {
            FieldError::Invalid(e)
        }
    })
}

/// A timestamp in the Arrow unit of TIMESTAMP(precision).
fn timestamp_value(ts: Timestamp, precision: u8) -> Result<i64, FieldError> {
    match precision {
        0..=3 => Ok(ts.millis),
        4..=6 => ts
            .millis
            .checked_mul(1000)
            .and_then(|v| v.checked_add(i64::from(ts.nanos_of_milli / 1000)))
            .ok_or_else(|| {
                FieldError::Unrepresentable("timestamp out of the microsecond range".into())
            }),
        _ => ts
            .millis
            .checked_mul(1_000_000)
            .and_then(|v| v.checked_add(i64::from(ts.nanos_of_milli)))
            .ok_or_else(|| {
                FieldError::Unrepresentable(format!(
                    "TIMESTAMP({precision}) value at {} ms is outside the nanosecond range of \
                     Arrow (years 1677-2262)",
                    ts.millis
                ))
            }),
    }
}

/// A column under construction.
enum Col {
    Bool(BooleanBuilder),
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    F32(Float32Builder),
    F64(Float64Builder),
    Dec(Decimal128Builder),
    Str {
        offsets: Vec<i32>,
        values: Vec<u8>,
        nulls: NullBufferBuilder,
    },
    Bin(BinaryBuilder),
    Date(Date32Builder),
    Time(Time32MillisecondBuilder),
    Ts(Int64Builder),
    List {
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
        child: Box<Col>,
    },
    Struct {
        children: Vec<Col>,
        nulls: NullBufferBuilder,
    },
}

impl Col {
    fn new(kind: &Kind, dt: &DataType, capacity: usize) -> Col {
        match kind {
            Kind::Bool => Col::Bool(BooleanBuilder::with_capacity(capacity)),
            Kind::I8 => Col::I8(Int8Builder::with_capacity(capacity)),
            Kind::I16 => Col::I16(Int16Builder::with_capacity(capacity)),
            Kind::I32 => Col::I32(Int32Builder::with_capacity(capacity)),
            Kind::I64 => Col::I64(Int64Builder::with_capacity(capacity)),
            Kind::F32 => Col::F32(Float32Builder::with_capacity(capacity)),
            Kind::F64 => Col::F64(Float64Builder::with_capacity(capacity)),
            Kind::Decimal { .. } => Col::Dec(Decimal128Builder::with_capacity(capacity)),
            Kind::Str => {
                let mut offsets = Vec::with_capacity(capacity + 1);
                offsets.push(0);
                Col::Str {
                    offsets,
                    values: Vec::new(),
                    nulls: NullBufferBuilder::new(capacity),
                }
            }
            Kind::Bin => Col::Bin(BinaryBuilder::with_capacity(capacity, 0)),
            Kind::Date => Col::Date(Date32Builder::with_capacity(capacity)),
            Kind::Time { .. } => Col::Time(Time32MillisecondBuilder::with_capacity(capacity)),
            Kind::Ts { .. } => Col::Ts(Int64Builder::with_capacity(capacity)),
            Kind::Array(element) => {
                let child_dt = match dt {
                    DataType::List(f) => f.data_type().clone(),
                    other => other.clone(),
                };
                Col::List {
                    offsets: vec![0],
                    nulls: NullBufferBuilder::new(capacity),
                    child: Box::new(Col::new(element, &child_dt, capacity)),
                }
            }
            Kind::Row(fields) => {
                let child_dts: Vec<DataType> = match dt {
                    DataType::Struct(fs) => fs.iter().map(|f| f.data_type().clone()).collect(),
                    _ => Vec::new(),
                };
                Col::Struct {
                    children: fields
                        .iter()
                        .enumerate()
                        .map(|(k, (_, kind))| {
                            Col::new(kind, child_dts.get(k).unwrap_or(&DataType::Null), capacity)
                        })
                        .collect(),
                    nulls: NullBufferBuilder::new(capacity),
                }
            }
        }
    }

    fn len(&self) -> usize {
        use arrow::array::ArrayBuilder;
        match self {
            Col::Bool(b) => b.len(),
            Col::I8(b) => b.len(),
            Col::I16(b) => b.len(),
            Col::I32(b) => b.len(),
            Col::I64(b) | Col::Ts(b) => b.len(),
            Col::F32(b) => b.len(),
            Col::F64(b) => b.len(),
            Col::Dec(b) => b.len(),
            Col::Str { offsets, .. } | Col::List { offsets, .. } => offsets.len() - 1,
            Col::Bin(b) => b.len(),
            Col::Date(b) => b.len(),
            Col::Time(b) => b.len(),
            Col::Struct { nulls, .. } => nulls.len(),
        }
    }

    fn append_null(&mut self) {
        match self {
            Col::Bool(b) => b.append_null(),
            Col::I8(b) => b.append_null(),
            Col::I16(b) => b.append_null(),
            Col::I32(b) => b.append_null(),
            Col::I64(b) | Col::Ts(b) => b.append_null(),
            Col::F32(b) => b.append_null(),
            Col::F64(b) => b.append_null(),
            Col::Dec(b) => b.append_null(),
            Col::Str { offsets, nulls, .. } | Col::List { offsets, nulls, .. } => {
                offsets.push(offsets.last().copied().unwrap_or(0));
                nulls.append_null();
            }
            Col::Bin(b) => b.append_null(),
            Col::Date(b) => b.append_null(),
            Col::Time(b) => b.append_null(),
            Col::Struct { children, nulls } => {
                for c in children {
                    c.append_null();
                }
                nulls.append_null();
            }
        }
    }

    fn finish(self, dt: &DataType) -> Result<ArrayRef> {
        Ok(match self {
            Col::Bool(mut b) => Arc::new(b.finish()),
            Col::I8(mut b) => Arc::new(b.finish()),
            Col::I16(mut b) => Arc::new(b.finish()),
            Col::I32(mut b) => Arc::new(b.finish()),
            Col::I64(mut b) => Arc::new(b.finish()),
            Col::F32(mut b) => Arc::new(b.finish()),
            Col::F64(mut b) => Arc::new(b.finish()),
            Col::Dec(b) => {
                let mut b = match dt {
                    DataType::Decimal128(..) => b.with_data_type(dt.clone()),
                    _ => b,
                };
                Arc::new(b.finish())
            }
            Col::Str {
                offsets,
                values,
                mut nulls,
            } => Arc::new(StringArray::try_new(
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                values.into(),
                nulls.finish(),
            )?),
            Col::Bin(mut b) => Arc::new(b.finish()),
            Col::Date(mut b) => Arc::new(b.finish()),
            Col::Time(mut b) => Arc::new(b.finish()),
            Col::Ts(mut b) => {
                let values: Int64Array = b.finish();
                if matches!(dt, DataType::Timestamp(..)) {
                    let data = values
                        .into_data()
                        .into_builder()
                        .data_type(dt.clone())
                        .build()?;
                    arrow::array::make_array(data)
                } else {
                    Arc::new(values)
                }
            }
            Col::List {
                offsets,
                mut nulls,
                child,
            } => {
                let DataType::List(field) = dt else {
                    return Err(FormatError::Schema {
                        format: "CSV",
                        problem: format!("an ARRAY column finishes as {dt}"),
                    });
                };
                let values = child.finish(field.data_type())?;
                Arc::new(ListArray::try_new(
                    field.clone(),
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    values,
                    nulls.finish(),
                )?)
            }
            Col::Struct {
                children,
                mut nulls,
            } => {
                let DataType::Struct(fields) = dt else {
                    return Err(FormatError::Schema {
                        format: "CSV",
                        problem: format!("a ROW column finishes as {dt}"),
                    });
                };
                let len = nulls.len();
                let arrays = children
                    .into_iter()
                    .zip(fields.iter())
                    .map(|(c, f)| c.finish(f.data_type()))
                    .collect::<Result<Vec<_>>>()?;
                Arc::new(StructArray::try_new_with_length(
                    fields.clone(),
                    arrays,
                    nulls.finish(),
                    len,
                )?)
            }
        })
    }
}
