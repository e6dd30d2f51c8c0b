//! The JSON decoder: Flink's `JsonParserRowDataDeserializationSchema` with
//! `JsonParserToRowDataConverters`, replayed token by token over [`Lexer`] straight into
//! column builders (no tree per message; a string without escapes is copied once).
//!
//! # Flink's walk, which this file follows step by step
//!
//! - A message: empty → no row; otherwise the first token must be `{` (one row) or `[` (one
//!   row per element, each element converted as a row; a `null` element or a failed one under
//!   ignore-parse-errors gives no row). Anything after the root value is never read.
//! - A ROW: `{` required; then, while the current token is not `}`: once as many fields
//!   matched as the row has (duplicates count), the rest is skipped; otherwise the current
//!   token's text is the name, the parser moves on, and a known name's value is converted (a
//!   failure becomes `Fail to deserialize at field: <name>.`; under ignore-parse-errors the
//!   field is NULL), an unknown one skipped. A converter that stops inside a value (a BOOLEAN
//!   given `{}` reads `{` as text) leaves the row loop to carry on from there, as Flink does.
//! - Each value converter is wrapped: no token or `null` → NULL; a failure under
//!   ignore-parse-errors → NULL (its partial output is rolled back).
//! - Per type: see [`convert_not_null`].
//!
//! A field set twice keeps the last value (its column is truncated back and written again);
//! a map keeps the last value of a repeated key.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, BooleanBufferBuilder, ListArray, PrimitiveArray,
    RecordBatch, StringArray, StructArray, UInt32Array,
};
use arrow::buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow::datatypes::{
    ArrowPrimitiveType, DataType, Date32Type, Decimal128Type, DurationMillisecondType, Field,
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, IntervalYearMonthType,
    Schema, SchemaRef, Time32MillisecondType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType,
};
use streamfusion_calc::calc::functions::java_format::{
    double_to_string, parse_double, parse_float,
};
use streamfusion_core::types::{LogicalType, RowField, array_item_field, row_arrow_fields};

use super::lexer::{Lexer, Scope, Tok};
use super::numbers::{
    BigDec, NumberError, big_decimal_to_string, jackson_base64_decode, parse_big_decimal,
    strip_trailing_zeros,
};
use super::options::{JsonOptions, TimestampFormat};
use super::timestamps::{parse_date_text, parse_time_text, parse_timestamp_text, timestamp_parts};
use super::write_json_string;
use crate::error::{FormatError, Result};
use crate::java_text::{java_decimal, java_parse_long, java_trim};
use crate::{Decoded, Decoder};

/// Why a value or message failed.
#[derive(Debug)]
enum Fail {
    /// What Flink's converters throw (swallowed under ignore-parse-errors).
    Parse { path: String, problem: String },
    /// A value Flink reads but this implementation cannot carry: always an error.
    Fatal { path: String, problem: String },
}

impl Fail {
    fn parse(problem: impl Into<String>) -> Self {
        Fail::Parse {
            path: String::new(),
            problem: problem.into(),
        }
    }

    fn fatal(problem: impl Into<String>) -> Self {
        Fail::Fatal {
            path: String::new(),
            problem: problem.into(),
        }
    }

    /// The failure seen from the enclosing value: `segment` prefixed to the path.
    fn within(mut self, segment: &str) -> Self {
        let (Fail::Parse { path, .. } | Fail::Fatal { path, .. }) = &mut self;
        if path.is_empty() || path.starts_with('[') {
            path.insert_str(0, segment);
        } else {
            path.insert(0, '.');
            path.insert_str(0, segment);
        }
        self
    }
}

impl From<super::lexer::LexError> for Fail {
    fn from(e: super::lexer::LexError) -> Self {
        Fail::parse(e.0)
    }
}

fn number_fail(e: NumberError, text: &str) -> Fail {
    match e {
        NumberError::Format => Fail::parse(format!("For input string: \"{text}\"")),
        NumberError::UnicodeDigits => Fail::fatal(format!(
            "`{text}` has digits of a script other than ASCII, which Java's number parsing reads and this implementation does not"
        )),
    }
}

/// A primitive column being built.
#[derive(Debug)]
struct Prim<T> {
    values: Vec<T>,
    valid: BooleanBufferBuilder,
}

impl<T: Copy + Default> Prim<T> {
    fn new() -> Self {
        Self {
            values: Vec::new(),
            valid: BooleanBufferBuilder::new(0),
        }
    }

    #[inline]
    fn push(&mut self, v: T) {
        self.values.push(v);
        self.valid.append(true);
    }

    fn push_null(&mut self) {
        self.values.push(T::default());
        self.valid.append(false);
    }

    fn truncate(&mut self, len: usize) {
        self.values.truncate(len);
        self.valid.truncate(len);
    }
}

impl<T: arrow::datatypes::ArrowNativeType> Prim<T> {
    fn finish<P: ArrowPrimitiveType<Native = T>>(&mut self, dt: &DataType) -> Result<ArrayRef> {
        let values = std::mem::take(&mut self.values);
        let nulls = nulls(&mut self.valid);
        Ok(Arc::new(
            PrimitiveArray::<P>::try_new(ScalarBuffer::from(values), nulls)?
                .with_data_type(dt.clone()),
        ))
    }
}

fn nulls(valid: &mut BooleanBufferBuilder) -> Option<NullBuffer> {
    let n = NullBuffer::new(valid.finish());
    (n.null_count() > 0).then_some(n)
}

