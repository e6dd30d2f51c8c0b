//! Flink's JSON of a Calcite `RexNode` (`RexNodeJsonSerializer`) as a Calc [`Expr`].
//!
//! | RexNode JSON | Calc IR |
//! |---|---|
//! | `{"kind": "INPUT_REF", "inputIndex": i}` | `{"input": i}` |
//! | `{"kind": "LITERAL", "value": v, "type": T}` | `{"literal": {"type": T, "value": text}}` |
//! | `{"kind": "CALL", "internalName": "$NAME$1", "operands": [...], "type": T}` | see below |
//!
//! Calls are mapped by Flink's internal name, version 1 only, to the registry function with
//! the same SQL name and Flink's semantics ([`FUNCTIONS`]), operands in Flink's order; and to
//! the IR's own forms where Calcite has special syntax:
//!
//! - `$AND$1`, `$OR$1`, `$NOT$1`: three-valued logic; `$CASE$1` (`c1, v1, ..., else`),
//!   `$COALESCE$1`, `$IF$1`;
//! - `$CAST$1` / `$TRY_CAST$1` to the call's type;
//! - `$-$1` with `PREFIX` syntax is unary minus, `$+$1` with `PREFIX` syntax the operand;
//! - `$TRIM$1` (`flag, characters, string`) is `TRIM_BOTH`/`_LEADING`/`_TRAILING(string,
//!   characters)`;
//! - `$+$1`/`$-$1` typed as a datetime or an interval, `$*$1` typed as an interval and
//!   `$REINTERPRET$1` of an interval are the [`interval`] functions (what `x ± INTERVAL`,
//!   TIMESTAMPADD and TIMESTAMPDIFF become); `$/INT$1` is `/` (Java's integer division);
//! - `$FLOOR$1`/`$CEIL$1` with a time-unit symbol are `FLOOR_TO`/`CEIL_TO(x, unit)`;
//!   symbols (time units) of `$EXTRACT$1`, `$TIMESTAMPADD$1`, `$TIMESTAMPDIFF$1` become
//!   string literals, as the registry takes them;
//! - `$SEARCH$1` (`x`, a Sarg literal: what `IN`, `BETWEEN` and range conjunctions become)
//!   is the OR of its ranges (`x = v` for a point, `x >= lo AND x < hi` ...), with
//!   `x IS NULL OR ...` when the Sarg maps NULL to TRUE and `x IS NOT NULL AND ...` when to
//!   FALSE (a NULL `x` makes every comparison NULL, which is Sarg's UNKNOWN).
//!
//! Literal values arrive as Flink writes them: integers as JSON numbers, approximate and
//! exact numbers as `BigDecimal.toString()` (possibly `1E+2`, made plain for DECIMAL),
//! strings raw (a CHAR literal already has its type's length, so nothing is padded), binaries
//! as Base64, dates and times as Calcite's `DateString`/`TimeString`/`TimestampString`,
//! intervals as their months or milliseconds. Collection literals are refused.
//!
//! Nondeterministic functions (RAND, UUID, the clock) are refused: their values cannot be
//! checked against stock Flink's, so they are not taken native yet. So are the transcendental
//! DOUBLE functions HotSpot computes with intrinsics (SIN, EXP, LN, POWER, ...): Flink calls
//! `java.lang.Math`, whose intrinsics and the native libm differ in the last bit for some
//! inputs (`SIN(2.5)`). ASIN, ACOS, ATAN, ATAN2, SINH, COSH and TANH are `Math` delegating
//! to `StrictMath`, i.e. fdlibm, which Calc ports bit for bit (checked on 1.2 million inputs
//! each against JDK 17 and JDK 25): native for a job whose JVM is known to run them so, JDK
//! 25 and older, TANH only before JDK 24 (JDK 25 has a tanh intrinsic that differs in the last
//! bit; 24 added it).
//!
//! Every call's IR is recorded with the type Flink declared for it ([`RexReader::probes`]),
//! so [`super::calc`] can require the native result types to be Flink's.
//!
//! Under `streamfusion.upcalls` ([`RexReader::with_upcalls`]) a call refused for any of these
//! reasons, a user's function, or a call whose native result type or compilation fails, is
//! read as an upcall instead: Flink's RexNode of the call with its non-literal operands
//! replaced by input fields `0..n`, which the JVM generates Flink's own code for, over those
//! operands read natively (each an upcall itself if need be). Nondeterministic functions, and
//! the lazy forms (AND, OR, CASE, IF, COALESCE), are never upcalls.

use serde_json::Value;

use super::types::logical_type;
use super::{Result, Unsupported};
use crate::calc::functions::{
    arithmetic, collection, comparison, hash, interval, json, json_string, math, string,
    string_codec, string_edit, string_regexp, string_search, string_similar, temporal, value,
};
use crate::calc::{CalcProgram, Expr, Upcall, UpcallDef, compile};
use crate::types::LogicalType;

