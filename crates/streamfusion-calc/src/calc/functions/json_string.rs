//! JSON text of values (opcodes 808–810): `JSON_STRING(x)`, `JSON_OBJECT(KEY k VALUE v, ..)`
//! and `JSON_ARRAY(v, ..)`, as Flink 2.3.0 writes them.
//!
//! Flink's `JsonStringCallGen` (and `JsonObjectCallGen`, `JsonArrayCallGen`) turn each value
//! into a Jackson tree
//! (`JsonGenerateUtils.createNodeTerm`) and writes it with `SqlJsonUtils.serializeJson`: the
//! tree read back into plain Java objects and written by an `ObjectMapper` with
//! `ORDER_MAP_ENTRIES_BY_KEYS` and `USE_BIG_DECIMAL_FOR_FLOATS` (the shaded Jackson 2.20).
//! `docs/research/json-string-flink-2.3.0.md` has the rules, checked on the released jars;
//! in short:
//!
//! - A NULL argument gives SQL NULL; a NULL inside an ARRAY, MAP or ROW is `null`.
//! - Strings are quoted with `"`, `\` and the controls below U+0020 escaped (`\b \t \n \f \r`
//!   short, the others `\u00XX` in uppercase hex), nothing else.
//! - Integers and BOOLEAN as they print; a DECIMAL as `BigDecimal.toString` at its scale
//!   (`1.50`, `0E-10`, `1E-7`).
//! - A DOUBLE (a FLOAT widened to one) as `new BigDecimal(Double.toString(d)).toString()`
//!   (`1.0E+10`, `0.00010`, `12345678`, `-0.0` as `0.0`); NaN and the infinities as the
//!   strings `"NaN"`, `"Infinity"`, `"-Infinity"`. Under a JVM whose `Double.toString` is not
//!   the shortest form (decision 0037) the call is refused.
//! - TIMESTAMP as `ISO_LOCAL_DATE_TIME` (seconds always, the fraction only when not zero and
//!   without trailing zeros), TIMESTAMP_LTZ the same of its UTC time with a `Z`.
//! - BINARY/VARBINARY as padded standard Base64, quoted.
//! - ARRAY as `[..]`; MAP (character string keys only; a NULL key fails the row) and ROW
//!   (by field name) as `{..}` with their keys in `String.compareTo` order, UTF-16 code
//!   units; a repeated MAP key keeps its last value.
//! - DATE, TIME and intervals are refused (Flink's validation rejects them at the top, its code
//!   generation inside a container).
//!
//! `JSON_OBJECT` and `JSON_ARRAY` are never NULL: a NULL value is `null` (`NULL ON NULL`, the
//! default of `JSON_OBJECT`) or left out (`ABSENT ON NULL`, the default of `JSON_ARRAY`); a
//! repeated key keeps its last value, and the keys are written in order. A value that is
//! itself a `JSON_OBJECT` or `JSON_ARRAY` call is inserted as its text, raw. Their first
//! argument is a VARCHAR literal saying both, which the planner writes: `N` (NULL ON NULL) or
//! `A` (ABSENT ON NULL), then a letter per value, `r` for raw JSON text and `v` for a value
//! (`"Nvr"`). A `JSON_STRING` over a `JSON_OBJECT` or `JSON_ARRAY` call, which Flink writes
//! raw too, is that call to the planner; `JSON(..)` values, which Flink parses and writes
//! again, are refused.

use std::cmp::Ordering;
use std::fmt::Write;
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use arrow::datatypes::DataType;
use arrow::datatypes::{
    Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, TimeUnit,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;

use crate::calc::FloatText;
use crate::calc::coercion::is_string;
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::java_format::double_to_string;
use super::string::STRING;
use super::string_codec::to_base64;
use super::util::{fail, result};

/// `JSON_STRING(x)`: `x` as JSON text. `STRING`, NULL for a NULL `x`.
pub const JSON_STRING: u16 = 808;
/// `JSON_OBJECT(layout, k, v, ..)`: an object of the keys (character strings, not NULL) and
/// values. `STRING NOT NULL`.
pub const JSON_OBJECT: u16 = 809;
/// `JSON_ARRAY(layout, v, ..)`: an array of the values. `STRING NOT NULL`.
pub const JSON_ARRAY: u16 = 810;

/// The module's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: JSON_STRING,
        name: "JSON_STRING",
        arity: Arity::Exact(1),
        bind: bind_json_string,
    },
    FunctionDef {
        opcode: JSON_OBJECT,
        name: "JSON_OBJECT",
        arity: Arity::AtLeast(1),
        bind: |a| bind_constructor(a, true),
    },
    FunctionDef {
        opcode: JSON_ARRAY,
        name: "JSON_ARRAY",
        arity: Arity::AtLeast(1),
        bind: |a| bind_constructor(a, false),
    },
];

