//! Compiling a [`CalcProgram`] once into DataFusion physical expressions, and evaluating it.

use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch, RecordBatchOptions};
use arrow::compute::{filter, filter_record_batch, prep_null_mask_filter};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::ScalarValue;
use datafusion::common::config::ConfigOptions;
use datafusion::physical_expr::expressions::{
    BinaryExpr, CaseExpr, Column, IsNotNullExpr, Literal as LiteralExpr, NotExpr,
};
use datafusion::physical_expr::{PhysicalExpr, ScalarFunctionExpr};

use crate::changelog::ChangelogBatch;
use crate::types::LogicalType;

use super::CalcError;
use super::cast::{self, OnError};
use super::coercion::{common_type, is_approximate, is_string};
use super::literal;
use super::logic::LazyLogic;
use super::program::{CalcProgram, Expr, FloatText};
use super::upcall::{UpcallExpr, UpcallHost, UpcallSlot};

/// Why Calc refuses what prints a FLOAT or DOUBLE for a JVM older than 19.
pub(crate) const FLOATING_DECIMAL: &str = "the job's JVM (JDK 18 or older) prints FLOAT/DOUBLE with FloatingDecimal, whose digits \
     are not always the shortest; only JDK 19+'s text is native (decision 0037)";
use super::registry::{Args, Kernel, registry};

/// A compiled Calc program: evaluates any number of batches of its input type.
#[derive(Debug, Clone)]
pub struct CompiledCalc {
    input: Vec<LogicalType>,
    input_schema: SchemaRef,
    filter: Option<Arc<dyn PhysicalExpr>>,
    projection: Vec<Arc<dyn PhysicalExpr>>,
    output: Vec<LogicalType>,
    output_schema: SchemaRef,
    /// The host the program's upcalls call (shared by clones).
    upcalls: Arc<UpcallSlot>,
    /// Whether the program has upcalls.
    has_upcalls: bool,
}

/// Validates `program` against rows of `input` types and builds its physical expressions.
pub fn compile(program: &CalcProgram, input: &[LogicalType]) -> Result<CompiledCalc, CalcError> {
    let input_schema = Arc::new(Schema::new(
        input
            .iter()
            .enumerate()
            .map(|(i, ty)| Field::new(format!("f{i}"), ty.to_arrow(), true))
            .collect::<Vec<_>>(),
    ));
    let compiler = Compiler {
        input,
        schema: Arc::clone(&input_schema),
        on_cast_error: if program.legacy_cast_behaviour {
            OnError::Legacy
        } else {
            OnError::Fail
        },
        config: Arc::new(ConfigOptions::default()),
        time_zone: &program.time_zone,
        float_text: program.float_text,
        upcalls: &program.upcalls,
        slot: Arc::new(UpcallSlot::default()),
        has_upcalls: std::cell::Cell::new(false),
    };
    let filter = program
        .filter
        .as_ref()
        .map(|f| {
            let typed = compiler.expr(f, "filter")?;
            compiler.boolean(typed, "filter")
        })
        .transpose()?;
    if !program.names.is_empty() && program.names.len() != program.projection.len() {
        return Err(CalcError::Names {
            names: program.names.len(),
            projections: program.projection.len(),
        });
    }
    let mut projection = Vec::with_capacity(program.projection.len());
    let mut output = Vec::with_capacity(program.projection.len());
    for (i, e) in program.projection.iter().enumerate() {
        let typed = compiler.expr(e, &format!("projection[{i}]"))?;
        projection.push(typed.expr);
        output.push(typed.ty);
    }
    let output_schema = Arc::new(Schema::new(
        output
            .iter()
            .enumerate()
            .map(|(i, ty)| {
                let name = program
                    .names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| format!("f{i}"));
                Field::new(name, ty.to_arrow(), true)
            })
            .collect::<Vec<_>>(),
    ));
    Ok(CompiledCalc {
        input: input.to_vec(),
        input_schema,
        filter,
        projection,
        output,
        output_schema,
        has_upcalls: compiler.has_upcalls.get(),
        upcalls: compiler.slot,
    })
}