/// A variable-length column (strings, binaries, map keys).
#[derive(Debug)]
struct Bytes {
    offsets: Vec<i32>,
    data: Vec<u8>,
    valid: BooleanBufferBuilder,
}

impl Bytes {
    fn new() -> Self {
        Self {
            offsets: vec![0],
            data: Vec::new(),
            valid: BooleanBufferBuilder::new(0),
        }
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    #[inline]
    fn push(&mut self, v: &[u8]) -> Result<(), Fail> {
        self.data.extend_from_slice(v);
        self.close(true)
    }

    #[inline]
    fn close(&mut self, valid: bool) -> Result<(), Fail> {
        let end = i32::try_from(self.data.len())
            .map_err(|_| Fail::fatal("the batch's text exceeds 2 GiB"))?;
        self.offsets.push(end);
        self.valid.append(valid);
        Ok(())
    }

    fn push_null(&mut self) {
        let end = self.offsets.last().copied().unwrap_or(0);
        self.offsets.push(end);
        self.valid.append(false);
    }

    fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        self.data.truncate(self.offsets[len] as usize);
        self.valid.truncate(len);
    }

    fn take_parts(&mut self) -> (OffsetBuffer<i32>, arrow::buffer::Buffer, Option<NullBuffer>) {
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        let data = std::mem::take(&mut self.data);
        (
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            arrow::buffer::Buffer::from_vec(data),
            nulls(&mut self.valid),
        )
    }

    fn finish_str(&mut self) -> Result<ArrayRef> {
        let (o, d, n) = self.take_parts();
        // SAFETY: offsets start at 0 and never decrease (`close`/`truncate` keep them so),
        // and every value appended to a string column is valid UTF-8: a `&str`, a tree
        // printed from `&str`s and ASCII, or a string token's raw bytes that the lexer
        // scanned as plain (no escapes, every multi-byte sequence checked by
        // `std::str::from_utf8`, no deferred problem). Measured: re-validating the
        // batch's text cost about a tenth of decoding 264-byte strings.
        Ok(Arc::new(unsafe { StringArray::new_unchecked(o, d, n) }))
    }

    fn finish_bin(&mut self) -> Result<ArrayRef> {
        let (o, d, n) = self.take_parts();
        Ok(Arc::new(BinaryArray::try_new(o, d, n)?))
    }

    fn value(&self, i: usize) -> &[u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// The fields of a ROW being built.
#[derive(Debug)]
struct RowCol {
    names: Vec<String>,
    index: HashMap<String, usize>,
    children: Vec<Col>,
    valid: BooleanBufferBuilder,
    len: usize,
    fields: arrow::datatypes::Fields,
}

impl RowCol {
    fn new(fields: &[RowField]) -> Result<Self> {
        Ok(Self {
            names: fields.iter().map(|f| f.name.clone()).collect(),
            index: fields
                .iter()
                .enumerate()
                .map(|(i, f)| (f.name.clone(), i))
                .collect(),
            children: fields
                .iter()
                .map(|f| Col::new(&f.ty))
                .collect::<Result<_>>()?,
            valid: BooleanBufferBuilder::new(0),
            len: 0,
            fields: row_arrow_fields(fields),
        })
    }

    #[inline]
    fn lookup(&self, name: &str, hint: usize) -> Option<usize> {
        if self.names.get(hint).is_some_and(|n| n == name) {
            return Some(hint);
        }
        self.index.get(name).copied()
    }

    fn truncate(&mut self, len: usize) {
        self.len = len;
        self.valid.truncate(len);
        for c in &mut self.children {
            c.truncate(len);
        }
    }

    fn push_null(&mut self) {
        for c in &mut self.children {
            c.push_null();
        }
        self.valid.append(false);
        self.len += 1;
    }

    fn finish_columns(&mut self) -> Result<Vec<ArrayRef>> {
        self.len = 0;
        self.valid = BooleanBufferBuilder::new(0);
        self.children.iter_mut().map(Col::finish).collect()
    }
}

/// An ARRAY (`element`) or a MAP (`entries` of `key`, `value`) being built.
#[derive(Debug)]
struct ListCol {
    offsets: Vec<i32>,
    valid: BooleanBufferBuilder,
    /// ARRAY: the elements. MAP: the values.
    child: Box<Col>,
    /// MAP only: the keys.
    keys: Option<Box<Col>>,
    /// MAP only: a map of this batch repeats a key.
    dup: bool,
    ty: LogicalType,
}

impl ListCol {
    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        let end = self.offsets[len] as usize;
        self.child.truncate(end);
        if let Some(k) = &mut self.keys {
            k.truncate(end);
        }
        self.valid.truncate(len);
    }

    fn close(&mut self, valid: bool) -> Result<(), Fail> {
        let end = i32::try_from(self.child.len())
            .map_err(|_| Fail::fatal("the batch's list elements exceed i32"))?;
        self.offsets.push(end);
        self.valid.append(valid);
        Ok(())
    }
}

/// A column being built, with what its type needs to convert values.
#[derive(Debug)]
enum Col {
    Bool(Prim<bool>),
    TinyInt(Prim<i8>),
    SmallInt(Prim<i16>),
    /// INT, INTERVAL YEAR TO MONTH.
    Int(Prim<i32>, DataType),
    /// BIGINT, INTERVAL DAY TO SECOND.
    BigInt(Prim<i64>, DataType),
    Float(Prim<f32>),
    Double(Prim<f64>),
    Decimal(Prim<i128>, u8, u8),
    Str(Bytes),
    Bin(Bytes),
    Date(Prim<i32>),
    Time(Prim<i32>),
    /// Precision and whether it is a TIMESTAMP_LTZ.
    Timestamp(Prim<i64>, u8, bool),
    Row(RowCol),
    List(ListCol),
}

impl Col {
    fn new(ty: &LogicalType) -> Result<Self> {
        Ok(match ty {
            LogicalType::Boolean => Col::Bool(Prim::new()),
            LogicalType::TinyInt => Col::TinyInt(Prim::new()),
            LogicalType::SmallInt => Col::SmallInt(Prim::new()),
            LogicalType::Int | LogicalType::IntervalYearMonth => {
                Col::Int(Prim::new(), ty.to_arrow())
            }
            LogicalType::BigInt | LogicalType::IntervalDayTime => {
                Col::BigInt(Prim::new(), ty.to_arrow())
            }
            LogicalType::Float => Col::Float(Prim::new()),
            LogicalType::Double => Col::Double(Prim::new()),
            LogicalType::Decimal { precision, scale } => {
                Col::Decimal(Prim::new(), *precision, *scale)
            }
            LogicalType::Char(_) | LogicalType::VarChar(_) => Col::Str(Bytes::new()),
            LogicalType::Binary(_) | LogicalType::VarBinary(_) => Col::Bin(Bytes::new()),
            LogicalType::Date => Col::Date(Prim::new()),
            LogicalType::Time(_) => Col::Time(Prim::new()),
            LogicalType::Timestamp(p) => Col::Timestamp(Prim::new(), *p, false),
            LogicalType::TimestampLtz(p) => Col::Timestamp(Prim::new(), *p, true),
            LogicalType::Row(fields) => Col::Row(RowCol::new(fields)?),
            LogicalType::Array(element) => Col::List(ListCol {
                offsets: vec![0],
                valid: BooleanBufferBuilder::new(0),
                child: Box::new(Col::new(element)?),
                keys: None,
                dup: false,
                ty: ty.clone(),
            }),
            LogicalType::Map(key, value) => {
                if !matches!(**key, LogicalType::Char(_) | LogicalType::VarChar(_)) {
                    return Err(FormatError::Unsupported {
                        format: "JSON",
                        problem: format!(
                            "JSON format doesn't support non-string as key type of map. The type is: {ty}"
                        ),
                    });
                }
                Col::List(ListCol {
                    offsets: vec![0],
                    valid: BooleanBufferBuilder::new(0),
                    child: Box::new(Col::new(value)?),
                    keys: Some(Box::new(Col::new(key)?)),
                    dup: false,
                    ty: ty.clone(),
                })
            }
        })
    }

