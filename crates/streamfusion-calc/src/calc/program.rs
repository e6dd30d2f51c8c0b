//! The Calc program: the serializable expression IR the JVM side produces.
//!
//! A program is JSON (the field names below are its encoding; [`CalcProgram::from_json`] and
//! [`CalcProgram::to_json`] read and write it):
//!
//! ```json
//! {
//!   "projection": [
//!     {"call": {"op": 100, "args": [{"input": 0}, {"literal": {"type": "INT", "value": "1"}}]}},
//!     {"case": {"when": [[{"call": {"op": 206, "args": [{"input": 1}]}},
//!                         {"literal": {"type": "STRING", "value": "none"}}]],
//!               "else": {"input": 1}}}
//!   ],
//!   "filter": {"call": {"op": 204, "args": [{"input": 0}, {"literal": {"type": "INT", "value": "0"}}]}},
//!   "names": ["a_plus_one", "b_or_none"],
//!   "legacy_cast_behaviour": false
//! }
//! ```
//!
//! Expressions ([`Expr`]), one JSON object with a single key each:
//!
//! | encoding | meaning |
//! |---|---|
//! | `{"input": i}` | input field `i` (0-based) |
//! | `{"literal": {"type": T, "value": V}}` | a literal of Flink type `T`; `V` is its SQL text as a JSON string, or `null` for a typed NULL |
//! | `{"call": {"op": n, "args": [...]}}` | the registry function with opcode `n` ([`super::registry`]) |
//! | `{"cast": {"expr": e, "type": T}}` | `CAST(e AS T)` |
//! | `{"try_cast": {"expr": e, "type": T}}` | `TRY_CAST(e AS T)`: NULL where the cast fails |
//! | `{"case": {"when": [[c, v], ...], "else": e}}` | `CASE WHEN c THEN v ... ELSE e END`; `else` may be omitted (NULL) |
//! | `{"if": {"condition": c, "then": a, "else": b}}` | `IF(c, a, b)` |
//! | `{"coalesce": [e, ...]}` | `COALESCE(e, ...)` |
//! | `{"and": [e, ...]}`, `{"or": [e, ...]}`, `{"not": e}` | three-valued logic |
//! | `{"upcall": {"index": n, "args": [...], "arguments": [T, ...], "type": T}}` | `upcalls[n]` over `args` (of types `arguments`), evaluated by the host ([`super::upcall`]) |
//!
//! Types use Flink's SQL spelling (`INT`, `DECIMAL(10, 2)`, `VARCHAR(20)`, `STRING`,
//! `TIMESTAMP(3)`). Literal text is what Flink prints for the value: `-12`, `1.50`, `1.5E10`,
//! `abc` (strings unquoted), `0A0B` (hex for binary strings), `2024-02-29`, `12:30:00.5`,
//! `2024-02-29 12:30:00.123456789`, `true`.
//!
//! `legacy_cast_behaviour` is Flink's `table.exec.legacy-cast-behaviour`: when `true`, a failing
//! `CAST` returns NULL instead of failing (as `TRY_CAST` always does).
//!
//! `time_zone` is Flink's session time zone `table.local-time-zone`, an IANA id (`UTC`,
//! `Asia/Shanghai`, `America/New_York`) or a fixed offset (`GMT+08:00`); omitted means `UTC`.
//! It drives the temporal functions that read or produce `TIMESTAMP_LTZ` or the wall clock.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::types::LogicalType;

use super::CalcError;
use super::upcall::UpcallDef;

/// Projections and an optional filter over one input row type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalcProgram {
    /// One expression per output field.
    pub projection: Vec<Expr>,
    /// Rows for which this is not TRUE (FALSE or NULL) are dropped before projecting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<Expr>,
    /// Output field names; empty means `f0`, `f1`, ...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Flink's `table.exec.legacy-cast-behaviour`: failing casts give NULL.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub legacy_cast_behaviour: bool,
    /// Flink's `table.local-time-zone` (see the module documentation).
    #[serde(default = "utc", skip_serializing_if = "is_utc")]
    pub time_zone: String,
    /// How the job's JVM prints a FLOAT or DOUBLE (see [`FloatText`]).
    #[serde(default, skip_serializing_if = "FloatText::is_shortest")]
    pub float_text: FloatText,
    /// The calls the host evaluates, by [`Upcall::index`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upcalls: Vec<UpcallDef>,
}