impl CompiledCalc {
    /// The input field types.
    pub fn input_types(&self) -> &[LogicalType] {
        &self.input
    }

    /// The output field types.
    pub fn output_types(&self) -> &[LogicalType] {
        &self.output
    }

    /// The output schema (all fields nullable).
    pub fn output_schema(&self) -> &SchemaRef {
        &self.output_schema
    }

    /// Whether the program has upcalls, which need a host ([`CompiledCalc::bind_upcalls`]).
    pub fn has_upcalls(&self) -> bool {
        self.has_upcalls
    }

    /// Binds the host the program's upcalls call, once: an error if one is bound already.
    pub fn bind_upcalls(&self, host: Arc<dyn UpcallHost>) -> Result<(), CalcError> {
        if self.upcalls.bind(host) {
            Ok(())
        } else {
            Err(CalcError::UpcallsBound)
        }
    }

    /// Filters and projects `input`: each output row keeps its input row's kind. The filter
    /// runs first, so projections never see (or fail on) rows it drops.
    pub fn evaluate(&self, input: &ChangelogBatch) -> Result<ChangelogBatch, CalcError> {
        let batch = self.conform(input.batch())?;
        let (batch, kinds) = match &self.filter {
            None => (batch, input.kinds().cloned()),
            Some(predicate) => {
                let mask = predicate
                    .evaluate(&batch)
                    .and_then(|v| v.into_array(batch.num_rows()))
                    .map_err(|e| super::evaluation_error("filter", e))?;
                let mut mask = mask.as_boolean().clone();
                if mask.null_count() > 0 {
                    mask = prep_null_mask_filter(&mask);
                }
                if mask.true_count() == mask.len() {
                    (batch, input.kinds().cloned())
                } else {
                    let kinds = input
                        .kinds()
                        .map(|k| filter(k, &mask).map(|a| a.as_primitive().clone()))
                        .transpose()?;
                    (filter_record_batch(&batch, &mask)?, kinds)
                }
            }
        };
        let rows = batch.num_rows();
        let columns = self
            .projection
            .iter()
            .enumerate()
            .map(|(i, e)| {
                e.evaluate(&batch)
                    .and_then(|v| v.into_array(rows))
                    .map_err(|err| super::evaluation_error(&format!("projection[{i}]"), err))
            })
            .collect::<Result<Vec<ArrayRef>, _>>()?;
        let out = RecordBatch::try_new_with_options(
            Arc::clone(&self.output_schema),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )?;
        Ok(ChangelogBatch::try_new(out, kinds)?)
    }

    /// `batch` under the compiled input schema: same column count and Arrow types (names are
    /// free), so column references resolve by position.
    fn conform(&self, batch: &RecordBatch) -> Result<RecordBatch, CalcError> {
        let found: Vec<&DataType> = batch
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.data_type())
            .collect();
        let expected: Vec<&DataType> = self
            .input_schema
            .fields()
            .iter()
            .map(|f| f.data_type())
            .collect();
        if found != expected {
            return Err(CalcError::InputSchema {
                expected: self.input.iter().map(ToString::to_string).collect(),
                found: found.iter().map(ToString::to_string).collect(),
            });
        }
        Ok(RecordBatch::try_new_with_options(
            Arc::clone(&self.input_schema),
            batch.columns().to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
        )?)
    }
}

/// A compiled expression with its Flink type; `literal` is its value when it is a literal.
struct Typed {
    expr: Arc<dyn PhysicalExpr>,
    ty: LogicalType,
    literal: Option<ScalarValue>,
}

struct Compiler<'a> {
    input: &'a [LogicalType],
    schema: SchemaRef,
    on_cast_error: OnError,
    config: Arc<ConfigOptions>,
    time_zone: &'a str,
    float_text: FloatText,
    upcalls: &'a [super::upcall::UpcallDef],
    slot: Arc<UpcallSlot>,
    has_upcalls: std::cell::Cell<bool>,
}