/// Flink's names of the registry functions taken one to one (operands in Flink's order).
pub const FUNCTIONS: &[(&str, u16)] = &[
    ("+", arithmetic::PLUS),
    ("-", arithmetic::MINUS),
    ("*", arithmetic::TIMES),
    ("/", arithmetic::DIVIDE),
    // Calcite's integer division (TIMESTAMPDIFF's expansion): Java's on the result type.
    ("/INT", arithmetic::DIVIDE),
    ("MOD", arithmetic::MOD),
    ("%", arithmetic::MOD),
    ("GREATEST", comparison::GREATEST),
    ("LEAST", comparison::LEAST),
    ("=", comparison::EQUALS),
    ("<>", comparison::NOT_EQUALS),
    ("<", comparison::LESS_THAN),
    ("<=", comparison::LESS_THAN_OR_EQUAL),
    (">", comparison::GREATER_THAN),
    (">=", comparison::GREATER_THAN_OR_EQUAL),
    ("IS NULL", comparison::IS_NULL),
    ("IS NOT NULL", comparison::IS_NOT_NULL),
    ("IS TRUE", comparison::IS_TRUE),
    ("IS FALSE", comparison::IS_FALSE),
    ("IS NOT TRUE", comparison::IS_NOT_TRUE),
    ("IS NOT FALSE", comparison::IS_NOT_FALSE),
    ("ABS", math::ABS),
    ("ROUND", math::ROUND),
    ("TRUNCATE", math::TRUNCATE),
    ("SQRT", math::SQRT),
    ("FLOOR", math::FLOOR),
    ("CEIL", math::CEIL),
    ("SIGN", math::SIGN),
    ("PI", math::PI),
    ("E", math::E),
    ("DEGREES", math::DEGREES),
    ("RADIANS", math::RADIANS),
    ("ASIN", math::ASIN),
    ("ACOS", math::ACOS),
    ("ATAN", math::ATAN),
    ("ATAN2", math::ATAN2),
    ("SINH", math::SINH),
    ("COSH", math::COSH),
    ("TANH", math::TANH),
    ("MD5", hash::MD5),
    ("SHA1", hash::SHA1),
    ("SHA224", hash::SHA224),
    ("SHA256", hash::SHA256),
    ("SHA384", hash::SHA384),
    ("SHA512", hash::SHA512),
    ("SHA2", hash::SHA2),
    ("CHAR_LENGTH", string::CHAR_LENGTH),
    ("CHARACTER_LENGTH", string::CHAR_LENGTH),
    ("UPPER", string::UPPER),
    ("LOWER", string::LOWER),
    ("SUBSTRING", string::SUBSTRING),
    ("||", string::CONCAT_OP),
    ("CONCAT", string::CONCAT),
    ("CONCAT_WS", string::CONCAT_WS),
    ("LTRIM", string::LTRIM),
    ("RTRIM", string::RTRIM),
    ("LPAD", string::LPAD),
    ("RPAD", string::RPAD),
    ("REPLACE", string::REPLACE),
    ("POSITION", string::POSITION),
    ("INITCAP", string::INITCAP),
    ("REGEXP_EXTRACT", string::REGEXP_EXTRACT),
    ("REGEXP_REPLACE", string::REGEXP_REPLACE),
    ("REGEXP", string::REGEXP),
    ("SPLIT_INDEX", string::SPLIT_INDEX),
    ("LIKE", string::LIKE),
    ("SIMILAR TO", string_similar::SIMILAR_TO),
    ("SUBSTR", string::SUBSTRING),
    ("LEFT", string_edit::LEFT),
    ("RIGHT", string_edit::RIGHT),
    ("REPEAT", string_edit::REPEAT),
    ("REVERSE", string_edit::REVERSE),
    ("OVERLAY", string_edit::OVERLAY),
    ("TRANSLATE3", string_edit::TRANSLATE),
    ("BTRIM", string_edit::BTRIM),
    ("LOCATE", string_search::LOCATE),
    ("INSTR", string_search::INSTR),
    ("ASCII", string_search::ASCII),
    ("STARTSWITH", string_search::STARTSWITH),
    ("ENDSWITH", string_search::ENDSWITH),
    ("IS_ALPHA", string_search::IS_ALPHA),
    ("IS_DIGIT", string_search::IS_DIGIT),
    ("IS_DECIMAL", string_search::IS_DECIMAL),
    ("CHR", string_codec::CHR),
    ("TO_BASE64", string_codec::TO_BASE64),
    ("FROM_BASE64", string_codec::FROM_BASE64),
    ("HEX", string_codec::HEX),
    ("UNHEX", string_codec::UNHEX),
    ("BIN", string_codec::BIN),
    ("URL_ENCODE", string_codec::URL_ENCODE),
    ("URL_DECODE", string_codec::URL_DECODE),
    ("REGEXP_COUNT", string_regexp::REGEXP_COUNT),
    ("REGEXP_SUBSTR", string_regexp::REGEXP_SUBSTR),
    ("REGEXP_INSTR", string_regexp::REGEXP_INSTR),
    ("REGEXP_EXTRACT_ALL", string_regexp::REGEXP_EXTRACT_ALL),
    ("SPLIT", string_regexp::SPLIT),
    ("EXTRACT", temporal::EXTRACT),
    ("TIMESTAMPADD", temporal::TIMESTAMPADD),
    ("TIMESTAMPDIFF", temporal::TIMESTAMPDIFF),
    ("DATE_FORMAT", temporal::DATE_FORMAT),
    ("FROM_UNIXTIME", temporal::FROM_UNIXTIME),
    ("TO_TIMESTAMP", temporal::TO_TIMESTAMP),
    ("TO_TIMESTAMP_LTZ", temporal::TO_TIMESTAMP_LTZ),
    ("TO_DATE", temporal::TO_DATE),
    ("UNIX_TIMESTAMP", temporal::UNIX_TIMESTAMP),
    ("CONVERT_TZ", temporal::CONVERT_TZ),
    ("TYPEOF", value::TYPEOF),
    ("ELT", value::ELT),
    ("DECODE", value::DECODE),
    ("ENCODE", value::ENCODE),
    // Over a value (over a JSON_OBJECT or JSON_ARRAY call, whose text Flink inserts raw, it is
    // that text: see `RexReader::call`).
    ("JSON_STRING", json_string::JSON_STRING),
    ("IS JSON VALUE", json::IS_JSON_VALUE),
    ("IS JSON SCALAR", json::IS_JSON_SCALAR),
    ("IS JSON ARRAY", json::IS_JSON_ARRAY),
    ("IS JSON OBJECT", json::IS_JSON_OBJECT),
    ("IS NOT JSON VALUE", json::IS_NOT_JSON_VALUE),
    ("IS NOT JSON SCALAR", json::IS_NOT_JSON_SCALAR),
    ("IS NOT JSON ARRAY", json::IS_NOT_JSON_ARRAY),
    ("IS NOT JSON OBJECT", json::IS_NOT_JSON_OBJECT),
];

/// Functions whose values depend on more than their arguments (refused, see the module
/// documentation). `UNIX_TIMESTAMP` without arguments reads the clock.
const NONDETERMINISTIC: &[&str] = &[
    "RAND",
    "RAND_INTEGER",
    "UUID",
    "NOW",
    "CURRENT_TIMESTAMP",
    "LOCALTIMESTAMP",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "LOCALTIME",
    "CURRENT_ROW_TIMESTAMP",
    "UNIX_TIMESTAMP",
];

/// Functions Flink computes with `java.lang.Math`'s transcendental methods, which HotSpot
/// replaces by intrinsics that may differ from the native libm in the last bit (seen:
/// `SIN(2.5)`). Refused until the engine reproduces them bit for bit.
const LAST_BIT: &[&str] = &[
    "POWER", "LN", "LOG10", "LOG", "LOG2", "EXP", "SIN", "COS", "TAN", "COT",
];

/// Functions `java.lang.Math` delegates to `StrictMath` (fdlibm) on the JDKs checked, with the
/// first feature release that may compute them otherwise (an intrinsic, or not checked).
const FDLIBM: &[(&str, u32)] = &[
    ("ASIN", 26),
    ("ACOS", 26),
    ("ATAN", 26),
    ("ATAN2", 26),
    ("SINH", 26),
    ("COSH", 26),
    ("TANH", 24),
];

/// Calls whose generated code evaluates operands only for the rows that need them, so they are
/// never upcalls (each operand can be one).
const LAZY: &[&str] = &["AND", "OR", "CASE", "IF", "COALESCE", "IFNULL"];

/// Functions whose time-unit symbol operands the registry takes as string literals.
const TAKES_UNIT: &[&str] = &["EXTRACT", "TIMESTAMPADD", "TIMESTAMPDIFF"];

/// One call's IR with the type Flink declared for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The call as IR.
    pub expr: Expr,
    /// Flink's type of the call.
    pub flink: LogicalType,
    /// Flink's internal name of the function.
    pub function: String,
}

/// Reads RexNodes, recording every call ([`RexReader::probes`]).
#[derive(Debug, Default)]
pub struct RexReader {
    probes: Vec<Probe>,
    /// The feature release of the job's JVM, when known (see [`FDLIBM`]).
    java_version: Option<u32>,
    /// Where calls without a native equivalent become upcalls ([`RexReader::with_upcalls`]).
    upcalls: Option<UpcallScope>,
}

/// What a call is compiled against to decide whether it runs natively: the program's input
/// types and options, and the upcalls read so far.
#[derive(Debug)]
struct UpcallScope {
    input: Vec<LogicalType>,
    program: CalcProgram,
}

/// A literal operand: a value, or a symbol (a flag or time unit Calcite passes as an operand).
enum Operand {
    Expr(Expr),
    Symbol(String),
}

impl RexReader {
    /// A reader for a job whose JVM is feature release `java_version` (`None`: unknown).
    pub fn for_jvm(java_version: Option<u32>) -> Self {
        Self {
            probes: Vec::new(),
            java_version,
            upcalls: None,
        }
    }

    /// This reader, reading a call that has no native equivalent (no registry function, a
    /// shape or type the native one does not take, a native result type other than Flink's,
    /// a program that would not compile) as an [`Expr::Upcall`] instead of refusing it: the
    /// host evaluates it with Flink's own code ([`crate::calc::upcall`]). Calls are compiled
    /// one by one against `input` under the options of `options` (its expressions unused) to
    /// tell. Nondeterministic functions stay refused.
    pub fn with_upcalls(mut self, input: &[LogicalType], options: &CalcProgram) -> Self {
        let mut program = CalcProgram::project(Vec::new());
        program.legacy_cast_behaviour = options.legacy_cast_behaviour;
        program.time_zone = options.time_zone.clone();
        program.float_text = options.float_text;
        self.upcalls = Some(UpcallScope {
            input: input.to_vec(),
            program,
        });
        self
    }

    /// The upcalls read so far, by [`Upcall::index`].
    pub fn upcalls(&self) -> &[UpcallDef] {
        self.upcalls.as_ref().map_or(&[], |s| &s.program.upcalls)
    }

    /// The calls read so far, innermost first.
    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// The IR of `rex`.
    pub fn expr(&mut self, rex: &Value) -> Result<Expr> {
        match self.operand(rex)? {
            Operand::Expr(e) => Ok(e),
            Operand::Symbol(s) => Err(Unsupported::Feature(format!("a symbol ({s}) as a value"))),
        }
    }

    fn operand(&mut self, rex: &Value) -> Result<Operand> {
        match kind(rex)? {
            "INPUT_REF" => {
                let index = rex
                    .get("inputIndex")
                    .and_then(Value::as_u64)
                    .ok_or_else(|| malformed("INPUT_REF without \"inputIndex\"", rex))?;
                Ok(Operand::Expr(Expr::input(index as usize)))
            }
            "LITERAL" => literal(rex),
            "CALL" => self.call(rex).map(Operand::Expr),
            other => Err(Unsupported::Feature(format!("RexNode kind {other}"))),
        }
    }