/// How a `JSON_OBJECT`/`JSON_ARRAY` call writes its values: its layout literal.
#[derive(Debug, Clone)]
struct Layout {
    /// `NULL ON NULL` (else `ABSENT ON NULL`).
    null_on_null: bool,
    /// Per value: whether it is raw JSON text.
    raw: Vec<bool>,
}

impl Layout {
    fn parse(text: &str, values: usize) -> Result<Self, String> {
        let mut chars = text.chars();
        let null_on_null = match chars.next() {
            Some('N') => true,
            Some('A') => false,
            _ => return Err(format!("a JSON constructor layout {text:?} without N or A")),
        };
        let raw = chars
            .map(|c| match c {
                'r' => Ok(true),
                'v' => Ok(false),
                other => Err(format!("a JSON constructor layout {text:?} with {other:?}")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if raw.len() != values {
            return Err(format!(
                "a JSON constructor layout {text:?} for {values} values"
            ));
        }
        Ok(Layout { null_on_null, raw })
    }
}

fn bind_constructor(args: &Args<'_>, object: bool) -> Result<Bound, String> {
    let layout = match args.literal(0) {
        Some(
            ScalarValue::Utf8(Some(text))
            | ScalarValue::LargeUtf8(Some(text))
            | ScalarValue::Utf8View(Some(text)),
        ) => text.clone(),
        _ => return Err("the first argument must be the layout literal".into()),
    };
    let operands = &args.types[1..];
    if object && !operands.len().is_multiple_of(2) {
        return Err("keys and values must come in pairs".into());
    }
    let values: Vec<LogicalType> = if object {
        for key in operands.iter().step_by(2) {
            if !is_string(key) {
                return Err(format!("a key must be a character string, not {key}"));
            }
        }
        operands.iter().skip(1).step_by(2).cloned().collect()
    } else {
        operands.to_vec()
    };
    let layout = Layout::parse(&layout, values.len())?;
    for (ty, &raw) in values.iter().zip(&layout.raw) {
        if raw && !is_string(ty) {
            return Err(format!(
                "raw JSON text must be a character string, not {ty}"
            ));
        }
        convertible(ty, args.float_text)?;
    }
    Ok(Bound {
        args: args.types.to_vec(),
        result: STRING,
        kernel: Kernel::function(
            if object { "JSON_OBJECT" } else { "JSON_ARRAY" },
            &STRING,
            move |args, rows| constructor(args, rows, object, &layout, &values),
        ),
    })
}

fn constructor(
    args: &[ColumnarValue],
    rows: usize,
    object: bool,
    layout: &Layout,
    types: &[LogicalType],
) -> DfResult<ColumnarValue> {
    let rows = if args[1..]
        .iter()
        .all(|a| matches!(a, ColumnarValue::Scalar(_)))
    {
        1
    } else {
        rows
    };
    let arrays = args[1..]
        .iter()
        .map(|a| a.to_array(rows))
        .collect::<DfResult<Vec<_>>>()?;
    let (keys, values): (Vec<&ArrayRef>, Vec<&ArrayRef>) = if object {
        (
            arrays.iter().step_by(2).collect(),
            arrays.iter().skip(1).step_by(2).collect(),
        )
    } else {
        (Vec::new(), arrays.iter().collect())
    };
    let mut out = StringBuilder::with_capacity(rows, rows * 16);
    let mut text = String::new();
    let mut members: Vec<(&str, String)> = Vec::with_capacity(values.len());
    for row in 0..rows {
        text.clear();
        members.clear();
        for (v, (array, ty)) in values.iter().zip(types).enumerate() {
            if array.is_null(row) && !layout.null_on_null {
                continue;
            }
            let mut value = String::new();
            if layout.raw[v] && !array.is_null(row) {
                value.push_str(array.as_string::<i32>().value(row));
            } else {
                write_value(&mut value, array.as_ref(), row, ty).map_err(fail)?;
            }
            let key = match keys.get(v) {
                Some(keys) if keys.is_null(row) => {
                    return Err(fail("a JSON_OBJECT key is NULL"));
                }
                Some(keys) => keys.as_string::<i32>().value(row),
                None => "",
            };
            match members.iter_mut().find(|(k, _)| object && *k == key) {
                Some(member) => member.1 = value,
                None => members.push((key, value)),
            }
        }
        if object {
            members.sort_by(|a, b| utf16_order(a.0, b.0));
            write_object(&mut text, members.iter().map(|(k, v)| (*k, v.as_str())));
        } else {
            text.push('[');
            for (n, (_, value)) in members.iter().enumerate() {
                if n > 0 {
                    text.push(',');
                }
                text.push_str(value);
            }
            text.push(']');
        }
        out.append_value(&text);
    }
    let array: ArrayRef = Arc::new(out.finish());
    if rows == 1
        && args[1..]
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)))
    {
        Ok(ColumnarValue::Scalar(ScalarValue::try_from_array(
            &array, 0,
        )?))
    } else {
        Ok(ColumnarValue::Array(array))
    }
}