impl Compiler<'_> {
    fn expr(&self, e: &Expr, path: &str) -> Result<Typed, CalcError> {
        match e {
            Expr::Input(i) => {
                let ty = self.input.get(*i).ok_or_else(|| CalcError::InputRef {
                    path: path.into(),
                    index: *i,
                    arity: self.input.len(),
                })?;
                Ok(Typed {
                    expr: Arc::new(Column::new(self.schema.field(*i).name(), *i)),
                    ty: ty.clone(),
                    literal: None,
                })
            }
            Expr::Literal(lit) => {
                let value = literal::parse(&lit.ty, lit.value.as_deref()).map_err(|reason| {
                    CalcError::Literal {
                        path: path.into(),
                        ty: lit.ty.to_string(),
                        reason,
                    }
                })?;
                Ok(Typed {
                    expr: Arc::new(LiteralExpr::new(value.clone())),
                    ty: lit.ty.clone(),
                    literal: Some(value),
                })
            }
            Expr::Call(call) => self.call(call.op, &call.args, path),
            Expr::Cast(c) | Expr::TryCast(c) => {
                let on_error = if matches!(e, Expr::TryCast(_)) {
                    OnError::Null
                } else {
                    self.on_cast_error
                };
                let inner = self.expr(&c.expr, &format!("{path}.expr"))?;
                if self.float_text == FloatText::FloatingDecimal
                    && is_approximate(&inner.ty)
                    && (is_string(&c.ty) || matches!(c.ty, LogicalType::Decimal { .. }))
                {
                    return Err(CalcError::Cast {
                        path: path.into(),
                        from: inner.ty.to_string(),
                        to: c.ty.to_string(),
                        reason: FLOATING_DECIMAL.into(),
                    });
                }
                let expr = cast::cast(inner.expr, &inner.ty, &c.ty, on_error, self.time_zone)
                    .map_err(|reason| CalcError::Cast {
                        path: path.into(),
                        from: inner.ty.to_string(),
                        to: c.ty.to_string(),
                        reason,
                    })?;
                Ok(Typed {
                    expr,
                    ty: c.ty.clone(),
                    literal: None,
                })
            }
            Expr::Case(case) => {
                let mut conditions = Vec::with_capacity(case.when.len());
                let mut results = Vec::with_capacity(case.when.len() + 1);
                for (i, (c, v)) in case.when.iter().enumerate() {
                    let c = self.expr(c, &format!("{path}.when[{i}]"))?;
                    conditions.push(self.boolean(c, &format!("{path}.when[{i}]"))?);
                    results.push(self.expr(v, &format!("{path}.then[{i}]"))?);
                }
                if let Some(otherwise) = &case.otherwise {
                    results.push(self.expr(otherwise, &format!("{path}.else"))?);
                }
                self.case(conditions, results, case.otherwise.is_some(), path)
            }
            Expr::If(f) => {
                let c = self.expr(&f.condition, &format!("{path}.condition"))?;
                let c = self.boolean(c, &format!("{path}.condition"))?;
                let then = self.expr(&f.then, &format!("{path}.then"))?;
                let otherwise = self.expr(&f.otherwise, &format!("{path}.else"))?;
                self.case(vec![c], vec![then, otherwise], true, path)
            }
            Expr::Coalesce(args) => {
                let args = self.args(args, path)?;
                let Some(last) = args.len().checked_sub(1) else {
                    return Err(CalcError::Arity {
                        path: path.into(),
                        function: "COALESCE".into(),
                        expected: "at least 1".into(),
                        found: 0,
                    });
                };
                // CASE WHEN a IS NOT NULL THEN a ... ELSE last: later arguments are evaluated
                // only where earlier ones are NULL, as in Flink's generated code.
                let conditions = args[..last]
                    .iter()
                    .map(|a| Arc::new(IsNotNullExpr::new(Arc::clone(&a.expr))) as _)
                    .collect();
                self.case(conditions, args, true, path)
            }
            Expr::And(args) | Expr::Or(args) => {
                let and = matches!(e, Expr::And(_));
                let name = if and { "AND" } else { "OR" };
                let mut operands = self
                    .args(args, path)?
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| self.boolean(a, &format!("{path}.args[{i}]")));
                let first = operands.next().ok_or_else(|| CalcError::Arity {
                    path: path.into(),
                    function: name.into(),
                    expected: "at least 1".into(),
                    found: 0,
                })??;
                let expr = operands.try_fold(first, |acc, next| {
                    Ok::<_, CalcError>(Arc::new(LazyLogic::new(acc, next?, and)) as _)
                })?;
                Ok(Typed {
                    expr,
                    ty: LogicalType::Boolean,
                    literal: None,
                })
            }
            Expr::Not(inner) => {
                let inner = self.expr(inner, &format!("{path}.arg"))?;
                let inner = self.boolean(inner, path)?;
                Ok(Typed {
                    expr: Arc::new(NotExpr::new(inner)),
                    ty: LogicalType::Boolean,
                    literal: None,
                })
            }
            Expr::Upcall(upcall) => {
                let def = self.upcalls.get(upcall.index).ok_or_else(|| {
                    CalcError::Decode(format!(
                        "{path}: upcall {} is not among the program's {} upcalls",
                        upcall.index,
                        self.upcalls.len()
                    ))
                })?;
                let args = self.args(&upcall.args, path)?;
                let found: Vec<String> = args.iter().map(|a| a.ty.to_string()).collect();
                let declared: Vec<String> =
                    upcall.arguments.iter().map(ToString::to_string).collect();
                if found != declared {
                    return Err(CalcError::ArgumentTypes {
                        path: path.into(),
                        function: def.function.clone(),
                        types: found,
                        reason: format!(
                            "the upcall declares its arguments as ({})",
                            declared.join(", ")
                        ),
                    });
                }
                self.has_upcalls.set(true);
                Ok(Typed {
                    expr: Arc::new(UpcallExpr {
                        index: upcall.index,
                        function: def.function.clone(),
                        args: args.into_iter().map(|a| a.expr).collect(),
                        arg_types: upcall.arguments.clone(),
                        ty: upcall.ty.clone(),
                        slot: Arc::clone(&self.slot),
                    }),
                    ty: upcall.ty.clone(),
                    literal: None,
                })
            }
        }
    }

    fn args(&self, args: &[Expr], path: &str) -> Result<Vec<Typed>, CalcError> {
        args.iter()
            .enumerate()
            .map(|(i, a)| self.expr(a, &format!("{path}.args[{i}]")))
            .collect()
    }

    fn boolean(&self, typed: Typed, path: &str) -> Result<Arc<dyn PhysicalExpr>, CalcError> {
        if typed.ty != LogicalType::Boolean {
            return Err(CalcError::NotBoolean {
                path: path.into(),
                found: typed.ty.to_string(),
            });
        }
        Ok(typed.expr)
    }

    fn call(&self, op: u16, args: &[Expr], path: &str) -> Result<Typed, CalcError> {
        let def = registry().get(op).ok_or_else(|| CalcError::UnknownOpcode {
            path: path.into(),
            opcode: op,
        })?;
        let path = format!("{path}:{}", def.name);
        if !def.arity.accepts(args.len()) {
            return Err(CalcError::Arity {
                path,
                function: def.name.into(),
                expected: def.arity.to_string(),
                found: args.len(),
            });
        }
        let args = self.args(args, &path)?;
        let types: Vec<LogicalType> = args.iter().map(|a| a.ty.clone()).collect();
        let literals: Vec<Option<ScalarValue>> = args.iter().map(|a| a.literal.clone()).collect();
        let bound = (def.bind)(&Args {
            types: &types,
            literals: &literals,
            time_zone: self.time_zone,
            float_text: self.float_text,
        })
        .map_err(|reason| CalcError::ArgumentTypes {
            path: path.clone(),
            function: def.name.into(),
            types: types.iter().map(ToString::to_string).collect(),
            reason,
        })?;
        debug_assert_eq!(bound.args.len(), args.len(), "{def:?} binds every argument");
        let operands = args
            .into_iter()
            .zip(&bound.args)
            .enumerate()
            .map(|(i, (a, to))| {
                self.implicit(a, to)
                    .map_err(|reason| CalcError::ArgumentTypes {
                        path: format!("{path}.args[{i}]"),
                        function: def.name.into(),
                        types: types.iter().map(ToString::to_string).collect(),
                        reason,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let expr: Arc<dyn PhysicalExpr> = match bound.kernel {
            Kernel::Binary(operator) => {
                let [l, r]: [Arc<dyn PhysicalExpr>; 2] =
                    operands.try_into().map_err(|_| CalcError::Arity {
                        path: path.clone(),
                        function: def.name.into(),
                        expected: "2".into(),
                        found: types.len(),
                    })?;
                Arc::new(BinaryExpr::new(l, operator, r))
            }
            Kernel::Physical(build) => build(operands).map_err(|e| CalcError::ArgumentTypes {
                path: path.clone(),
                function: def.name.into(),
                types: types.iter().map(ToString::to_string).collect(),
                reason: e.to_string(),
            })?,
            Kernel::Function(udf) => Arc::new(ScalarFunctionExpr::new(
                &String::from(udf.name()),
                udf,
                operands,
                Arc::new(Field::new(def.name, bound.result.to_arrow(), true)),
                Arc::clone(&self.config),
            )),
        };
        Ok(Typed {
            expr,
            ty: bound.result,
            literal: None,
        })
    }

    /// `typed` implicitly cast to `to` (call coercion).
    fn implicit(&self, typed: Typed, to: &LogicalType) -> Result<Arc<dyn PhysicalExpr>, String> {
        if &typed.ty == to {
            return Ok(typed.expr);
        }
        // A TIMESTAMP literal widens to nanoseconds too: its one value is in range or fails
        // every batch alike, where a column's pre-1677 value would fail only natively.
        let literal_widening =
            typed.literal.is_some() && cast::timestamp_widening(&typed.ty, to).is_some();
        if !cast::is_implicit(&typed.ty, to) && !literal_widening {
            return Err(format!("{} is not implicitly cast to {to}", typed.ty));
        }
        cast::cast(typed.expr, &typed.ty, to, OnError::Fail, self.time_zone)
    }

    /// `CASE WHEN conditions[i] THEN results[i] ... [ELSE results[last]] END`, every result
    /// cast to their common type.
    fn case(
        &self,
        conditions: Vec<Arc<dyn PhysicalExpr>>,
        results: Vec<Typed>,
        has_else: bool,
        path: &str,
    ) -> Result<Typed, CalcError> {
        let ty = results
            .iter()
            .map(|r| r.ty.clone())
            .try_fold(None::<LogicalType>, |acc, ty| {
                Ok::<_, CalcError>(Some(match acc {
                    None => ty,
                    Some(acc) => common_type(&acc, &ty).ok_or_else(|| CalcError::NoCommonType {
                        path: path.into(),
                        left: acc.to_string(),
                        right: ty.to_string(),
                    })?,
                }))
            })?
            .expect("a CASE has at least one result");
        let mut results = results
            .into_iter()
            .map(|r| {
                let from = r.ty.clone();
                self.implicit(r, &ty).map_err(|reason| CalcError::Cast {
                    path: path.into(),
                    from: from.to_string(),
                    to: ty.to_string(),
                    reason,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let otherwise = has_else.then(|| results.pop().expect("the ELSE result"));
        let when_then = conditions.into_iter().zip(results).collect();
        let expr = CaseExpr::try_new(None, when_then, otherwise)
            .map_err(|e| super::evaluation_error(path, e))?;
        Ok(Typed {
            expr: Arc::new(expr),
            ty,
            literal: None,
        })
    }
}