/// Which `Double.toString`/`Float.toString` the job's JVM has. CAST of a FLOAT or DOUBLE to a
/// string, and to DECIMAL and ROUND/TRUNCATE of one (through `BigDecimal.valueOf(double)`),
/// print with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FloatText {
    /// JDK 19 and later: the shortest decimal that reads back as the value (the closest of
    /// those), which native code prints too.
    #[default]
    Shortest,
    /// JDK 18 and older: `jdk.internal.math.FloatingDecimal`, whose digits are sometimes
    /// longer or farther than the shortest (`1.0E23` prints as `9.999999999999999E22`).
    /// Calc refuses what prints through it (decision 0037), so such a plan falls back.
    FloatingDecimal,
}

impl FloatText {
    /// The text of the JVM whose `java.specification.version` is `version` (`17`, `1.8`).
    pub fn of_java_version(version: &str) -> Option<Self> {
        let feature = java_feature_version(version)?;
        Some(if feature >= 19 {
            FloatText::Shortest
        } else {
            FloatText::FloatingDecimal
        })
    }

    fn is_shortest(&self) -> bool {
        *self == FloatText::Shortest
    }
}

/// The feature release of a `java.specification.version` (`17` of `17`, `8` of `1.8`).
pub fn java_feature_version(version: &str) -> Option<u32> {
    let feature = version.strip_prefix("1.").unwrap_or(version);
    feature.split('.').next()?.parse().ok()
}

fn utc() -> String {
    "UTC".into()
}

fn is_utc(zone: &str) -> bool {
    zone == "UTC"
}

impl CalcProgram {
    /// A program of projections with no filter.
    pub fn project(projection: Vec<Expr>) -> Self {
        Self {
            projection,
            filter: None,
            names: Vec::new(),
            legacy_cast_behaviour: false,
            time_zone: utc(),
            float_text: FloatText::Shortest,
            upcalls: Vec::new(),
        }
    }

    /// This program with a filter.
    pub fn with_filter(mut self, filter: Expr) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Reads a program from its JSON encoding.
    pub fn from_json(json: &str) -> Result<Self, CalcError> {
        serde_json::from_str(json).map_err(|e| CalcError::Decode(e.to_string()))
    }

    /// The program's JSON encoding.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a Calc program always serialises")
    }
}

/// One expression of a [`CalcProgram`] (see the module documentation for its encoding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Expr {
    /// An input field.
    Input(usize),
    /// A typed literal; `value: None` is a typed NULL.
    Literal(Literal),
    /// A registry function by opcode.
    Call(Call),
    /// `CAST(expr AS type)`.
    Cast(CastTo),
    /// `TRY_CAST(expr AS type)`.
    TryCast(CastTo),
    /// `CASE WHEN ... THEN ... ELSE ... END`.
    Case(Case),
    /// `IF(condition, then, else)`.
    If(If),
    /// The first non-NULL argument.
    Coalesce(Vec<Expr>),
    /// Three-valued AND.
    And(Vec<Expr>),
    /// Three-valued OR.
    Or(Vec<Expr>),
    /// Three-valued NOT.
    Not(Box<Expr>),
    /// A call the host evaluates.
    Upcall(Upcall),
}

/// A call evaluated by the host ([`super::upcall`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upcall {
    /// Its definition in [`CalcProgram::upcalls`].
    pub index: usize,
    /// Its arguments, evaluated natively.
    #[serde(default)]
    pub args: Vec<Expr>,
    /// The arguments' types: what the host reads.
    #[serde(default, with = "type_names")]
    pub arguments: Vec<LogicalType>,
    /// Its result type.
    #[serde(rename = "type", with = "type_name")]
    pub ty: LogicalType,
}

/// A typed literal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Literal {
    /// The literal's Flink type.
    #[serde(rename = "type", with = "type_name")]
    pub ty: LogicalType,
    /// Its SQL text, or `None` for NULL.
    pub value: Option<String>,
}

/// A registry call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The function's stable opcode.
    pub op: u16,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<Expr>,
}

/// The operand and target of a cast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CastTo {
    /// The value cast.
    pub expr: Box<Expr>,
    /// The target type.
    #[serde(rename = "type", with = "type_name")]
    pub ty: LogicalType,
}

/// A searched CASE.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// `(condition, result)` pairs, tried in order.
    pub when: Vec<(Expr, Expr)>,
    /// The result when no condition is TRUE; `None` is NULL.
    #[serde(rename = "else", default, skip_serializing_if = "Option::is_none")]
    pub otherwise: Option<Box<Expr>>,
}