    fn len(&self) -> usize {
        match self {
            Col::Bool(p) => p.values.len(),
            Col::TinyInt(p) => p.values.len(),
            Col::SmallInt(p) => p.values.len(),
            Col::Int(p, _) | Col::Date(p) | Col::Time(p) => p.values.len(),
            Col::BigInt(p, _) | Col::Timestamp(p, ..) => p.values.len(),
            Col::Float(p) => p.values.len(),
            Col::Double(p) => p.values.len(),
            Col::Decimal(p, ..) => p.values.len(),
            Col::Str(b) | Col::Bin(b) => b.len(),
            Col::Row(r) => r.len,
            Col::List(l) => l.len(),
        }
    }

    fn truncate(&mut self, len: usize) {
        match self {
            Col::Bool(p) => p.truncate(len),
            Col::TinyInt(p) => p.truncate(len),
            Col::SmallInt(p) => p.truncate(len),
            Col::Int(p, _) | Col::Date(p) | Col::Time(p) => p.truncate(len),
            Col::BigInt(p, _) | Col::Timestamp(p, ..) => p.truncate(len),
            Col::Float(p) => p.truncate(len),
            Col::Double(p) => p.truncate(len),
            Col::Decimal(p, ..) => p.truncate(len),
            Col::Str(b) | Col::Bin(b) => b.truncate(len),
            Col::Row(r) => r.truncate(len),
            Col::List(l) => l.truncate(len),
        }
    }

    fn push_null(&mut self) {
        match self {
            Col::Bool(p) => p.push_null(),
            Col::TinyInt(p) => p.push_null(),
            Col::SmallInt(p) => p.push_null(),
            Col::Int(p, _) | Col::Date(p) | Col::Time(p) => p.push_null(),
            Col::BigInt(p, _) | Col::Timestamp(p, ..) => p.push_null(),
            Col::Float(p) => p.push_null(),
            Col::Double(p) => p.push_null(),
            Col::Decimal(p, ..) => p.push_null(),
            Col::Str(b) | Col::Bin(b) => b.push_null(),
            Col::Row(r) => r.push_null(),
            Col::List(l) => {
                let end = l.offsets.last().copied().unwrap_or(0);
                l.offsets.push(end);
                l.valid.append(false);
            }
        }
    }