fn bind_json_string(args: &Args<'_>) -> Result<Bound, String> {
    let ty = args.types[0].clone();
    convertible(&ty, args.float_text)?;
    let value = ty.clone();
    Ok(Bound {
        args: vec![ty],
        result: STRING,
        kernel: Kernel::function("JSON_STRING", &STRING, move |args, rows| {
            json_string(&args[0], rows, &value)
        }),
    })
}

/// Whether Flink converts a value of `ty` into JSON, and the native text is its text.
fn convertible(ty: &LogicalType, float_text: FloatText) -> Result<(), String> {
    match ty {
        LogicalType::Boolean
        | LogicalType::TinyInt
        | LogicalType::SmallInt
        | LogicalType::Int
        | LogicalType::BigInt
        | LogicalType::Decimal { .. }
        | LogicalType::Char(_)
        | LogicalType::VarChar(_)
        | LogicalType::Binary(_)
        | LogicalType::VarBinary(_)
        | LogicalType::Timestamp(_)
        | LogicalType::TimestampLtz(_) => Ok(()),
        LogicalType::Float | LogicalType::Double => match float_text {
            FloatText::Shortest => Ok(()),
            FloatText::FloatingDecimal => Err(crate::calc::compile::FLOATING_DECIMAL.into()),
        },
        LogicalType::Array(element) => convertible(element, float_text),
        LogicalType::Map(key, value) => {
            if !is_string(key) {
                return Err(format!(
                    "a MAP's keys must be character strings to become JSON, not {key}"
                ));
            }
            convertible(value, float_text)
        }
        LogicalType::Row(fields) => fields
            .iter()
            .try_for_each(|f| convertible(&f.ty, float_text)),
        LogicalType::Date
        | LogicalType::Time(_)
        | LogicalType::IntervalYearMonth
        | LogicalType::IntervalDayTime => Err(format!(
            "type {ty} is not scalar or cannot be converted into JSON"
        )),
    }
}

fn json_string(arg: &ColumnarValue, rows: usize, ty: &LogicalType) -> DfResult<ColumnarValue> {
    let rows = match arg {
        ColumnarValue::Scalar(_) => 1,
        ColumnarValue::Array(_) => rows,
    };
    let array = arg.to_array(rows)?;
    let mut out = StringBuilder::with_capacity(array.len(), array.len() * 8);
    let mut text = String::new();
    for i in 0..array.len() {
        if array.is_null(i) {
            out.append_null();
            continue;
        }
        text.clear();
        write_value(&mut text, array.as_ref(), i, ty).map_err(fail)?;
        out.append_value(&text);
    }
    result(std::slice::from_ref(arg), Arc::new(out.finish()))
}