    fn call(&mut self, rex: &Value) -> Result<Expr> {
        if self.upcalls.is_none() {
            return self.native_call(rex);
        }
        let probes = self.probes.len();
        let refusal = match self.native_call(rex) {
            Err(e @ Unsupported::Malformed(_)) => return Err(e),
            Ok(expr) => match self.native_as_flink(&expr, rex) {
                Ok(()) => return Ok(expr),
                Err(e) => e,
            },
            Err(e) => e,
        };
        // Its operands are read again as the upcall's arguments.
        self.probes.truncate(probes);
        self.upcall(rex, refusal)
    }

    /// Whether `expr`, read from the call `rex`, compiles natively with Flink's result type.
    fn native_as_flink(&self, expr: &Expr, rex: &Value) -> Result<()> {
        let scope = self.upcalls.as_ref().expect("only in upcall mode");
        let flink = logical_type(
            rex.get("type")
                .ok_or_else(|| malformed("CALL without \"type\"", rex))?,
        )?;
        let mut program = scope.program.clone();
        program.projection = vec![expr.clone()];
        let compiled =
            compile(&program, &scope.input).map_err(|e| Unsupported::Compile(e.to_string()))?;
        let native = &compiled.output_types()[0];
        if native != &flink {
            return Err(Unsupported::ResultType {
                function: rex
                    .get("internalName")
                    .and_then(Value::as_str)
                    .unwrap_or("a call")
                    .to_string(),
                native: native.to_string(),
                flink: flink.to_string(),
            });
        }
        Ok(())
    }