    fn finish(&mut self) -> Result<ArrayRef> {
        match self {
            Col::Bool(p) => {
                let values = std::mem::take(&mut p.values);
                let n = nulls(&mut p.valid);
                Ok(Arc::new(BooleanArray::new(values.into_iter().collect(), n)))
            }
            Col::TinyInt(p) => p.finish::<Int8Type>(&DataType::Int8),
            Col::SmallInt(p) => p.finish::<Int16Type>(&DataType::Int16),
            Col::Int(p, dt) => {
                if matches!(dt, DataType::Int32) {
                    p.finish::<Int32Type>(dt)
                } else {
                    p.finish::<IntervalYearMonthType>(dt)
                }
            }
            Col::BigInt(p, dt) => {
                if matches!(dt, DataType::Int64) {
                    p.finish::<Int64Type>(dt)
                } else {
                    p.finish::<DurationMillisecondType>(dt)
                }
            }
            Col::Float(p) => p.finish::<Float32Type>(&DataType::Float32),
            Col::Double(p) => p.finish::<Float64Type>(&DataType::Float64),
            Col::Decimal(p, precision, scale) => {
                p.finish::<Decimal128Type>(&DataType::Decimal128(*precision, *scale as i8))
            }
            Col::Str(b) => b.finish_str(),
            Col::Bin(b) => b.finish_bin(),
            Col::Date(p) => p.finish::<Date32Type>(&DataType::Date32),
            Col::Time(p) => {
                p.finish::<Time32MillisecondType>(&DataType::Time32(TimeUnit::Millisecond))
            }
            Col::Timestamp(p, precision, ltz) => {
                let ty = if *ltz {
                    LogicalType::TimestampLtz(*precision)
                } else {
                    LogicalType::Timestamp(*precision)
                };
                let dt = ty.to_arrow();
                match *precision {
                    0..=3 => p.finish::<TimestampMillisecondType>(&dt),
                    4..=6 => p.finish::<TimestampMicrosecondType>(&dt),
                    _ => p.finish::<TimestampNanosecondType>(&dt),
                }
            }
            Col::Row(r) => {
                let n = nulls(&mut r.valid);
                let columns = r.finish_columns()?;
                Ok(Arc::new(StructArray::try_new(
                    r.fields.clone(),
                    columns,
                    n,
                )?))
            }
            Col::List(l) => finish_list(l),
        }
    }
}

fn finish_list(l: &mut ListCol) -> Result<ArrayRef> {
    let offsets = std::mem::replace(&mut l.offsets, vec![0]);
    let n = nulls(&mut l.valid);
    let values = l.child.finish()?;
    match (&l.ty, &mut l.keys) {
        (LogicalType::Map(key, value), Some(keys)) => {
            let keys = keys.finish()?;
            let entry_fields = streamfusion_core::types::map_entry_fields(key, value);
            let mut entries: ArrayRef = Arc::new(StructArray::try_new(
                entry_fields.clone(),
                vec![keys, values],
                None,
            )?);
            let mut offsets = offsets;
            if std::mem::take(&mut l.dup) {
                (entries, offsets) = dedupe_maps(&entries, &offsets)?;
            }
            let field = Arc::new(Field::new(
                streamfusion_core::types::MAP_ENTRIES_FIELD,
                DataType::Struct(entry_fields),
                false,
            ));
            Ok(Arc::new(ListArray::try_new(
                field,
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                entries,
                n,
            )?))
        }
        (LogicalType::Array(element), _) => Ok(Arc::new(ListArray::try_new(
            array_item_field(element),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            values,
            n,
        )?)),
        _ => Err(FormatError::Unsupported {
            format: "JSON",
            problem: format!("list column of type {}", l.ty),
        }),
    }
}

/// Keeps, per map, the last entry of each key (Flink's `HashMap.put`).
fn dedupe_maps(entries: &ArrayRef, offsets: &[i32]) -> Result<(ArrayRef, Vec<i32>)> {
    let keys = entries
        .as_any()
        .downcast_ref::<StructArray>()
        .map(|s| s.column(0).clone())
        .ok_or_else(|| FormatError::Unsupported {
            format: "JSON",
            problem: "map entries are not a struct".into(),
        })?;
    let keys =
        keys.as_any()
            .downcast_ref::<StringArray>()
            .ok_or_else(|| FormatError::Unsupported {
                format: "JSON",
                problem: "map keys are not strings".into(),
            })?;
    let mut take = Vec::new();
    let mut new_offsets = vec![0i32];
    for w in offsets.windows(2) {
        let (start, end) = (w[0] as usize, w[1] as usize);
        let mut last: HashMap<Option<&str>, usize> = HashMap::new();
        let mut order = Vec::new();
        for i in start..end {
            let k = keys.is_valid(i).then(|| keys.value(i));
            if last.insert(k, i).is_none() {
                order.push(k);
            }
        }
        for k in order {
            take.push(last[&k] as u32);
        }
        new_offsets.push(take.len() as i32);
    }
    let indices = UInt32Array::from(take);
    Ok((
        arrow::compute::take(entries.as_ref(), &indices, None)?,
        new_offsets,
    ))
}

/// What the converters need besides the columns.
#[derive(Debug)]
struct Ctx {
    ignore: bool,
    fail_missing: bool,
    iso: bool,
    /// The schema has a DECIMAL: Jackson's tree reads floats as BigDecimal.
    tree_big_decimal: bool,
    scratch: Vec<u8>,
}

/// Decodes JSON messages as Flink 2.3.0's `'format' = 'json'`.
#[derive(Debug)]
pub struct JsonDecoder {
    ctx: Ctx,
    root: RowCol,
    schema: SchemaRef,
    /// The tokenizer's container stack, kept between messages.
    stack: Vec<Scope>,
}

fn has_decimal(ty: &LogicalType) -> bool {
    match ty {
        LogicalType::Decimal { .. } => true,
        LogicalType::Row(fields) => fields.iter().any(|f| has_decimal(&f.ty)),
        LogicalType::Array(e) => has_decimal(e),
        LogicalType::Map(k, v) => has_decimal(k) || has_decimal(v),
        _ => false,
    }
}

impl JsonDecoder {
    /// A decoder into rows of `fields` (the table's columns) under `options`. Refuses a MAP
    /// whose key is not a string, as Flink does.
    pub fn try_new(fields: &[RowField], options: &JsonOptions) -> Result<Self> {
        if options.fail_on_missing_field && options.ignore_parse_errors {
            return Err(FormatError::Option {
                key: "json.fail-on-missing-field".into(),
                problem: "JSON format doesn't support failOnMissingField and ignoreParseErrors are both enabled.".into(),
            });
        }
        let root = RowCol::new(fields)?;
        let schema = Arc::new(Schema::new(row_arrow_fields(fields)));
        Ok(Self {
            ctx: Ctx {
                ignore: options.ignore_parse_errors,
                fail_missing: options.fail_on_missing_field,
                iso: options.timestamp_format == TimestampFormat::Iso8601,
                tree_big_decimal: fields.iter().any(|f| has_decimal(&f.ty)),
                scratch: Vec::new(),
            },
            root,
            schema,
            stack: Vec::new(),
        })
    }