/// `IF(condition, then, else)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct If {
    /// The condition.
    pub condition: Box<Expr>,
    /// The result when the condition is TRUE.
    pub then: Box<Expr>,
    /// The result otherwise (FALSE or NULL).
    #[serde(rename = "else")]
    pub otherwise: Box<Expr>,
}

impl Expr {
    /// Input field `index`.
    pub fn input(index: usize) -> Self {
        Expr::Input(index)
    }

    /// A literal of type `ty` written as `text`.
    pub fn lit(ty: LogicalType, text: impl Into<String>) -> Self {
        Expr::Literal(Literal {
            ty,
            value: Some(text.into()),
        })
    }

    /// A NULL of type `ty`.
    pub fn null(ty: LogicalType) -> Self {
        Expr::Literal(Literal { ty, value: None })
    }

    /// The registry function `op` applied to `args`.
    pub fn call(op: u16, args: Vec<Expr>) -> Self {
        Expr::Call(Call { op, args })
    }

    /// `CAST(self AS ty)`.
    pub fn cast(self, ty: LogicalType) -> Self {
        Expr::Cast(CastTo {
            expr: Box::new(self),
            ty,
        })
    }

    /// `TRY_CAST(self AS ty)`.
    pub fn try_cast(self, ty: LogicalType) -> Self {
        Expr::TryCast(CastTo {
            expr: Box::new(self),
            ty,
        })
    }

    /// `CASE WHEN c THEN v ... ELSE otherwise END`.
    pub fn case(when: Vec<(Expr, Expr)>, otherwise: Option<Expr>) -> Self {
        Expr::Case(Case {
            when,
            otherwise: otherwise.map(Box::new),
        })
    }

    /// `IF(condition, then, otherwise)`.
    pub fn if_(condition: Expr, then: Expr, otherwise: Expr) -> Self {
        Expr::If(If {
            condition: Box::new(condition),
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        })
    }
}

/// Flink type names as JSON strings.
mod type_name {
    use super::*;

    pub fn serialize<S: Serializer>(ty: &LogicalType, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(ty)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<LogicalType, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Lists of Flink type names.
mod type_names {
    use super::*;

    pub fn serialize<S: Serializer>(types: &[LogicalType], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(types.iter().map(ToString::to_string))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<LogicalType>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|text| text.parse().map_err(serde::de::Error::custom))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_example_decodes_and_round_trips() {
        let json = r#"{
          "projection": [
            {"call": {"op": 100, "args": [{"input": 0}, {"literal": {"type": "INT", "value": "1"}}]}},
            {"case": {"when": [[{"call": {"op": 206, "args": [{"input": 1}]}},
                                {"literal": {"type": "STRING", "value": "none"}}]],
                      "else": {"input": 1}}}
          ],
          "filter": {"call": {"op": 204, "args": [{"input": 0}, {"literal": {"type": "INT", "value": "0"}}]}},
          "names": ["a_plus_one", "b_or_none"],
          "legacy_cast_behaviour": false
        }"#;
        let program = CalcProgram::from_json(json).unwrap();
        let expected = CalcProgram {
            projection: vec![
                Expr::call(100, vec![Expr::input(0), Expr::lit(LogicalType::Int, "1")]),
                Expr::case(
                    vec![(
                        Expr::call(206, vec![Expr::input(1)]),
                        Expr::lit(LogicalType::VarChar(i32::MAX as u32), "none"),
                    )],
                    Some(Expr::input(1)),
                ),
            ],
            filter: Some(Expr::call(
                204,
                vec![Expr::input(0), Expr::lit(LogicalType::Int, "0")],
            )),
            names: vec!["a_plus_one".into(), "b_or_none".into()],
            legacy_cast_behaviour: false,
            time_zone: "UTC".into(),
            float_text: FloatText::Shortest,
            upcalls: Vec::new(),
        };
        assert_eq!(program, expected);
        assert_eq!(CalcProgram::from_json(&program.to_json()).unwrap(), program);
    }

    #[test]
    fn unknown_fields_and_bad_types_are_decode_errors() {
        for (json, needle) in [
            (r#"{"projection": [], "extra": 1}"#, "extra"),
            (r#"{"projection": [{"column": 0}]}"#, "column"),
            (
                r#"{"projection": [{"literal": {"type": "INTEGR", "value": "1"}}]}"#,
                "INTEGR",
            ),
        ] {
            let err = CalcProgram::from_json(json).unwrap_err();
            assert!(matches!(err, CalcError::Decode(_)), "{err:?}");
            assert!(err.to_string().contains(needle), "{err}");
        }
    }
}