/// Appends value `i` of `array` (of type `ty`) as JSON; `null` when it is NULL.
fn write_value(
    out: &mut String,
    array: &dyn Array,
    i: usize,
    ty: &LogicalType,
) -> Result<(), String> {
    if array.is_null(i) {
        out.push_str("null");
        return Ok(());
    }
    match ty {
        LogicalType::Char(_) | LogicalType::VarChar(_) => {
            quote(out, array.as_string::<i32>().value(i))
        }
        LogicalType::Boolean => out.push_str(if array.as_boolean().value(i) {
            "true"
        } else {
            "false"
        }),
        LogicalType::TinyInt => push_display(out, array.as_primitive::<Int8Type>().value(i)),
        LogicalType::SmallInt => push_display(out, array.as_primitive::<Int16Type>().value(i)),
        LogicalType::Int => push_display(out, array.as_primitive::<Int32Type>().value(i)),
        LogicalType::BigInt => push_display(out, array.as_primitive::<Int64Type>().value(i)),
        LogicalType::Float => double(out, f64::from(array.as_primitive::<Float32Type>().value(i))),
        LogicalType::Double => double(out, array.as_primitive::<Float64Type>().value(i)),
        LogicalType::Decimal { scale, .. } => {
            let v = array.as_primitive::<Decimal128Type>().value(i);
            big_decimal(out, v < 0, &v.unsigned_abs().to_string(), i64::from(*scale));
        }
        LogicalType::Timestamp(_) | LogicalType::TimestampLtz(_) => {
            let (seconds, nanos) = epoch_parts(array, i)?;
            out.push('"');
            iso_local_date_time(out, seconds, nanos)?;
            if matches!(ty, LogicalType::TimestampLtz(_)) {
                out.push('Z');
            }
            out.push('"');
        }
        LogicalType::Binary(_) | LogicalType::VarBinary(_) => {
            out.push('"');
            to_base64(array.as_binary::<i32>().value(i), out);
            out.push('"');
        }
        LogicalType::Array(element) => {
            let values = array.as_list::<i32>().value(i);
            out.push('[');
            for j in 0..values.len() {
                if j > 0 {
                    out.push(',');
                }
                write_value(out, values.as_ref(), j, element)?;
            }
            out.push(']');
        }
        LogicalType::Map(_, value_type) => {
            let entries = array.as_list::<i32>().value(i);
            let entries = entries.as_struct();
            let (keys, values) = (entries.column(0), entries.column(1));
            let keys_text = keys.as_string::<i32>();
            let mut members: Vec<(&str, String)> = Vec::with_capacity(entries.len());
            for j in 0..entries.len() {
                if keys.is_null(j) {
                    return Err(format!(
                        "java.lang.IllegalArgumentException: Key at index {j} was null. This is \
                         not supported during conversion to JSON."
                    ));
                }
                let mut value = String::new();
                write_value(&mut value, values.as_ref(), j, value_type)?;
                let key = keys_text.value(j);
                match members.iter_mut().find(|(k, _)| *k == key) {
                    Some(member) => member.1 = value,
                    None => members.push((key, value)),
                }
            }
            members.sort_by(|a, b| utf16_order(a.0, b.0));
            write_object(out, members.iter().map(|(k, v)| (*k, v.as_str())));
        }
        LogicalType::Row(fields) => {
            let row = array.as_struct();
            let mut members = Vec::with_capacity(fields.len());
            for (f, column) in fields.iter().zip(row.columns()) {
                let mut value = String::new();
                write_value(&mut value, column.as_ref(), i, &f.ty)?;
                members.push((f.name.as_str(), value));
            }
            members.sort_by(|a, b| utf16_order(a.0, b.0));
            write_object(out, members.iter().map(|(k, v)| (*k, v.as_str())));
        }
        LogicalType::Date
        | LogicalType::Time(_)
        | LogicalType::IntervalYearMonth
        | LogicalType::IntervalDayTime => {
            return Err(format!(
                "type {ty} is not scalar or cannot be converted into JSON"
            ));
        }
    }
    Ok(())
}

fn push_display(out: &mut String, v: impl std::fmt::Display) {
    let _ = write!(out, "{v}");
}