    /// The call `rex`, which natively is `refusal`, as an upcall: its literal operands stay in
    /// Flink's call, the others become its arguments (read natively, or upcalls themselves).
    fn upcall(&mut self, rex: &Value, refusal: Unsupported) -> Result<Expr> {
        let function = upcall_name(rex);
        let operands = rex
            .get("operands")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed("CALL without \"operands\"", rex))?;
        if let Some((name, _)) = split_internal_name(&function) {
            let clock = name != "UNIX_TIMESTAMP" || operands.is_empty();
            // An upcall's arguments are evaluated for every row reaching it; these evaluate
            // some operands only for some rows.
            if clock && NONDETERMINISTIC.contains(&name) || LAZY.contains(&name) {
                return Err(refusal);
            }
        }
        let ty = logical_type(
            rex.get("type")
                .ok_or_else(|| malformed("CALL without \"type\"", rex))?,
        )?;
        let mut args = Vec::new();
        let mut arguments = Vec::new();
        let mut flink_operands = Vec::with_capacity(operands.len());
        for operand in operands {
            if kind(operand)? == "LITERAL" {
                flink_operands.push(operand.clone());
                continue;
            }
            let operand_type = operand
                .get("type")
                .ok_or_else(|| malformed("an operand without \"type\"", operand))?;
            flink_operands.push(serde_json::json!({
                "kind": "INPUT_REF",
                "inputIndex": args.len(),
                "type": operand_type,
            }));
            arguments.push(logical_type(operand_type)?);
            args.push(self.expr(operand)?);
        }
        let mut call = rex.clone();
        call["operands"] = Value::Array(flink_operands);
        let scope = self.upcalls.as_mut().expect("only in upcall mode");
        let expr = Expr::Upcall(Upcall {
            index: scope.program.upcalls.len(),
            args,
            arguments,
            ty,
        });
        scope.program.upcalls.push(UpcallDef {
            function: function.clone(),
            call,
        });
        // The arguments must be what Flink's code reads: each native argument of its type.
        let mut program = scope.program.clone();
        program.projection = vec![expr.clone()];
        if let Err(e) = compile(&program, &scope.input) {
            scope.program.upcalls.pop();
            return Err(Unsupported::Call {
                function,
                why: format!("natively ({refusal}), nor as an upcall ({e})"),
            });
        }
        Ok(expr)
    }

    fn native_call(&mut self, rex: &Value) -> Result<Expr> {
        let function = function_name(rex)?;
        let (name, version) = split_internal_name(&function)
            .ok_or_else(|| Unsupported::Function(function.clone()))?;
        if version != "1" {
            return Err(Unsupported::Function(function));
        }
        let flink = logical_type(
            rex.get("type")
                .ok_or_else(|| malformed("CALL without \"type\"", rex))?,
        )?;
        if name == "PROCTIME" {
            // Flink's code generator writes a processing-time attribute as a NULL literal
            // (its value is made only by PROCTIME_MATERIALIZE, which is not native).
            return Ok(Expr::null(flink));
        }
        let operands = rex
            .get("operands")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed("CALL without \"operands\"", rex))?;
        let prefix = rex.get("syntax").and_then(Value::as_str) == Some("PREFIX");
        let call_error = |why: &str| Unsupported::Call {
            function: function.clone(),
            why: why.to_string(),
        };
        // `UNIX_TIMESTAMP()` reads the clock; `UNIX_TIMESTAMP(s[, format])` parses.
        let clock = name != "UNIX_TIMESTAMP" || operands.is_empty();
        if clock && NONDETERMINISTIC.contains(&name) {
            return Err(call_error(
                "natively yet: its values are nondeterministic, so parity cannot be checked",
            ));
        }
        if let Some((_, first_other)) = FDLIBM.iter().find(|(f, _)| *f == name) {
            match self.java_version {
                Some(v) if v < *first_other => {}
                Some(v) => {
                    return Err(call_error(&format!(
                        "on JDK {v}: `java.lang.Math` may compute it with an intrinsic there, \
                         not as fdlibm"
                    )));
                }
                None => {
                    return Err(call_error(
                        "natively: the job's JDK is unknown, and `java.lang.Math` computes it as \
                         fdlibm only on the JDKs checked",
                    ));
                }
            }
        }
        if LAST_BIT.contains(&name) {
            return Err(call_error(
                "natively yet: Java's Math intrinsics and the native libm can differ in the last \
                 bit",
            ));
        }
        // Calcite widens the coarser TIMESTAMP of `=` or `<>` to the other's precision with a
        // CAST; into nanoseconds that cannot hold years before 1677, so the comparison reads
        // the operand uncast (Calc compares mixed precisions exactly, as `compareTo` does).
        let uncast: Vec<Value>;
        let operands = if matches!(name, "=" | "<>") {
            uncast = operands.iter().map(uncast_timestamp_widening).collect();
            &uncast
        } else {
            operands
        };
        let expr = match (name, operands.as_slice()) {
            ("+" | "-", [a, b]) if temporal_arithmetic(&flink) => {
                self.temporal_arithmetic(name == "-", a, b, &flink)?
            }
            ("*", [a, b]) if is_interval(&flink) => {
                Expr::call(interval::INTERVAL_TIMES, vec![self.expr(a)?, self.expr(b)?])
            }
            // An interval's months or milliseconds as a number (TIMESTAMPDIFF's expansion).
            ("REINTERPRET", [x]) if operand_type(x).as_ref().is_some_and(is_interval) => {
                Expr::call(interval::INTERVAL_VALUE, vec![self.expr(x)?])
            }
            ("+", [x]) if prefix => self.expr(x)?,
            ("-", [x]) if prefix => Expr::call(arithmetic::UNARY_MINUS, vec![self.expr(x)?]),
            ("AND", _) => Expr::And(self.exprs(operands)?),
            ("OR", _) => Expr::Or(self.exprs(operands)?),
            ("NOT", [x]) => Expr::Not(Box::new(self.expr(x)?)),
            ("CASE", _) => {
                let mut operands = self.exprs(operands)?;
                if operands.len() < 3 || operands.len() % 2 == 0 {
                    return Err(call_error("with an even number of operands"));
                }
                let otherwise = operands.pop();
                let mut pairs = Vec::with_capacity(operands.len() / 2);
                let mut rest = operands.into_iter();
                while let (Some(c), Some(v)) = (rest.next(), rest.next()) {
                    pairs.push((c, v));
                }
                Expr::case(pairs, otherwise)
            }
            // `IfNullFunction`: the first argument unless it is NULL.
            ("COALESCE" | "IFNULL", _) => Expr::Coalesce(self.exprs(operands)?),
            ("IF", [c, a, b]) => Expr::if_(self.expr(c)?, self.expr(a)?, self.expr(b)?),
            // Only a reinterpretation to the operand's own type (a time attribute's kind,
            // which native types do not carry) passes the probe check below: the identity.
            ("REINTERPRET", [x]) => self.expr(x)?,
            ("CAST", [x]) => self.expr(x)?.cast(flink.clone()),
            ("TRY_CAST", [x]) => self.expr(x)?.try_cast(flink.clone()),
            ("SEARCH", [x, sarg]) => self.search(&function, x, sarg)?,
            ("TRIM", [flag, characters, s]) => {
                let op = match self.operand(flag)? {
                    Operand::Symbol(flag) if flag == "BOTH" => string::TRIM_BOTH,
                    Operand::Symbol(flag) if flag == "LEADING" => string::TRIM_LEADING,
                    Operand::Symbol(flag) if flag == "TRAILING" => string::TRIM_TRAILING,
                    _ => return Err(call_error("without a BOTH, LEADING or TRAILING flag")),
                };
                Expr::call(op, vec![self.expr(s)?, self.expr(characters)?])
            }
            ("JSON_OBJECT" | "JSON_ARRAY", [on_null, values @ ..]) => {
                self.json_constructor(name == "JSON_OBJECT", on_null, values, &function)?
            }
            // Flink writes a constructor's text raw: the text itself.
            ("JSON_STRING", [x]) if json_text_call(x).is_some() => self.expr(x)?,
            ("FLOOR" | "CEIL", [x, unit]) => {
                let Operand::Symbol(unit) = self.operand(unit)? else {
                    return Err(call_error("with a value as its second operand"));
                };
                let op = if name == "FLOOR" {
                    temporal::FLOOR_TO
                } else {
                    temporal::CEIL_TO
                };
                Expr::call(op, vec![self.expr(x)?, unit_literal(unit)])
            }
            _ => {
                let op = FUNCTIONS
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, op)| *op)
                    .or_else(|| collection_function(name))
                    .ok_or_else(|| Unsupported::Function(function.clone()))?;
                let mut args = Vec::with_capacity(operands.len());
                for operand in operands {
                    args.push(match self.operand(operand)? {
                        Operand::Expr(e) => e,
                        Operand::Symbol(unit) if TAKES_UNIT.contains(&name) => unit_literal(unit),
                        Operand::Symbol(s) => {
                            return Err(call_error(&format!("with the symbol {s}")));
                        }
                    });
                }
                Expr::call(op, args)
            }
        };
        self.probes.push(Probe {
            expr: expr.clone(),
            flink,
            function,
        });
        Ok(expr)
    }

    /// `a ± b` whose result is a datetime or an interval (Calcite's `DATETIME_PLUS`/`MINUS`
    /// and interval arithmetic; see [`interval`]). The result type picks the function: a
    /// difference of two datetimes is months or milliseconds only by it, and a DATE plus a
    /// sub-day interval is a TIMESTAMP when Calcite types it so (the DATE is cast first, as
    /// Flink's generated `fromEpochMillis(date * MILLIS_PER_DAY + interval)` reads it).
    fn temporal_arithmetic(
        &mut self,
        minus: bool,
        a: &Value,
        b: &Value,
        flink: &LogicalType,
    ) -> Result<Expr> {
        let op = match (flink, minus) {
            (LogicalType::IntervalYearMonth, true) => interval::MINUS_MONTHS,
            (LogicalType::IntervalDayTime, true) => interval::MINUS_MILLIS,
            (LogicalType::IntervalYearMonth | LogicalType::IntervalDayTime, false) => {
                interval::INTERVAL_PLUS
            }
            (_, true) => interval::DATETIME_MINUS,
            (_, false) => interval::DATETIME_PLUS,
        };
        let mut x = self.expr(a)?;
        if matches!(flink, LogicalType::Timestamp(_)) && operand_type(a) == Some(LogicalType::Date)
        {
            x = x.cast(flink.clone());
        }
        Ok(Expr::call(op, vec![x, self.expr(b)?]))
    }

    /// `JSON_OBJECT(on_null, k, v, ..)` or `JSON_ARRAY(on_null, v, ..)` with the registry's
    /// layout literal first (see [`json_string`]): the NULL clause, and which values are a
    /// nested constructor's text, which Flink inserts raw. A `JSON(..)` value is refused.
    fn json_constructor(
        &mut self,
        object: bool,
        on_null: &Value,
        operands: &[Value],
        function: &str,
    ) -> Result<Expr> {
        let call_error = |why: &str| Unsupported::Call {
            function: function.to_string(),
            why: why.to_string(),
        };
        let mut layout = match self.operand(on_null)? {
            Operand::Symbol(s) if s == "NULL" => String::from("N"),
            Operand::Symbol(s) if s == "ABSENT" => String::from("A"),
            _ => {
                return Err(call_error(
                    "without a NULL ON NULL or ABSENT ON NULL clause",
                ));
            }
        };
        let mut args = Vec::with_capacity(operands.len() + 1);
        for (i, operand) in operands.iter().enumerate() {
            let value = !object || i % 2 == 1;
            if value {
                match json_text_call(operand) {
                    Some("JSON") => {
                        return Err(call_error(
                            "with a JSON(..) value natively yet: Flink parses and writes it again",
                        ));
                    }
                    Some(_) => layout.push('r'),
                    None => layout.push('v'),
                }
            }
            args.push(self.expr(operand)?);
        }
        args.insert(0, Expr::lit(LogicalType::VarChar(i32::MAX as u32), layout));
        let op = if object {
            json_string::JSON_OBJECT
        } else {
            json_string::JSON_ARRAY
        };
        Ok(Expr::call(op, args))
    }

    fn exprs(&mut self, operands: &[Value]) -> Result<Vec<Expr>> {
        operands.iter().map(|o| self.expr(o)).collect()
    }

    /// `SEARCH(x, sarg)` as comparisons (see the module documentation).
    fn search(&mut self, function: &str, x: &Value, sarg_literal: &Value) -> Result<Expr> {
        let call_error = |why: &str| Unsupported::Call {
            function: function.to_string(),
            why: why.to_string(),
        };
        if mentions_nondeterministic(x) {
            return Err(call_error("over a nondeterministic operand"));
        }
        let x = self.expr(x)?;
        let sarg = sarg_literal
            .get("sarg")
            .ok_or_else(|| malformed("SEARCH without a Sarg literal", sarg_literal))?;
        let ty = logical_type(
            sarg_literal
                .get("type")
                .ok_or_else(|| malformed("a Sarg literal without \"type\"", sarg_literal))?,
        )?;
        let ranges = sarg
            .get("ranges")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed("a Sarg without \"ranges\"", sarg))?;
        if ranges.is_empty() {
            return Err(call_error("with an empty Sarg"));
        }
        let bound = |b: &Value| -> Result<(Expr, bool)> {
            let closed = match b.get("boundType").and_then(Value::as_str) {
                Some("CLOSED") => true,
                Some("OPEN") => false,
                _ => return Err(malformed("a Sarg bound without \"boundType\"", b)),
            };
            Ok((
                sarg_value(&ty, b.get("value").unwrap_or(&Value::Null))?,
                closed,
            ))
        };
        // Flink tests a Sarg of points, or of everything but points (NOT IN), against a hash
        // set (`SearchOperatorGen`): for FLOAT/DOUBLE that is bit equality, not `=`.
        let points: Option<Vec<&Value>> = ranges
            .iter()
            .map(|r| match (r.get("lower"), r.get("upper")) {
                (Some(l), Some(u))
                    if l == u && l.get("boundType").and_then(Value::as_str) == Some("CLOSED") =>
                {
                    Some(l)
                }
                _ => None,
            })
            .collect();
        let set = match points {
            Some(points) => Some((points, false)),
            None => complemented_points(ranges).map(|points| (points, true)),
        };
        if let Some((points, complemented)) = set {
            let mut tests = Vec::with_capacity(points.len());
            for p in points {
                let (v, _) = bound(p)?;
                tests.push(Expr::call(comparison::IN_SET_EQUALS, vec![x.clone(), v]));
            }
            let any = if tests.len() == 1 {
                tests.pop().expect("one point")
            } else {
                Expr::Or(tests)
            };
            let ranges = if complemented {
                Expr::Not(Box::new(any))
            } else {
                any
            };
            return apply_null_as(sarg, x, ranges);
        }
        let mut disjuncts = Vec::with_capacity(ranges.len());
        for range in ranges {
            let lower = range.get("lower").map(bound).transpose()?;
            let upper = range.get("upper").map(bound).transpose()?;
            let closed = |b: &Value| b.get("boundType").and_then(Value::as_str) == Some("CLOSED");
            let point = matches!(
                (range.get("lower"), range.get("upper")),
                (Some(l), Some(u)) if l == u && closed(l)
            );
            let compare = |op: u16, v: Expr| Expr::call(op, vec![x.clone(), v]);
            disjuncts.push(match (lower, upper) {
                _ if point => {
                    let (v, _) = bound(&range["lower"])?;
                    compare(comparison::EQUALS, v)
                }
                (None, None) => return Err(call_error("with an unbounded range")),
                (Some((lo, closed)), None) => compare(lower_op(closed), lo),
                (None, Some((hi, closed))) => compare(upper_op(closed), hi),
                (Some((lo, lc)), Some((hi, hc))) => {
                    Expr::And(vec![compare(lower_op(lc), lo), compare(upper_op(hc), hi)])
                }
            });
        }
        let ranges = if disjuncts.len() == 1 {
            disjuncts.pop().expect("one range")
        } else {
            Expr::Or(disjuncts)
        };
        apply_null_as(sarg, x, ranges)
    }
}

