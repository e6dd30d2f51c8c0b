//! The scalar registry: every Flink function Calc runs natively, by stable opcode.
//!
//! Opcodes are part of the program encoding the JVM side writes, so they never change meaning
//! once released. Each family owns a range:
//!
//! | range | family | module |
//! |---|---|---|
//! | 100–199 | arithmetic | [`super::functions::arithmetic`] |
//! | 200–299 | comparisons and predicates | [`super::functions::comparison`] |
//! | 300–329 | strings | [`super::functions::string`] |
//! | 330–349 | string edits | [`super::functions::string_edit`] |
//! | 350–364 | string searches | [`super::functions::string_search`] |
//! | 365–384 | string encodings | [`super::functions::string_codec`] |
//! | 385–389 | regular expressions and splitting | [`super::functions::string_regexp`] |
//! | 390 | SIMILAR TO | [`super::functions::string_similar`] |
//! | 400–499 | math | [`super::functions::math`] |
//! | 500–549 | hashes | [`super::functions::hash`] |
//! | 600–639 | temporal | [`super::functions::temporal`] |
//! | 640–699 | intervals | [`super::functions::interval`] |
//! | 700–799 | collections | [`super::functions::collection`] |
//! | 800–807 | JSON predicates | [`super::functions::json`] |
//! | 808–849 | JSON text | [`super::functions::json_string`] |
//! | 850–899 | values and encodings | [`super::functions::value`] |
//!
//! Each module lists its opcodes as documented constants (`arithmetic::PLUS` = 100, ...).
//!
//! A [`FunctionDef`] binds argument types to a [`Bound`] call: the types the arguments are
//! implicitly cast to (Flink's coercion), Flink's result type, and the [`Kernel`] that computes
//! it. Binding happens once, when a program compiles.