/// `{"k":v,..}` of members already in order, their values already JSON.
fn write_object<'a>(out: &mut String, members: impl Iterator<Item = (&'a str, &'a str)>) {
    out.push('{');
    for (n, (key, value)) in members.enumerate() {
        if n > 0 {
            out.push(',');
        }
        quote(out, key);
        out.push(':');
        out.push_str(value);
    }
    out.push('}');
}

/// Java's `String.compareTo`: by UTF-16 code units.
fn utf16_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A JSON string as Jackson's generator writes it.
fn quote(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A DOUBLE as Flink's JSON writes it: `BigDecimal.valueOf(d).toString()`, the non-finite
/// values as strings.
fn double(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    } else {
        let (negative, digits, scale) = java_decimal(&double_to_string(v));
        big_decimal(out, negative, &digits, scale);
    }
}

/// `new BigDecimal(text)` of Java's `Double.toString` text (`-1.25`, `1.0E10`, `4.9E-324`):
/// its sign, unscaled digits (no leading zeros) and scale.
fn java_decimal(text: &str) -> (bool, String, i64) {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match body.split_once('E') {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let digits = all.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    (
        negative && digits != "0",
        digits.to_string(),
        frac.len() as i64 - exponent,
    )
}

/// `BigDecimal.toString()` of `±digits × 10^-scale` (`digits` without leading zeros).
fn big_decimal(out: &mut String, negative: bool, digits: &str, scale: i64) {
    if negative {
        out.push('-');
    }
    let n = digits.len() as i64;
    let adjusted = (n - 1) - scale;
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            out.push_str(digits);
        } else if n > scale {
            let point = (n - scale) as usize;
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (scale - n) as usize));
            out.push_str(digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(
            out,
            "E{}{}",
            if adjusted >= 0 { "+" } else { "-" },
            adjusted.unsigned_abs()
        );
    }
}

/// A timestamp value's seconds since the epoch and nanoseconds of its second.
fn epoch_parts(array: &dyn Array, i: usize) -> Result<(i64, u32), String> {
    let (v, per_second) = match array.data_type() {
        DataType::Timestamp(TimeUnit::Millisecond, _) => (
            array.as_primitive::<TimestampMillisecondType>().value(i),
            1_000,
        ),
        DataType::Timestamp(TimeUnit::Microsecond, _) => (
            array.as_primitive::<TimestampMicrosecondType>().value(i),
            1_000_000,
        ),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => (
            array.as_primitive::<TimestampNanosecondType>().value(i),
            1_000_000_000,
        ),
        other => return Err(format!("a timestamp as {other}")),
    };
    let nanos = v.rem_euclid(per_second) * (1_000_000_000 / per_second);
    Ok((v.div_euclid(per_second), nanos as u32))
}