    /// Decodes one message; the rows it gave (0 when it gave none).
    fn message(&mut self, bytes: &[u8]) -> Result<usize, Fail> {
        if bytes.is_empty() {
            return Ok(0);
        }
        let start = self.root.len;
        let mut lx = Lexer::with_stack(bytes, std::mem::take(&mut self.stack));
        let outcome = (|| -> Result<(), Fail> {
            lx.next()?;
            match lx.cur() {
                Some(Tok::StartObject) => top_row(&mut self.ctx, &mut lx, &mut self.root),
                Some(Tok::StartArray) => loop {
                    match lx.next()? {
                        Some(Tok::EndArray) => return Ok(()),
                        None => return Err(Fail::parse("Unexpected end-of-input")),
                        Some(_) => top_row(&mut self.ctx, &mut lx, &mut self.root)?,
                    }
                },
                _ => Err(Fail::parse("No content to map due to end-of-input")),
            }
        })();
        self.stack = lx.into_stack();
        match outcome {
            Ok(()) => Ok(self.root.len - start),
            // Rows collected before the failure stay (Flink's collector has them).
            Err(Fail::Parse { .. }) if self.ctx.ignore => Ok(self.root.len - start),
            Err(e) => {
                self.root.truncate(start);
                Err(e)
            }
        }
    }
}

/// The top-level row converter (nullable-wrapped): a row, or none for `null` or, under
/// ignore-parse-errors, for a failure.
fn top_row(ctx: &mut Ctx, lx: &mut Lexer<'_>, root: &mut RowCol) -> Result<(), Fail> {
    if matches!(lx.cur(), None | Some(Tok::Null)) {
        return Ok(());
    }
    let start = root.len;
    match row(ctx, lx, root) {
        Ok(()) => Ok(()),
        Err(Fail::Parse { .. }) if ctx.ignore => {
            root.truncate(start);
            Ok(())
        }
        Err(e) => {
            root.truncate(start);
            Err(e)
        }
    }
}

/// `skipToNextField`.
fn skip_to_next_field(lx: &mut Lexer<'_>) -> Result<(), Fail> {
    match lx.cur() {
        Some(Tok::StartObject | Tok::StartArray) => {
            let mut depth = 1usize;
            while depth > 0 {
                match lx.next()? {
                    Some(Tok::EndObject | Tok::EndArray) => depth -= 1,
                    Some(Tok::StartObject | Tok::StartArray) => depth += 1,
                    Some(_) => {}
                    None => return Err(Fail::parse("Unexpected end-of-input")),
                }
            }
        }
        None => return Err(Fail::parse("java.lang.NullPointerException")),
        Some(_) => {}
    }
    lx.next()?;
    Ok(())
}

/// The row converter (current token must be `{`).
fn row(ctx: &mut Ctx, lx: &mut Lexer<'_>, rc: &mut RowCol) -> Result<(), Fail> {
    if lx.cur() != Some(Tok::StartObject) {
        return Err(Fail::parse("Illegal JSON object data..."));
    }
    let row_pos = rc.len;
    let arity = rc.children.len();
    let mut cnt = 0;
    let mut hint = 0;
    lx.next()?;
    while lx.cur() != Some(Tok::EndObject) {
        if cnt >= arity {
            skip_to_next_field(lx)?;
            continue;
        }
        let idx = match lx.text()? {
            Some(name) => rc.lookup(name, hint),
            None => None,
        };
        lx.next()?;
        match idx {
            Some(i) => {
                let child = &mut rc.children[i];
                if child.len() > row_pos {
                    child.truncate(row_pos);
                }
                if let Err(e) = convert(ctx, lx, child) {
                    child.truncate(row_pos);
                    return Err(e.within(&rc.names[i]));
                }
                lx.next()?;
                cnt += 1;
                hint = i + 1;
            }
            None => skip_to_next_field(lx)?,
        }
    }
    if cnt < arity && ctx.fail_missing {
        return Err(Fail::parse("Some field is missing in the JSON data."));
    }
    for c in &mut rc.children {
        if c.len() == row_pos {
            c.push_null();
        }
    }
    rc.valid.append(true);
    rc.len += 1;
    Ok(())
}

/// A value converter wrapped as Flink's `wrapIntoNullableConverter`.
fn convert(ctx: &mut Ctx, lx: &mut Lexer<'_>, col: &mut Col) -> Result<(), Fail> {
    if matches!(lx.cur(), None | Some(Tok::Null)) {
        col.push_null();
        return Ok(());
    }
    let start = col.len();
    match convert_not_null(ctx, lx, col) {
        Ok(()) => Ok(()),
        Err(Fail::Parse { .. }) if ctx.ignore => {
            col.truncate(start);
            col.push_null();
            Ok(())
        }
        Err(e) => {
            col.truncate(start);
            Err(e)
        }
    }
}

fn token_name(t: Option<Tok>) -> &'static str {
    match t {
        None => "null",
        Some(Tok::StartObject) => "START_OBJECT",
        Some(Tok::EndObject) => "END_OBJECT",
        Some(Tok::StartArray) => "START_ARRAY",
        Some(Tok::EndArray) => "END_ARRAY",
        Some(Tok::FieldName) => "FIELD_NAME",
        Some(Tok::String) => "VALUE_STRING",
        Some(Tok::Int) => "VALUE_NUMBER_INT",
        Some(Tok::Float) => "VALUE_NUMBER_FLOAT",
        Some(Tok::True) => "VALUE_TRUE",
        Some(Tok::False) => "VALUE_FALSE",
        Some(Tok::Null) => "VALUE_NULL",
    }
}