/// Whether a `+`/`-` of this result type is datetime or interval arithmetic.
fn temporal_arithmetic(flink: &LogicalType) -> bool {
    matches!(
        flink,
        LogicalType::Date
            | LogicalType::Time(_)
            | LogicalType::Timestamp(_)
            | LogicalType::TimestampLtz(_)
    ) || is_interval(flink)
}

fn is_interval(ty: &LogicalType) -> bool {
    matches!(
        ty,
        LogicalType::IntervalYearMonth | LogicalType::IntervalDayTime
    )
}

/// `x` of `CAST(x AS TIMESTAMP(q))` where `x` is a TIMESTAMP of a lower precision and `q`
/// needs nanoseconds (the same for TIMESTAMP_LTZ); any other operand as it is.
fn uncast_timestamp_widening(rex: &Value) -> Value {
    use LogicalType::{Timestamp, TimestampLtz};
    let is_cast = rex.get("kind").and_then(Value::as_str) == Some("CALL")
        && rex.get("internalName").and_then(Value::as_str) == Some("$CAST$1");
    let inner = rex
        .get("operands")
        .and_then(Value::as_array)
        .and_then(|ops| ops.first());
    if let (true, Some(inner), Some(to)) = (is_cast, inner, operand_type(rex))
        && let Some(from) = operand_type(inner)
    {
        let widening = match (&from, &to) {
            (Timestamp(p), Timestamp(q)) | (TimestampLtz(p), TimestampLtz(q)) => p < q && *q > 6,
            _ => false,
        };
        if widening {
            return inner.clone();
        }
    }
    rex.clone()
}

/// The type Flink declared for an operand, when it declares one that parses.
fn operand_type(rex: &Value) -> Option<LogicalType> {
    rex.get("type").and_then(|t| logical_type(t).ok())
}

/// A Sarg's `nullAs` around its ranges' test.
fn apply_null_as(sarg: &Value, x: Expr, ranges: Expr) -> Result<Expr> {
    Ok(match sarg.get("nullAs").and_then(Value::as_str) {
        Some("UNKNOWN") => ranges,
        Some("TRUE") => Expr::Or(vec![Expr::call(comparison::IS_NULL, vec![x]), ranges]),
        Some("FALSE") => Expr::And(vec![Expr::call(comparison::IS_NOT_NULL, vec![x]), ranges]),
        _ => return Err(malformed("a Sarg without \"nullAs\"", sarg)),
    })
}

/// The points whose complement `ranges` is (`(-inf, a) (a, b) (b, +inf)`: `NOT IN (a, b)`),
/// as Calcite's `Sarg.isComplementedPoints` reads them.
fn complemented_points(ranges: &[Value]) -> Option<Vec<&Value>> {
    let (first, last) = (ranges.first()?, ranges.last()?);
    if ranges.len() < 2 || first.get("lower").is_some() || last.get("upper").is_some() {
        return None;
    }
    let open = |b: &Value| b.get("boundType").and_then(Value::as_str) == Some("OPEN");
    let mut points = Vec::with_capacity(ranges.len() - 1);
    for pair in ranges.windows(2) {
        let (upper, lower) = (pair[0].get("upper")?, pair[1].get("lower")?);
        if !open(upper) || !open(lower) || upper.get("value") != lower.get("value") {
            return None;
        }
        points.push(upper);
    }
    Some(points)
}

fn lower_op(closed: bool) -> u16 {
    if closed {
        comparison::GREATER_THAN_OR_EQUAL
    } else {
        comparison::GREATER_THAN
    }
}

fn upper_op(closed: bool) -> u16 {
    if closed {
        comparison::LESS_THAN_OR_EQUAL
    } else {
        comparison::LESS_THAN
    }
}

fn malformed(what: &str, rex: &Value) -> Unsupported {
    Unsupported::Malformed(format!("{what}: {rex}"))
}

fn kind(rex: &Value) -> Result<&str> {
    rex.get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("a RexNode without \"kind\"", rex))
}

/// How an upcall names its function in errors: Flink's internal name, else a user function's
/// system or catalog name.
fn upcall_name(rex: &Value) -> String {
    std::iter::once("internalName")
        .chain(USER_FUNCTION_FIELDS.iter().map(|(field, _)| *field))
        .find_map(|field| rex.get(field))
        .map_or_else(
            || "a call".to_string(),
            |name| {
                name.as_str()
                    .map_or_else(|| name.to_string(), str::to_string)
            },
        )
}

/// The fields that name a call's function when it has no internal name, with what they are.
const USER_FUNCTION_FIELDS: [(&str, &str); 4] = [
    ("systemName", "system function"),
    ("catalogName", "catalog function"),
    ("class", "inline function"),
    ("sqlKind", "operator of kind"),
];

/// How Flink named the call's function: its internal name, else what identifies a user's.
fn function_name(rex: &Value) -> Result<String> {
    if let Some(name) = rex.get("internalName").and_then(Value::as_str) {
        return Ok(name.to_string());
    }
    for (field, what) in USER_FUNCTION_FIELDS {
        if let Some(name) = rex.get(field) {
            let name = name
                .as_str()
                .map_or_else(|| name.to_string(), str::to_string);
            return Err(Unsupported::Function(format!("{what} {name}")));
        }
    }
    Err(malformed("a CALL without a function name", rex))
}

/// The collection function (ARRAY, MAP and ROW constructors, ITEM, CARDINALITY, ELEMENT,
/// `ARRAY_*`, `MAP_*`) Flink names `name`: the registry's names are Flink's, operands in
/// Flink's order.
fn collection_function(name: &str) -> Option<u16> {
    collection::FUNCTIONS
        .iter()
        .find(|d| d.name == name)
        .map(|d| d.opcode)
}

/// The JSON function a RexNode calls whose text Flink's JSON functions insert raw:
/// `JSON_OBJECT`, `JSON_ARRAY` or `JSON`.
fn json_text_call(rex: &Value) -> Option<&'static str> {
    let name = rex.get("internalName").and_then(Value::as_str)?;
    ["JSON_OBJECT", "JSON_ARRAY", "JSON"]
        .into_iter()
        .find(|f| split_internal_name(name) == Some((f, "1")))
}

/// `$NAME$VERSION` as `(NAME, VERSION)`; the name itself may contain `$`.
fn split_internal_name(name: &str) -> Option<(&str, &str)> {
    let inner = name.strip_prefix('$')?;
    let at = inner.rfind('$')?;
    Some((&inner[..at], &inner[at + 1..]))
}

/// Whether the RexNode calls a nondeterministic function anywhere.
fn mentions_nondeterministic(rex: &Value) -> bool {
    match rex {
        Value::Object(o) => {
            o.get("internalName")
                .and_then(Value::as_str)
                .and_then(split_internal_name)
                .is_some_and(|(n, _)| NONDETERMINISTIC.contains(&n))
                || o.values().any(mentions_nondeterministic)
        }
        Value::Array(a) => a.iter().any(mentions_nondeterministic),
        _ => false,
    }
}