/// `DateTimeFormatter.ISO_LOCAL_DATE_TIME` of a UTC time: `yyyy-MM-ddTHH:mm:ss[.f]`, the
/// fraction without trailing zeros and only when it is not zero.
fn iso_local_date_time(out: &mut String, seconds: i64, nanos: u32) -> Result<(), String> {
    use chrono::{Datelike, Timelike};
    let t = chrono::DateTime::from_timestamp(seconds, nanos)
        .ok_or_else(|| format!("a timestamp out of range: {seconds} s"))?
        .naive_utc();
    let year = t.year();
    if year > 9999 {
        let _ = write!(out, "+{year}");
    } else if year < 0 {
        let _ = write!(out, "-{:04}", year.unsigned_abs());
    } else {
        let _ = write!(out, "{year:04}");
    }
    let _ = write!(
        out,
        "-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    if nanos != 0 {
        let fraction = format!("{nanos:09}");
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double_text(v: f64) -> String {
        let mut out = String::new();
        double(&mut out, v);
        out
    }

    fn decimal_text(unscaled: i128, scale: i64) -> String {
        let mut out = String::new();
        big_decimal(
            &mut out,
            unscaled < 0,
            &unscaled.unsigned_abs().to_string(),
            scale,
        );
        out
    }

    /// The research notes' golden outputs of released Flink 2.3.0 on JDK 17 (values whose
    /// `Double.toString` is the same on every JDK).
    #[test]
    fn doubles_print_as_big_decimals_of_their_java_text() {
        for (v, want) in [
            (1.0, "1.0"),
            (100.0, "100.0"),
            (0.001, "0.001"),
            (123.456, "123.456"),
            (1234567.0, "1234567.0"),
            (0.0, "0.0"),
            (-0.0, "0.0"),
            (1.2345678e7, "12345678"),
            (1.23456789e7, "12345678.9"),
            (1.23456789012e11, "123456789012"),
            (9.007199254740992e15, "9007199254740992"),
            (1e7, "1.0E+7"),
            (1e10, "1.0E+10"),
            (1.5e10, "1.5E+10"),
            (1e21, "1.0E+21"),
            (f64::MAX, "1.7976931348623157E+308"),
            (1e-4, "0.00010"),
            (1e-5, "0.000010"),
            (1e-6, "0.0000010"),
            (1.23e-6, "0.00000123"),
            (1.23e-4, "0.000123"),
            (1e-7, "1.0E-7"),
            (1.5e-7, "1.5E-7"),
            (1e-10, "1.0E-10"),
            (4.9e-324, "4.9E-324"),
            (-2.5e-8, "-2.5E-8"),
            (f64::NAN, "\"NaN\""),
            (f64::INFINITY, "\"Infinity\""),
            (f64::NEG_INFINITY, "\"-Infinity\""),
        ] {
            assert_eq!(double_text(v), want, "{v:e}");
        }
        // FLOATs are widened first.
        for (v, want) in [
            (1.1f32, "1.100000023841858"),
            (0.1f32, "0.10000000149011612"),
            (1e-5f32, "0.000009999999747378752"),
            (123456.7f32, "123456.703125"),
            (1.4e-45f32, "1.401298464324817E-45"),
            (1e7f32, "1.0E+7"),
            (16777216f32, "16777216"),
        ] {
            assert_eq!(double_text(f64::from(v)), want, "{v:e}");
        }
    }

    #[test]
    fn decimals_print_at_their_scale() {
        for (unscaled, scale, want) in [
            (150, 2, "1.50"),
            (10000, 2, "100.00"),
            (0, 2, "0.00"),
            (1000, 10, "1.000E-7"),
            (1, 7, "1E-7"),
            (0, 10, "0E-10"),
            (-1, 8, "-1E-8"),
            (10000, 10, "0.0000010000"),
            (-12345, 0, "-12345"),
        ] {
            assert_eq!(
                decimal_text(unscaled, scale),
                want,
                "{unscaled} scale {scale}"
            );
        }
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_controls_only() {
        let mut out = String::new();
        quote(
            &mut out,
            "\u{0}\u{1}\u{7}\u{8}\t\n\u{b}\u{c}\r\u{1b}\u{1f} \u{7f}\"\\/é😀\u{2028}",
        );
        assert_eq!(
            out,
            "\"\\u0000\\u0001\\u0007\\b\\t\\n\\u000B\\f\\r\\u001B\\u001F \u{7f}\\\"\\\\/é😀\u{2028}\""
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        let mut keys = vec!["B", "a", "_", "10", "9", "é", "", "😀", "\u{ff01}", "z"];
        keys.sort_by(|a, b| utf16_order(a, b));
        // U+D83D (the emoji's high surrogate) sorts before U+FF01.
        assert_eq!(
            keys,
            ["", "10", "9", "B", "_", "a", "z", "é", "😀", "\u{ff01}"]
        );
    }

    #[test]
    fn timestamps_print_iso_local_date_times() {
        for (seconds, nanos, want) in [
            (1_705_322_096, 0, "2024-01-15T12:34:56"),
            (1_705_322_096, 123_000_000, "2024-01-15T12:34:56.123"),
            (1_705_322_096, 100_000_000, "2024-01-15T12:34:56.1"),
            (1_705_322_096, 123_456_789, "2024-01-15T12:34:56.123456789"),
            (-1, 999_000_000, "1969-12-31T23:59:59.999"),
            (-62_135_596_801, 999_000_000, "0000-12-31T23:59:59.999"),
            (-62_135_596_800, 0, "0001-01-01T00:00:00"),
        ] {
            let mut out = String::new();
            iso_local_date_time(&mut out, seconds, nanos).unwrap();
            assert_eq!(out, want);
        }
    }
}