/// The current token's text, `getText()` (a null text fails as Java's `.trim()` would).
fn text<'l>(lx: &'l mut Lexer<'_>) -> Result<&'l str, Fail> {
    match lx.text()? {
        Some(t) => Ok(t),
        None => Err(Fail::parse("java.lang.NullPointerException")),
    }
}

/// Jackson's `getIntValue()` on a number token.
fn jackson_int(lx: &mut Lexer<'_>) -> Result<i32, Fail> {
    let float = lx.cur() == Some(Tok::Float);
    let t = text(lx)?;
    if float {
        let d: f64 = t.parse().unwrap_or(f64::NAN);
        if !(d >= i32::MIN as f64 && d <= i32::MAX as f64) {
            return Err(Fail::parse(format!(
                "Numeric value ({t}) out of range of int (-2147483648 - 2147483647)"
            )));
        }
        return Ok(d as i32);
    }
    match t.parse::<i64>() {
        Ok(v) if v >= i32::MIN as i64 && v <= i32::MAX as i64 => Ok(v as i32),
        _ => Err(Fail::parse(format!(
            "Numeric value ({t}) out of range of int (-2147483648 - 2147483647)"
        ))),
    }
}

/// Jackson's `getLongValue()` on a number token.
fn jackson_long(lx: &mut Lexer<'_>) -> Result<i64, Fail> {
    let float = lx.cur() == Some(Tok::Float);
    let t = text(lx)?;
    if float {
        let d: f64 = t.parse().unwrap_or(f64::NAN);
        if !(d >= i64::MIN as f64 && d <= i64::MAX as f64) {
            return Err(Fail::parse(format!(
                "Numeric value ({t}) out of range of long"
            )));
        }
        return Ok(d as i64);
    }
    t.parse::<i64>()
        .map_err(|_| Fail::parse(format!("Numeric value ({t}) out of range of long")))
}

fn parse_integer_text(lx: &mut Lexer<'_>, min: i64, max: i64) -> Result<i64, Fail> {
    let t = text(lx)?;
    let trimmed = java_trim(t);
    java_parse_long(trimmed, min, max).ok_or_else(|| number_fail(NumberError::Format, trimmed))
}