/// A time unit as the registry takes it: a string literal.
fn unit_literal(unit: String) -> Expr {
    Expr::lit(LogicalType::VarChar(i32::MAX as u32), unit)
}

fn literal(rex: &Value) -> Result<Operand> {
    if rex.get("symbol").is_some() {
        let value = rex
            .get("value")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("a symbol literal without \"value\"", rex))?;
        return Ok(Operand::Symbol(value.to_string()));
    }
    if rex.get("sarg").is_some() {
        return Err(Unsupported::Feature("a Sarg literal outside SEARCH".into()));
    }
    let ty = logical_type(
        rex.get("type")
            .ok_or_else(|| malformed("a LITERAL without \"type\"", rex))?,
    )?;
    literal_value(&ty, rex.get("value").unwrap_or(&Value::Null)).map(Operand::Expr)
}

/// A Sarg's bound: strings are not padded to a CHAR type's length (Flink's generated code
/// compares the text as written), so they become VARCHARs of their own length.
fn sarg_value(ty: &LogicalType, value: &Value) -> Result<Expr> {
    match (ty, value) {
        (LogicalType::Char(_) | LogicalType::VarChar(_), Value::String(s)) => Ok(Expr::lit(
            LogicalType::VarChar(s.chars().count().max(1) as u32),
            s.clone(),
        )),
        _ => literal_value(ty, value),
    }
}

/// The IR literal of a value Flink wrote for type `ty`.
fn literal_value(ty: &LogicalType, value: &Value) -> Result<Expr> {
    let unsupported = || Unsupported::Feature(format!("a literal of type {ty}"));
    // Calcite measures a string literal's CHAR(n) in UTF-16 units ('😀' is CHAR(2)); the
    // value is the text as written, so its native type counts code points.
    if let (LogicalType::Char(n) | LogicalType::VarChar(n), Value::String(s)) = (ty, value) {
        let points = s.chars().count() as u32;
        if *n == s.encode_utf16().count() as u32 && points != *n {
            let ty = match ty {
                LogicalType::Char(_) => LogicalType::Char(points.max(1)),
                _ => LogicalType::VarChar(points.max(1)),
            };
            return Ok(Expr::lit(ty, s.clone()));
        }
    }
    let text = match (ty, value) {
        (_, Value::Null) => return Ok(Expr::null(ty.clone())),
        (LogicalType::Boolean, Value::Bool(b)) => b.to_string(),
        (
            LogicalType::TinyInt | LogicalType::SmallInt | LogicalType::Int | LogicalType::BigInt,
            Value::Number(n),
        ) if n.is_i64() => n.to_string(),
        (LogicalType::Float | LogicalType::Double, Value::String(s)) => s.clone(),
        (LogicalType::Float | LogicalType::Double, Value::Number(n)) => n.to_string(),
        (LogicalType::IntervalYearMonth | LogicalType::IntervalDayTime, Value::String(s)) => {
            s.clone()
        }
        (LogicalType::IntervalYearMonth | LogicalType::IntervalDayTime, Value::Number(n))
            if n.is_i64() =>
        {
            n.to_string()
        }
        (LogicalType::Decimal { .. }, Value::String(s)) => plain_decimal(s)
            .ok_or_else(|| Unsupported::Malformed(format!("DECIMAL literal {s}")))?,
        (LogicalType::Binary(_) | LogicalType::VarBinary(_), Value::String(s)) => base64_to_hex(s)
            .ok_or_else(|| {
                Unsupported::Malformed(format!("a {ty} literal that is not Base64: {s:?}"))
            })?,
        (
            LogicalType::Char(_)
            | LogicalType::VarChar(_)
            | LogicalType::Date
            | LogicalType::Time(_)
            | LogicalType::Timestamp(_)
            | LogicalType::TimestampLtz(_),
            Value::String(s),
        ) => s.clone(),
        (
            LogicalType::Boolean
            | LogicalType::TinyInt
            | LogicalType::SmallInt
            | LogicalType::Int
            | LogicalType::BigInt
            | LogicalType::Float
            | LogicalType::Double
            | LogicalType::Decimal { .. }
            | LogicalType::Char(_)
            | LogicalType::VarChar(_)
            | LogicalType::Date
            | LogicalType::Time(_)
            | LogicalType::Timestamp(_)
            | LogicalType::TimestampLtz(_),
            other,
        ) => {
            return Err(Unsupported::Malformed(format!(
                "a {ty} literal written as {other}"
            )));
        }
        _ => return Err(unsupported()),
    };
    Ok(Expr::lit(ty.clone(), text))
}

/// A binary literal's bytes as Flink writes them (Jackson's Base64 of Calcite's `ByteString`:
/// the standard alphabet, padded) in the hexadecimal text of IR literals; `None` when the text
/// is not canonical Base64.
fn base64_to_hex(text: &str) -> Option<String> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let mut hex = String::with_capacity(text.len() / 4 * 6);
    let units = text.as_bytes().chunks(4);
    let last = units.len().saturating_sub(1);
    for (k, unit) in units.enumerate() {
        let padding = unit.iter().rev().take_while(|&&b| b == b'=').count();
        if padding > 2 || (padding > 0 && k != last) {
            return None;
        }
        let mut bits = 0u32;
        for &b in &unit[..4 - padding] {
            bits = (bits << 6) | ALPHABET.iter().position(|&a| a == b)? as u32;
        }
        bits <<= 6 * padding;
        for byte in bits.to_be_bytes()[1..].iter().take(3 - padding) {
            hex.push_str(&format!("{byte:02x}"));
        }
    }
    Some(hex)
}