use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::{
    ColumnarValue, Operator, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::physical_expr::PhysicalExpr;

use crate::types::LogicalType;

use super::functions;
use super::program::FloatText;

/// How many arguments a function takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many.
    Exact(usize),
    /// Between the two, inclusive.
    Range(usize, usize),
    /// At least this many.
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` arguments are accepted.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exact(k) => n == k,
            Arity::Range(lo, hi) => (lo..=hi).contains(&n),
            Arity::AtLeast(lo) => n >= lo,
        }
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Arity::Exact(k) => write!(f, "{k}"),
            Arity::Range(lo, hi) => write!(f, "{lo} to {hi}"),
            Arity::AtLeast(lo) => write!(f, "at least {lo}"),
        }
    }
}

/// What a binding sees of a call's arguments.
#[derive(Debug)]
pub struct Args<'a> {
    /// The argument types.
    pub types: &'a [LogicalType],
    /// Each argument's value when it is a literal (after its own casts), else `None`.
    pub literals: &'a [Option<ScalarValue>],
    /// The program's session time zone (`CalcProgram::time_zone`, Flink's
    /// `table.local-time-zone`).
    pub time_zone: &'a str,
    /// How the job's JVM prints a FLOAT or DOUBLE (`CalcProgram::float_text`).
    pub float_text: FloatText,
}

impl<'a> Args<'a> {
    /// The literal value of argument `i`, if it is one.
    pub fn literal(&self, i: usize) -> Option<&ScalarValue> {
        self.literals.get(i).and_then(Option::as_ref)
    }

    /// Arguments of these types and literals, bound in the `UTC` session time zone.
    pub fn utc(types: &'a [LogicalType], literals: &'a [Option<ScalarValue>]) -> Self {
        Args {
            types,
            literals,
            time_zone: "UTC",
            float_text: FloatText::Shortest,
        }
    }
}

/// Binds a call's argument types, or says why they are not accepted.
pub type BindFn = fn(&Args<'_>) -> Result<Bound, String>;

/// One registered function.
pub struct FunctionDef {
    /// Its stable opcode.
    pub opcode: u16,
    /// Flink's SQL name.
    pub name: &'static str,
    /// How many arguments it takes.
    pub arity: Arity,
    /// Its type binding.
    pub bind: BindFn,
}

impl fmt::Debug for FunctionDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (opcode {})", self.name, self.opcode)
    }
}

/// A call with its argument types bound.
#[derive(Debug)]
pub struct Bound {
    /// The types the arguments are cast to before the call (Flink's implicit coercion).
    pub args: Vec<LogicalType>,
    /// Flink's result type.
    pub result: LogicalType,
    /// How the result is computed.
    pub kernel: Kernel,
}

/// Builds a physical expression from the (already coerced) arguments.
pub type PhysicalFn = fn(Vec<Arc<dyn PhysicalExpr>>) -> DfResult<Arc<dyn PhysicalExpr>>;

/// The function applied to arrays: a scalar argument stays scalar, `rows` is the batch length.
pub type KernelFn = dyn Fn(&[ColumnarValue], usize) -> DfResult<ColumnarValue> + Send + Sync;

/// How a bound call is computed.
pub enum Kernel {
    /// DataFusion's binary operator: its semantics equal Flink's for the bound types.
    Binary(Operator),
    /// A DataFusion physical expression built from the arguments.
    Physical(PhysicalFn),
    /// A scalar function (DataFusion's own where it matches Flink, else StreamFusion's).
    Function(Arc<ScalarUDF>),
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kernel::Binary(op) => write!(f, "Binary({op})"),
            Kernel::Physical(_) => f.write_str("Physical"),
            Kernel::Function(udf) => write!(f, "Function({})", udf.name()),
        }
    }
}

impl Kernel {
    /// A StreamFusion function named `name` returning `result`, computed by `f`.
    pub fn function(
        name: impl Into<String>,
        result: &LogicalType,
        f: impl Fn(&[ColumnarValue], usize) -> DfResult<ColumnarValue> + Send + Sync + 'static,
    ) -> Self {
        Kernel::Function(Arc::new(ScalarUDF::new_from_impl(FlinkUdf {
            name: name.into(),
            signature: Signature::variadic_any(Volatility::Immutable),
            result: result.to_arrow(),
            kernel: Arc::new(f),
        })))
    }
}

/// A [`ScalarUDFImpl`] over a kernel closure. Arguments are coerced before the call, so the
/// signature accepts any types.
struct FlinkUdf {
    name: String,
    signature: Signature,
    result: arrow::datatypes::DataType,
    kernel: Arc<KernelFn>,
}

impl fmt::Debug for FlinkUdf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} -> {}", self.name, self.result)
    }
}

impl PartialEq for FlinkUdf {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.result == other.result
            && Arc::ptr_eq(&self.kernel, &other.kernel)
    }
}

impl Eq for FlinkUdf {}

impl Hash for FlinkUdf {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.result.hash(state);
    }
}

impl ScalarUDFImpl for FlinkUdf {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(
        &self,
        _: &[arrow::datatypes::DataType],
    ) -> DfResult<arrow::datatypes::DataType> {
        Ok(self.result.clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        (self.kernel)(&args.args, args.number_rows)
    }
}

/// Every registered function, by opcode.
pub struct Registry {
    by_opcode: HashMap<u16, &'static FunctionDef>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.functions()).finish()
    }
}

/// The families, in opcode order.
const FAMILIES: &[&[FunctionDef]] = &[
    functions::arithmetic::FUNCTIONS,
    functions::comparison::FUNCTIONS,
    functions::string::FUNCTIONS,
    functions::string_edit::FUNCTIONS,
    functions::string_search::FUNCTIONS,
    functions::string_codec::FUNCTIONS,
    functions::string_regexp::FUNCTIONS,
    functions::string_similar::FUNCTIONS,
    functions::math::FUNCTIONS,
    functions::hash::FUNCTIONS,
    functions::temporal::FUNCTIONS,
    functions::interval::FUNCTIONS,
    functions::collection::FUNCTIONS,
    functions::json::FUNCTIONS,
    functions::json_string::FUNCTIONS,
    functions::value::FUNCTIONS,
];

impl Registry {
    /// The function with this opcode.
    pub fn get(&self, opcode: u16) -> Option<&'static FunctionDef> {
        self.by_opcode.get(&opcode).copied()
    }

    /// Every function, in opcode order.
    pub fn functions(&self) -> Vec<&'static FunctionDef> {
        let mut all: Vec<_> = self.by_opcode.values().copied().collect();
        all.sort_by_key(|d| d.opcode);
        all
    }

    /// The function named `name` (Flink's SQL name; several opcodes may share one, e.g. the
    /// TRIM variants, so this returns the lowest).
    pub fn by_name(&self, name: &str) -> Option<&'static FunctionDef> {
        self.functions()
            .into_iter()
            .find(|d| d.name.eq_ignore_ascii_case(name))
    }
}

/// The registry (built once).
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| Registry {
        by_opcode: FAMILIES
            .iter()
            .flat_map(|family| family.iter())
            .map(|d| (d.opcode, d))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_are_unique_and_in_their_familys_range() {
        let ranges = [
            (100, 199),
            (200, 299),
            (300, 329),
            (330, 349),
            (350, 364),
            (365, 384),
            (385, 389),
            (390, 390),
            (400, 499),
            (500, 549),
            (600, 639),
            (640, 699),
            (700, 799),
            (800, 807),
            (808, 849),
            (850, 899),
        ];
        assert_eq!(ranges.len(), FAMILIES.len());
        let mut seen = HashMap::new();
        for (family, &(lo, hi)) in FAMILIES.iter().zip(&ranges) {
            for d in *family {
                assert!((lo..=hi).contains(&d.opcode), "{d:?} outside {lo}..={hi}");
                if let Some(other) = seen.insert(d.opcode, d.name) {
                    panic!("opcode {} used by {other} and {}", d.opcode, d.name);
                }
            }
        }
        assert_eq!(registry().functions().len(), seen.len());
    }
}