/// One value, the current token not `null`: Flink's `createNotNullConverter` per type.
fn convert_not_null(ctx: &mut Ctx, lx: &mut Lexer<'_>, col: &mut Col) -> Result<(), Fail> {
    let cur = lx.cur();
    match col {
        Col::Bool(p) => {
            let v = match cur {
                Some(Tok::True) => true,
                Some(Tok::False) => false,
                _ => java_trim(text(lx)?).eq_ignore_ascii_case("true"),
            };
            p.push(v);
        }
        Col::TinyInt(p) => {
            let v = if cur == Some(Tok::Int) {
                let v = jackson_int(lx)?;
                if !(-128..=127).contains(&v) {
                    return Err(Fail::parse(format!(
                        "Numeric value ({v}) out of range of Java byte."
                    )));
                }
                v as i64
            } else {
                parse_integer_text(lx, -128, 127)?
            };
            p.push(v as i8);
        }
        Col::SmallInt(p) => {
            let v = if cur == Some(Tok::Int) {
                let v = jackson_int(lx)?;
                if !(-32768..=32767).contains(&v) {
                    return Err(Fail::parse(format!(
                        "Numeric value ({v}) out of range of Java short"
                    )));
                }
                v as i64
            } else {
                parse_integer_text(lx, -32768, 32767)?
            };
            p.push(v as i16);
        }
        Col::Int(p, _) => {
            let v = if matches!(cur, Some(Tok::Int | Tok::Float)) {
                jackson_int(lx)?
            } else {
                parse_integer_text(lx, i32::MIN as i64, i32::MAX as i64)? as i32
            };
            p.push(v);
        }
        Col::BigInt(p, _) => {
            let v = if matches!(cur, Some(Tok::Int | Tok::Float)) {
                jackson_long(lx)?
            } else {
                parse_integer_text(lx, i64::MIN, i64::MAX)?
            };
            p.push(v);
        }
        Col::Float(p) => {
            let float = cur == Some(Tok::Float);
            let t = text(lx)?;
            let v = if float {
                t.parse::<f32>()
                    .map_err(|_| Fail::parse(format!("For input string: \"{t}\"")))?
            } else {
                parse_float(t).map_err(Fail::parse)?
            };
            p.push(v);
        }
        Col::Double(p) => {
            let float = cur == Some(Tok::Float);
            let t = text(lx)?;
            let v = if float {
                t.parse::<f64>()
                    .map_err(|_| Fail::parse(format!("For input string: \"{t}\"")))?
            } else {
                parse_double(t).map_err(Fail::parse)?
            };
            p.push(v);
        }
        Col::Decimal(p, precision, scale) => {
            let t = match cur {
                Some(Tok::String) => java_trim(text(lx)?),
                Some(Tok::Int | Tok::Float) => text(lx)?,
                other => {
                    return Err(Fail::parse(format!(
                        "Current token ({}) not numeric, can not use numeric value accessors",
                        token_name(other)
                    )));
                }
            };
            match java_decimal(t, *precision, *scale) {
                Ok(Some(v)) => p.push(v),
                Ok(None) => p.push_null(),
                Err(()) => return Err(number_fail(NumberError::Format, t)),
            }
        }
        Col::Str(b) => match cur {
            Some(Tok::StartObject | Tok::StartArray) => {
                let node = read_tree(lx, ctx.tree_big_decimal)?;
                write_node(&node, &mut b.data);
                b.close(true)?;
            }
            _ => {
                if let Some(raw) = lx.plain_string_bytes() {
                    b.push(raw)?;
                } else {
                    let t = text(lx)?;
                    b.push(t.as_bytes())?;
                }
            }
        },
        Col::Bin(b) => {
            if cur != Some(Tok::String) {
                return Err(Fail::parse(format!(
                    "Current token ({}) not VALUE_STRING or VALUE_EMBEDDED_OBJECT, can not access as binary",
                    token_name(cur)
                )));
            }
            let t = text(lx)?;
            ctx.scratch.clear();
            jackson_base64_decode(t, &mut ctx.scratch).map_err(Fail::parse)?;
            b.push(&ctx.scratch)?;
        }
        Col::Date(p) => {
            let t = text(lx)?;
            let day = parse_date_text(t)
                .ok_or_else(|| Fail::parse(format!("Text '{t}' could not be parsed")))?;
            // `(int) date.toEpochDay()`.
            p.push(day as i32);
        }
        Col::Time(p) => {
            let t = text(lx)?;
            let ms = parse_time_text(t)
                .ok_or_else(|| Fail::parse(format!("Text '{t}' could not be parsed")))?;
            p.push(ms);
        }
        Col::Timestamp(p, precision, ltz) => {
            let t = text(lx)?;
            let ldt = parse_timestamp_text(t, ctx.iso, *ltz)
                .ok_or_else(|| Fail::parse(format!("Text '{t}' could not be parsed")))?;
            let v = timestamp_parts(ldt)
                .and_then(|(millis, nanos)| to_unit(millis, nanos, *precision))
                .ok_or_else(|| {
                    Fail::fatal(format!(
                        "timestamp '{t}' is outside the range of TIMESTAMP({precision}) in Arrow (nanosecond precision holds years 1677 to 2262)"
                    ))
                })?;
            p.push(v);
        }
        Col::Row(r) => row(ctx, lx, r)?,
        Col::List(l) => {
            if l.keys.is_none() {
                if cur != Some(Tok::StartArray) {
                    return Err(Fail::parse("Illegal JSON array data..."));
                }
                let mut i = 0usize;
                loop {
                    match lx.next()? {
                        Some(Tok::EndArray) => break,
                        None => return Err(Fail::parse("Unexpected end-of-input")),
                        Some(_) => {}
                    }
                    convert(ctx, lx, &mut l.child).map_err(|e| e.within(&format!("[{i}]")))?;
                    i += 1;
                }
                l.close(true)?;
            } else {
                if cur != Some(Tok::StartObject) {
                    return Err(Fail::parse("Illegal JSON map data..."));
                }
                let first = l.child.len();
                loop {
                    match lx.next()? {
                        Some(Tok::EndObject) => break,
                        None => return Err(Fail::parse("Unexpected end-of-input")),
                        Some(_) => {}
                    }
                    let Some(keys) = l.keys.as_deref_mut() else {
                        return Err(Fail::fatal("map without keys"));
                    };
                    convert(ctx, lx, keys)?;
                    lx.next()?;
                    convert(ctx, lx, &mut l.child)?;
                    if !l.dup {
                        l.dup = repeats_key(keys, first);
                    }
                }
                l.close(true)?;
            }
        }
    }
    Ok(())
}