/// `BigDecimal.toString()` text (`-1.50`, `1E+2`, `1.2E-7`) in plain notation.
fn plain_decimal(text: &str) -> Option<String> {
    let (sign, rest) = match text.as_bytes().first()? {
        b'-' => ("-", &text[1..]),
        b'+' => ("", &text[1..]),
        _ => ("", text),
    };
    let (mantissa, exponent) = match rest.find(['E', 'e']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = int.chars().chain(frac.chars()).collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let scale = frac.len() as i64 - exponent;
    let plain = if scale <= 0 {
        format!("{digits}{}", "0".repeat((-scale) as usize))
    } else if (digits.len() as i64) > scale {
        let at = digits.len() - scale as usize;
        format!("{}.{}", &digits[..at], &digits[at..])
    } else {
        format!("0.{}{digits}", "0".repeat(scale as usize - digits.len()))
    };
    Some(format!("{sign}{plain}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(rex: Value) -> Result<Expr> {
        RexReader::default().expr(&rex)
    }

    fn input(i: usize, ty: &str) -> Value {
        json!({"kind": "INPUT_REF", "inputIndex": i, "type": ty})
    }

    #[test]
    fn big_decimal_text_becomes_plain() {
        for (text, plain) in [
            ("1.50", "1.50"),
            ("-0.25", "-0.25"),
            ("1E+2", "100"),
            ("1.2E-7", "0.00000012"),
            ("12.5E+1", "125"),
            ("-3E-2", "-0.03"),
        ] {
            assert_eq!(plain_decimal(text).as_deref(), Some(plain), "{text}");
        }
        assert_eq!(plain_decimal("1.5x"), None);
    }

    #[test]
    fn calls_map_by_internal_name_and_record_flinks_type() {
        let rex = json!({"kind": "CALL", "syntax": "BINARY", "internalName": "$+$1",
            "operands": [input(1, "INT"), {"kind": "LITERAL", "value": 1, "type": "INT NOT NULL"}],
            "type": "INT"});
        let mut reader = RexReader::default();
        let expr = reader.expr(&rex).unwrap();
        let expected = Expr::call(
            arithmetic::PLUS,
            vec![Expr::input(1), Expr::lit(LogicalType::Int, "1")],
        );
        assert_eq!(expr, expected);
        assert_eq!(reader.probes().len(), 1);
        assert_eq!(reader.probes()[0].flink, LogicalType::Int);
        assert_eq!(reader.probes()[0].function, "$+$1");
    }

    #[test]
    fn datetime_and_interval_arithmetic_map_by_flinks_result_type() {
        let call = |name: &str, operands: Value, ty: &str| {
            json!({"kind": "CALL", "syntax": "SPECIAL", "internalName": name,
                "operands": operands, "type": ty})
        };
        let day = json!({"kind": "LITERAL", "value": "86400000",
            "type": "INTERVAL DAY(2) NOT NULL"});
        let day_ir = Expr::lit(LogicalType::IntervalDayTime, "86400000");
        // TIMESTAMPADD(DAY, i, ts) as Flink 2.3.0 plans it.
        let times = call("$*$1", json!([day, input(0, "INT")]), "INTERVAL DAY(2)");
        let add = call(
            "$+$1",
            json!([input(2, "TIMESTAMP(3)"), times]),
            "TIMESTAMP(3)",
        );
        assert_eq!(
            read(add).unwrap(),
            Expr::call(
                interval::DATETIME_PLUS,
                vec![
                    Expr::input(2),
                    Expr::call(
                        interval::INTERVAL_TIMES,
                        vec![day_ir.clone(), Expr::input(0)]
                    )
                ]
            )
        );
        // A DATE plus hours typed TIMESTAMP(6): the DATE is cast first.
        let hours =
            json!({"kind": "LITERAL", "value": "90000000", "type": "INTERVAL HOUR NOT NULL"});
        let add = call("$+$1", json!([input(4, "DATE"), hours]), "TIMESTAMP(6)");
        assert_eq!(
            read(add).unwrap(),
            Expr::call(
                interval::DATETIME_PLUS,
                vec![
                    Expr::input(4).cast(LogicalType::Timestamp(6)),
                    Expr::lit(LogicalType::IntervalDayTime, "90000000")
                ]
            )
        );
        // TIMESTAMPDIFF(SECOND, ts, ts9) and (MONTH, ...): the difference's family by its type.
        for (ty, op) in [
            ("INTERVAL SECOND(6)", interval::MINUS_MILLIS),
            ("INTERVAL MONTH", interval::MINUS_MONTHS),
        ] {
            let minus = call(
                "$-$1",
                json!([input(3, "TIMESTAMP(9)"), input(2, "TIMESTAMP(3)")]),
                ty,
            );
            let value = call("$REINTERPRET$1", json!([minus]), "BIGINT");
            let divided = call(
                "$/INT$1",
                json!([value, {"kind": "LITERAL", "value": 1000, "type": "INT NOT NULL"}]),
                "BIGINT",
            );
            assert_eq!(
                read(divided).unwrap(),
                Expr::call(
                    arithmetic::DIVIDE,
                    vec![
                        Expr::call(
                            interval::INTERVAL_VALUE,
                            vec![Expr::call(op, vec![Expr::input(3), Expr::input(2)])]
                        ),
                        Expr::lit(LogicalType::Int, "1000")
                    ]
                )
            );
        }
        // A numeric minus stays arithmetic.
        let minus = call("$-$1", json!([input(0, "INT"), input(0, "INT")]), "INT");
        assert_eq!(
            read(minus).unwrap(),
            Expr::call(arithmetic::MINUS, vec![Expr::input(0), Expr::input(0)])
        );
    }

    #[test]
    fn a_proctime_attribute_is_null_and_a_time_attribute_reinterpretation_is_the_identity() {
        let proctime = json!({"kind": "PROCTIME", "nullable": false, "precision": 3,
            "type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE"});
        let pt =
            read(json!({"internalName": "$PROCTIME$1", "kind": "CALL", "type": proctime})).unwrap();
        assert_eq!(pt, Expr::null(LogicalType::TimestampLtz(3)));
        let rowtime = json!({"type": "TIMESTAMP_WITHOUT_TIME_ZONE", "precision": 3,
            "kind": "ROWTIME"});
        let mut reader = RexReader::default();
        let rt = reader
            .expr(&json!({"kind": "CALL", "internalName": "$REINTERPRET$1",
                "operands": [input(2, "TIMESTAMP(3)")], "type": rowtime}))
            .unwrap();
        assert_eq!(rt, Expr::input(2));
        // The probe keeps Flink's type, so a reinterpretation to another type is refused
        // when the program's types are checked.
        assert_eq!(reader.probes()[0].flink, LogicalType::Timestamp(3));
    }

    #[test]
    fn json_constructors_carry_their_null_clause_and_raw_values_in_a_layout() {
        let on_null = |v: &str| {
            json!({"kind": "LITERAL", "symbol": "JSON_ON_NULL", "value": v,
                "type": {"type": "SYMBOL", "nullable": false}})
        };
        let call = |name: &str, operands: Value, ty: &str| json!({"kind": "CALL", "internalName": name, "operands": operands, "type": ty});
        let key = json!({"kind": "LITERAL", "value": "k", "type": "CHAR(1) NOT NULL"});
        let string = "VARCHAR(2147483647) NOT NULL";
        let inner = call(
            "$JSON_ARRAY$1",
            json!([on_null("NULL"), input(1, "INT")]),
            string,
        );
        let outer = call(
            "$JSON_OBJECT$1",
            json!([on_null("ABSENT"), key, input(0, "INT"), key, inner]),
            string,
        );
        let layout = |text: &str| Expr::lit(LogicalType::VarChar(i32::MAX as u32), text);
        let k = Expr::lit(LogicalType::Char(1), "k");
        assert_eq!(
            read(outer).unwrap(),
            Expr::call(
                json_string::JSON_OBJECT,
                vec![
                    layout("Avr"),
                    k.clone(),
                    Expr::input(0),
                    k,
                    Expr::call(json_string::JSON_ARRAY, vec![layout("Nv"), Expr::input(1)]),
                ]
            )
        );
        // JSON(..) is parsed and written again: refused.
        let parsed = call("$JSON$1", json!([input(2, "VARCHAR(2147483647)")]), string);
        let array = call("$JSON_ARRAY$1", json!([on_null("ABSENT"), parsed]), string);
        assert!(read(array).is_err());
        // JSON_STRING writes a constructor's text raw: it is that text.
        let inner = call(
            "$JSON_ARRAY$1",
            json!([on_null("ABSENT"), input(1, "INT")]),
            string,
        );
        let text = call("$JSON_STRING$1", json!([inner]), "VARCHAR(2147483647)");
        assert_eq!(
            read(text).unwrap(),
            Expr::call(json_string::JSON_ARRAY, vec![layout("Av"), Expr::input(1)])
        );
    }

    #[test]
    fn prefix_minus_is_negation_and_trim_takes_its_flag() {
        let neg = read(
            json!({"kind": "CALL", "syntax": "PREFIX", "internalName": "$-$1",
            "operands": [input(0, "INT")], "type": "INT"}),
        )
        .unwrap();
        assert_eq!(
            neg,
            Expr::call(arithmetic::UNARY_MINUS, vec![Expr::input(0)])
        );
        let trim = read(
            json!({"kind": "CALL", "internalName": "$TRIM$1", "operands": [
            {"kind": "LITERAL", "symbol": "TRIM", "value": "LEADING",
             "type": {"type": "SYMBOL", "nullable": false}},
            {"kind": "LITERAL", "value": "x", "type": "CHAR(1) NOT NULL"},
            input(2, "VARCHAR(20)")], "type": "VARCHAR(20)"}),
        )
        .unwrap();
        assert_eq!(
            trim,
            Expr::call(
                string::TRIM_LEADING,
                vec![Expr::input(2), Expr::lit(LogicalType::Char(1), "x")]
            )
        );
    }

    #[test]
    fn a_sarg_of_points_or_of_their_complement_is_a_hash_set_test() {
        let search = |ranges: Value| {
            json!({"kind": "CALL", "syntax": "INTERNAL", "internalName": "$SEARCH$1",
                "operands": [input(1, "DOUBLE"), {"kind": "LITERAL", "sarg": {"ranges": ranges,
                    "nullAs": "UNKNOWN"}, "type": "DOUBLE NOT NULL"}],
                "type": "BOOLEAN"})
        };
        let point = |v: &str| {
            json!({"lower": {"value": v, "boundType": "CLOSED"},
            "upper": {"value": v, "boundType": "CLOSED"}})
        };
        let member = |v: &str| {
            Expr::call(
                comparison::IN_SET_EQUALS,
                vec![Expr::input(1), Expr::lit(LogicalType::Double, v)],
            )
        };
        let any = Expr::Or(vec![member("0.0"), member("2.5")]);
        assert_eq!(
            read(search(json!([point("0.0"), point("2.5")]))).unwrap(),
            any
        );
        let open = |v: &str| json!({"value": v, "boundType": "OPEN"});
        let not_in = json!([{"upper": open("0.0")}, {"lower": open("0.0"), "upper": open("2.5")},
            {"lower": open("2.5")}]);
        assert_eq!(read(search(not_in)).unwrap(), Expr::Not(Box::new(any)));
    }

    #[test]
    fn search_becomes_comparisons_with_sargs_null_handling() {
        let sarg = |null_as: &str| {
            json!({"kind": "CALL", "syntax": "INTERNAL", "internalName": "$SEARCH$1",
                "operands": [input(1, "INT"), {"kind": "LITERAL", "sarg": {"ranges": [
                    {"lower": {"value": 1, "boundType": "CLOSED"},
                     "upper": {"value": 1, "boundType": "CLOSED"}},
                    {"lower": {"value": 5, "boundType": "OPEN"}}],
                    "nullAs": null_as}, "type": "INT NOT NULL"}],
                "type": "BOOLEAN"})
        };
        let int = |v: &str| Expr::lit(LogicalType::Int, v);
        let ranges = Expr::Or(vec![
            Expr::call(comparison::EQUALS, vec![Expr::input(1), int("1")]),
            Expr::call(comparison::GREATER_THAN, vec![Expr::input(1), int("5")]),
        ]);
        assert_eq!(read(sarg("UNKNOWN")).unwrap(), ranges);
        assert_eq!(
            read(sarg("TRUE")).unwrap(),
            Expr::Or(vec![
                Expr::call(comparison::IS_NULL, vec![Expr::input(1)]),
                ranges.clone()
            ])
        );
        assert_eq!(
            read(sarg("FALSE")).unwrap(),
            Expr::And(vec![
                Expr::call(comparison::IS_NOT_NULL, vec![Expr::input(1)]),
                ranges
            ])
        );
    }

    #[test]
    fn unknown_versions_user_functions_and_nondeterminism_are_refused_by_name() {
        let call = |name: &str| {
            json!({"kind": "CALL", "internalName": name, "operands": [input(0, "STRING")],
                   "type": "STRING"})
        };
        assert_eq!(
            read(call("$PARSE_URL$1")).unwrap_err().to_string(),
            "function $PARSE_URL$1 is not supported"
        );
        assert_eq!(
            read(call("$UPPER$2")).unwrap_err().to_string(),
            "function $UPPER$2 is not supported"
        );
        let udf = read(json!({"kind": "CALL", "catalogName": "`cat`.`db`.`f`",
            "operands": [], "type": "INT"}))
        .unwrap_err();
        assert!(udf.to_string().contains("catalog function"), "{udf}");
        let rand = read(
            json!({"kind": "CALL", "internalName": "$RAND$1", "operands": [],
            "type": "DOUBLE NOT NULL"}),
        )
        .unwrap_err();
        assert!(rand.to_string().contains("nondeterministic"), "{rand}");
        let sin = read(json!({"kind": "CALL", "internalName": "$SIN$1",
            "operands": [input(3, "DOUBLE")], "type": "DOUBLE"}))
        .unwrap_err();
        assert!(
            sin.to_string()
                .starts_with("function $SIN$1 is not supported natively yet: Java's Math"),
            "{sin}"
        );
        // The fdlibm functions: by the job's JDK.
        let call_on = |name: &str, jdk: Option<u32>| {
            RexReader::for_jvm(jdk)
                .expr(
                    &json!({"kind": "CALL", "internalName": format!("${name}$1"),
                    "operands": [input(3, "DOUBLE")], "type": "DOUBLE"}),
                )
                .map_err(|e| e.to_string())
        };
        for name in ["ASIN", "ACOS", "ATAN", "SINH", "COSH", "TANH"] {
            assert!(call_on(name, Some(17)).is_ok(), "{name} on JDK 17");
            let unknown = call_on(name, None).unwrap_err();
            assert!(unknown.contains("the job's JDK is unknown"), "{unknown}");
            let later = call_on(name, Some(26)).unwrap_err();
            assert!(later.contains("on JDK 26"), "{later}");
        }
        assert!(call_on("SINH", Some(25)).is_ok());
        assert!(call_on("TANH", Some(23)).is_ok());
        let tanh = call_on("TANH", Some(25)).unwrap_err();
        assert_eq!(
            tanh,
            "function $TANH$1 is not supported on JDK 25: `java.lang.Math` may compute it with \
             an intrinsic there, not as fdlibm"
        );
        let field = read(json!({"kind": "FIELD_ACCESS", "name": "a", "expr": input(0, "INT")}))
            .unwrap_err();
        assert_eq!(
            field.to_string(),
            "RexNode kind FIELD_ACCESS is not supported"
        );
    }

    #[test]
    fn equality_reads_a_timestamp_widened_to_nanoseconds_uncast() {
        let widened = |ty: &str, to: &str| {
            json!({"kind": "CALL", "internalName": "$CAST$1", "operands": [input(0, ty)],
                "type": to})
        };
        let compare = |op: &str, left: Value| {
            read(json!({"kind": "CALL", "internalName": format!("${op}$1"),
                "operands": [left, input(1, "TIMESTAMP(9)")], "type": "BOOLEAN"}))
            .unwrap()
        };
        let plain = Expr::call(comparison::EQUALS, vec![Expr::Input(0), Expr::Input(1)]);
        assert_eq!(compare("=", widened("TIMESTAMP(3)", "TIMESTAMP(9)")), plain);
        // Other casts, and other operators, keep the cast.
        let kept = compare("=", widened("TIMESTAMP(3)", "TIMESTAMP(6)"));
        assert_ne!(kept, plain);
        let kept = compare("<", widened("TIMESTAMP(3)", "TIMESTAMP(9)"));
        assert_eq!(
            kept,
            Expr::call(
                comparison::LESS_THAN,
                vec![
                    Expr::Input(0).cast(LogicalType::Timestamp(9)),
                    Expr::Input(1)
                ]
            )
        );
    }

    #[test]
    fn literals_keep_flinks_text_and_refuse_what_has_no_native_literal() {
        // Calcite's CHAR(2) for one supplementary character is one code point natively.
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "x😀", "type": "CHAR(3) NOT NULL"})).unwrap(),
            Expr::lit(LogicalType::Char(2), "x😀")
        );
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "1.5E+10", "type": "DOUBLE NOT NULL"}))
                .unwrap(),
            Expr::lit(LogicalType::Double, "1.5E+10")
        );
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "1E+2", "type": "DECIMAL(3, 0) NOT NULL"}))
                .unwrap(),
            Expr::lit(
                LogicalType::Decimal {
                    precision: 3,
                    scale: 0
                },
                "100"
            )
        );
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": null, "type": "INT"})).unwrap(),
            Expr::null(LogicalType::Int)
        );
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "86400000",
                "type": "INTERVAL DAY(2) TO SECOND(3) NOT NULL"}))
            .unwrap(),
            Expr::lit(LogicalType::IntervalDayTime, "86400000")
        );
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "14", "type": "INTERVAL YEAR(2) TO MONTH"}))
                .unwrap(),
            Expr::lit(LogicalType::IntervalYearMonth, "14")
        );
        // Binary literals arrive as Base64 (what `X'0001'`, `X'616263'` and `X''` become).
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "AAE=", "type": "BINARY(2) NOT NULL"}))
                .unwrap(),
            Expr::lit(LogicalType::Binary(2), "0001")
        );
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "YWJj",
                "type": "VARBINARY(2147483647) NOT NULL"}))
            .unwrap(),
            Expr::lit(LogicalType::VarBinary(i32::MAX as u32), "616263")
        );
        assert_eq!(
            read(json!({"kind": "LITERAL", "value": "", "type": "VARBINARY(2147483647) NOT NULL"}))
                .unwrap(),
            Expr::lit(LogicalType::VarBinary(i32::MAX as u32), "")
        );
        assert_eq!(base64_to_hex("/w=="), Some("ff".into()));
        assert_eq!(base64_to_hex("YQ"), None);
        assert_eq!(base64_to_hex("YQ==YQ=="), None);
        assert_eq!(base64_to_hex("Y!=="), None);
    }
}