/// Whether the key just added to `keys` repeats one added since `first`.
fn repeats_key(keys: &Col, first: usize) -> bool {
    let Col::Str(b) = keys else { return false };
    let last = b.len() - 1;
    let valid = |i: usize| b.valid.get_bit(i);
    (first..last).any(|i| valid(i) == valid(last) && (!valid(i) || b.value(i) == b.value(last)))
}

/// `TimestampData` parts in the column's Arrow unit; `None` when it does not fit.
fn to_unit(millis: i64, nanos: i64, precision: u8) -> Option<i64> {
    match precision {
        0..=3 => Some(millis),
        4..=6 => millis.checked_mul(1000)?.checked_add(nanos / 1000),
        _ => millis.checked_mul(1_000_000)?.checked_add(nanos),
    }
}

/// A JSON tree as Jackson's `readValueAsTree()` builds it (for a CHAR/VARCHAR field given an
/// object or array).
enum Node {
    Obj(Vec<(String, Node)>),
    Arr(Vec<Node>),
    Str(String),
    /// A number's printed text.
    Num(String),
    /// A float Jackson's tree keeps as a double that is not finite: printed quoted.
    NonFinite(&'static str),
    Bool(bool),
    Null,
}

fn read_tree(lx: &mut Lexer<'_>, big_decimal: bool) -> Result<Node, Fail> {
    Ok(match lx.cur() {
        Some(Tok::StartObject) => {
            let mut entries: Vec<(String, Node)> = Vec::new();
            loop {
                match lx.next()? {
                    Some(Tok::EndObject) => break,
                    Some(Tok::FieldName) => {}
                    _ => return Err(Fail::parse("Unexpected token in object")),
                }
                let name = text(lx)?.to_string();
                lx.next()?;
                let value = read_tree(lx, big_decimal)?;
                // ObjectNode.replace: a repeated name keeps its place, takes the last value.
                match entries.iter_mut().find(|(n, _)| *n == name) {
                    Some(e) => e.1 = value,
                    None => entries.push((name, value)),
                }
            }
            Node::Obj(entries)
        }
        Some(Tok::StartArray) => {
            let mut items = Vec::new();
            loop {
                match lx.next()? {
                    Some(Tok::EndArray) => break,
                    None => return Err(Fail::parse("Unexpected end-of-input")),
                    Some(_) => items.push(read_tree(lx, big_decimal)?),
                }
            }
            Node::Arr(items)
        }
        Some(Tok::String) => Node::Str(text(lx)?.to_string()),
        Some(Tok::Int) => {
            let t = text(lx)?;
            Node::Num(if t == "-0" { "0".into() } else { t.to_string() })
        }
        Some(Tok::Float) => {
            let t = text(lx)?;
            if big_decimal {
                let mut bd: BigDec = parse_big_decimal(t).map_err(|e| number_fail(e, t))?;
                strip_trailing_zeros(&mut bd);
                let mut out = Vec::new();
                big_decimal_to_string(&bd, &mut out);
                Node::Num(String::from_utf8(out).unwrap_or_default())
            } else {
                let d: f64 = t.parse().unwrap_or(f64::NAN);
                if d.is_infinite() {
                    Node::NonFinite(if d > 0.0 { "Infinity" } else { "-Infinity" })
                } else {
                    Node::Num(double_to_string(d))
                }
            }
        }
        Some(Tok::True) => Node::Bool(true),
        Some(Tok::False) => Node::Bool(false),
        Some(Tok::Null) => Node::Null,
        other => {
            return Err(Fail::parse(format!(
                "Unexpected token ({})",
                token_name(other)
            )));
        }
    })
}

/// `JsonNode.toString()`: compact, strings escaped as Jackson's writer-based generator does
/// (characters outside the BMP written as they are).
fn write_node(node: &Node, out: &mut Vec<u8>) {
    match node {
        Node::Obj(entries) => {
            out.push(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_string(k, out, false);
                out.push(b':');
                write_node(v, out);
            }
            out.push(b'}');
        }
        Node::Arr(items) => {
            out.push(b'[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_node(v, out);
            }
            out.push(b']');
        }
        Node::Str(s) => write_json_string(s, out, false),
        Node::Num(n) => out.extend_from_slice(n.as_bytes()),
        Node::NonFinite(n) => {
            out.push(b'"');
            out.extend_from_slice(n.as_bytes());
            out.push(b'"');
        }
        Node::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Node::Null => out.extend_from_slice(b"null"),
    }
}

impl Decoder for JsonDecoder {
    fn decode(&mut self, messages: &arrow::array::BinaryArray) -> Result<Decoded> {
        let mut skipped = Vec::new();
        for i in 0..messages.len() {
            if messages.is_null(i) {
                skipped.push(i as u32);
                continue;
            }
            match self.message(messages.value(i)) {
                Ok(0) => skipped.push(i as u32),
                Ok(_) => {}
                Err(e) => {
                    // Nothing of this batch is returned; the builders start afresh.
                    self.root.truncate(0);
                    let (field, problem) = match e {
                        Fail::Parse { path, problem } => (path, problem),
                        Fail::Fatal { path, problem } => (path, problem),
                    };
                    return Err(FormatError::Malformed {
                        format: "JSON",
                        index: i,
                        field,
                        problem,
                    });
                }
            }
        }
        let rows = self.root.len;
        let columns = self.root.finish_columns()?;
        let batch = RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &arrow::array::RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        Ok(Decoded { batch, skipped })
    }
}
