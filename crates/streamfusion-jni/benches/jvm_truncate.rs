//! The `jvm_truncate` suite: a native Calc's upcalls into the JVM (decision 0054), beside the
//! native kernel for the same call and beside Flink's generated code alone.
//!
//! Each Calc is planned in the embedded JVM (on the planner classpath) by StreamFusion's
//! planner extension from SQL over `t(d DOUBLE)`, as a job's would be
//! (`org.streamfusion.harness.UpcallFixture`), which also opens Flink's generated code for its
//! upcalls (`FlinkUpcalls.Runner`). The embedded JVM is JDK 17, whose `Double.toString` is
//! FloatingDecimal's: `TRUNCATE` of a DOUBLE prints through it, so natively it is an upcall
//! (decision 0037).
//!
//! Families, over `rows` rows of one DOUBLE column (every seventh NULL; `/sliced`: a slice at
//! offset 3 of a longer array):
//! - `upcall/truncate` and `upcall/udf`: `CompiledCalc::evaluate` of the production Calc for
//!   `SELECT TRUNCATE(d, 2) FROM t` and for `SELECT HALF(d) FROM t` (`HALF` a user's
//!   `ScalarFunction`), the production `JvmUpcalls` host bound to the runner: the arguments'
//!   `BinaryRowData` transpose, one JNI call, Flink's generated code per row and the result
//!   rows' transpose back to Arrow.
//! - `shortcut/truncate`: the same node planned for a JDK 19+ job, where TRUNCATE is the native
//!   kernel: what the call costs natively.
//! - `stock/truncate` and `stock/udf`: Flink's generated code alone over the same rows as
//!   `BinaryRowData` (what a stock Calc runs per row), reached by one JNI call into the
//!   runner; its result rows stay in the JVM.
//!
//! The three row counts make the fixed cost per batch and the cost per row visible.
//!
//! Outside timing: the JVM, planning and code generation, opening the functions, the input
//! batch and its rows.
//!
//! Oracle (untimed), independent of the native and JVM paths: `TRUNCATE(d, 2)` of the dyadic
//! inputs (`k / 64`) is `trunc(d * 100) / 100` (both exact or correctly rounded), with a zero
//! result positive (Flink truncates through `BigDecimal`, which has no negative zero); `HALF(d)`
//! is `d / 2`. Every case's DOUBLE bits and NULL positions must equal it; the stock cases'
//! rows are read back with the bridge's transpose.
//!
//! Without a JDK or the planner classpath of `cargo xtask jvm`, every case is reported skipped
//! with the reason.

use std::sync::Arc;

use arrow::array::{Array, ArrayData, ArrayRef, AsArray, Float64Array, RecordBatch};
use arrow::datatypes::Float64Type;
use bench_support::buffers::ArrowBuffers;
use bench_support::embedded_jvm::jni::errors::Result as JniResult;
use bench_support::embedded_jvm::jni::objects::{
    JByteArray, JIntArray, JObject, JObjectArray, JString,
};
use bench_support::embedded_jvm::jni::refs::Global;
use bench_support::embedded_jvm::jni::signature::RuntimeMethodSignature;
use bench_support::embedded_jvm::jni::strings::JNIString;
use bench_support::embedded_jvm::jni::{JValue, JavaVM};
use bench_support::embedded_jvm::{planner_jvm, string};
use bench_support::{Suite, Verdict, expect_eq};
use streamfusion::calc::{CompiledCalc, compile};
use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::OperatorPlan;
use streamfusion::types::LogicalType;
use streamfusion_bridge::transpose::{changelog_to_rows, rows_to_changelog};
use streamfusion_jni::upcalls::JvmUpcalls;

bench_support::counting_allocator!();

const FIXTURE: &str = "org/streamfusion/harness/UpcallFixture";
const EVALUATE_SIG: &str = "(I[B[I)[Ljava/lang/Object;";
const ROWS: [usize; 3] = [16, 1024, 16384];

/// What a function gives for one non-NULL value, computed independently.
type Oracle = fn(f64) -> f64;

/// The functions, by family name: SQL, and the oracle.
const FUNCTIONS: [(&str, &str, Oracle); 2] = [
    ("truncate", "SELECT TRUNCATE(d, 2) FROM t", truncate2),
    ("udf", "SELECT HALF(d) FROM t", |d| d / 2.0),
];

fn main() {
    let mut suite = Suite::new("jvm_truncate");
    let mut ids = Vec::new();
    for (function, _, _) in FUNCTIONS {
        for rows in ROWS {
            for sliced in [false, true] {
                let shape = format!("rows={rows}{}", if sliced { "/sliced" } else { "" });
                ids.push((
                    "upcall",
                    function,
                    rows,
                    sliced,
                    format!("upcall/{function}/{shape}"),
                ));
                if function == "truncate" {
                    ids.push((
                        "shortcut",
                        function,
                        rows,
                        sliced,
                        format!("shortcut/{function}/{shape}"),
                    ));
                }
                if !sliced {
                    ids.push((
                        "stock",
                        function,
                        rows,
                        false,
                        format!("stock/{function}/{shape}"),
                    ));
                }
            }
        }
    }
    let vm = match planner_jvm() {
        Ok(vm) => vm,
        Err(reason) => {
            for (.., id) in &ids {
                suite.skip(id, &reason.to_string());
            }
            suite.finish();
        }
    };
    for (family, function, rows, sliced, id) in ids {
        let (_, sql, oracle) = FUNCTIONS
            .iter()
            .find(|(f, ..)| *f == function)
            .expect("a listed function");
        match family {
            "stock" => suite.stateless(
                &id,
                || Stock::new(vm, sql, rows),
                Stock::evaluate,
                |fixture, out| check(&fixture.input, &fixture.read(out)?, *oracle),
            ),
            _ => suite.stateless(
                &id,
                || Native::new(vm, sql, rows, sliced, family == "shortcut"),
                Native::evaluate,
                |fixture, out| check(&fixture.input, out.batch().column(0), *oracle),
            ),
        }
    }
    suite.finish();
}

/// `TRUNCATE(d, 2)` as Flink computes it for a finite `d` whose decimal text is exact.
fn truncate2(d: f64) -> f64 {
    let t = (d * 100.0).trunc() / 100.0;
    if t == 0.0 { 0.0 } else { t }
}

/// `rows` dyadic values `k / 64` around zero, every seventh NULL, as a slice at offset 3 of a
/// longer array when `sliced`.
fn input(rows: usize, sliced: bool) -> ArrayRef {
    let skip = if sliced { 3 } else { 0 };
    let values: Float64Array = (0..rows + 2 * skip)
        .map(|i| {
            let k = (i as i64 * 7919) % 20_001 - 10_000;
            (i % 7 != 5).then_some(k as f64 / 64.0)
        })
        .collect();
    let values: ArrayRef = Arc::new(values);
    values.slice(skip, rows)
}

fn check(input: &ArrayRef, out: &ArrayRef, oracle: Oracle) -> Verdict {
    expect_eq("result type", out.data_type(), input.data_type())?;
    let input = input.as_primitive::<Float64Type>();
    let out = out.as_primitive::<Float64Type>();
    expect_eq("rows", &out.len(), &input.len())?;
    for (row, (d, got)) in input.iter().zip(out.iter()).enumerate() {
        let want = d.map(oracle).map(f64::to_bits);
        expect_eq(&format!("row {row} bits"), &got.map(f64::to_bits), &want)?;
    }
    Ok(())
}

/// `UpcallFixture.plan(sql)`: Flink's description of the Calc node, its native plan and the
/// opened upcalls.
fn plan(vm: &JavaVM, sql: &str) -> (String, String, Global<JObject<'static>>) {
    vm.attach_current_thread(|env| -> JniResult<_> {
        let sql = JString::from_str(env, sql)?;
        let planned = env
            .call_static_method(
                JNIString::new(FIXTURE),
                JNIString::new("plan"),
                RuntimeMethodSignature::from_str("(Ljava/lang/String;)[Ljava/lang/Object;")?
                    .method_signature(),
                &[JValue::from(&sql)],
            )?
            .l()?;
        let planned = env.cast_local::<JObjectArray>(planned)?;
        let description = planned.get_element(env, 0)?;
        let description = string(env, description)?;
        let native = planned.get_element(env, 1)?;
        let native = string(env, native)?;
        let runner = planned.get_element(env, 2)?;
        Ok((description, native, env.new_global_ref(runner)?))
    })
    .expect("UpcallFixture.plan")
}

fn compiled(plan: &OperatorPlan) -> CompiledCalc {
    match plan {
        OperatorPlan::Calc { input, calc } => compile(calc, input).expect("the plan compiles"),
        other => panic!("not a Calc: {other:?}"),
    }
}

/// A production Calc over one batch: upcalls bound to the JVM, or the native kernel.
struct Native {
    calc: CompiledCalc,
    input: ArrayRef,
    batch: ChangelogBatch,
}

impl ArrowBuffers for Native {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

impl Native {
    fn new(vm: &JavaVM, sql: &str, rows: usize, sliced: bool, shortcut: bool) -> Self {
        let (description, native, runner) = plan(vm, sql);
        let calc = if shortcut {
            // The same node, for a job whose JVM prints doubles the shortest way.
            let config = r#"{"java.specification.version": "21", "table.local-time-zone": "UTC"}"#;
            let plan = streamfusion::flink::plan_node(&description, Some(config))
                .expect("the native plan of a JDK 21 job");
            let calc = compiled(&plan);
            assert!(!calc.has_upcalls(), "TRUNCATE is native for JDK 21");
            calc
        } else {
            let plan: OperatorPlan = serde_json::from_str(&native).expect("a native plan");
            let calc = compiled(&plan);
            assert!(calc.has_upcalls(), "the JDK 17 plan upcalls: {native}");
            let host = vm
                .attach_current_thread(|env| -> JniResult<_> {
                    Ok(JvmUpcalls::new(env, runner.as_obj()))
                })
                .expect("attached")
                .expect("a JVM host");
            calc.bind_upcalls(host).expect("a first host");
            calc
        };
        let input = input(rows, sliced);
        let batch = ChangelogBatch::insert_only(
            RecordBatch::try_from_iter([("d", Arc::clone(&input))]).expect("one column"),
        );
        Self { calc, input, batch }
    }

    fn evaluate(&self) -> ChangelogBatch {
        self.calc.evaluate(&self.batch).expect("the Calc evaluates")
    }
}

/// Flink's generated code alone: the runner over the input rows, one JNI call.
struct Stock {
    vm: &'static JavaVM,
    input: ArrayRef,
    runner: Global<JObject<'static>>,
    data: Global<JObject<'static>>,
    offsets: Global<JObject<'static>>,
}

/// JVM-held rows besides the input column.
impl ArrowBuffers for Stock {
    fn collect_arrays(&self, out: &mut Vec<ArrayData>) {
        self.input.collect_arrays(out);
    }
}

/// The `Object[] {byte[] data, int[] offsets}` of result rows the runner returned.
struct StockRows(Global<JObject<'static>>);

impl ArrowBuffers for StockRows {
    fn collect_arrays(&self, _out: &mut Vec<ArrayData>) {}
}

impl Stock {
    fn new(vm: &'static JavaVM, sql: &str, rows: usize) -> Self {
        let (_, _, runner) = plan(vm, sql);
        let input = input(rows, false);
        let batch = ChangelogBatch::insert_only(
            RecordBatch::try_from_iter([("d", Arc::clone(&input))]).expect("one column"),
        );
        let (data, offsets) =
            changelog_to_rows(&batch, &[LogicalType::Double]).expect("the input rows");
        let (data, offsets) = vm
            .attach_current_thread(|env| -> JniResult<_> {
                let data = JObject::from(env.byte_array_from_slice(&data)?);
                let java_offsets = JIntArray::new(env, offsets.len())?;
                java_offsets.set_region(env, 0, &offsets)?;
                let java_offsets = JObject::from(java_offsets);
                Ok((env.new_global_ref(data)?, env.new_global_ref(java_offsets)?))
            })
            .expect("the input rows in the JVM");
        Self {
            vm,
            input,
            runner,
            data,
            offsets,
        }
    }

    fn evaluate(&self) -> StockRows {
        self.vm
            .attach_current_thread(|env| -> JniResult<StockRows> {
                let out = env
                    .call_method(
                        self.runner.as_obj(),
                        JNIString::new("evaluate"),
                        RuntimeMethodSignature::from_str(EVALUATE_SIG)?.method_signature(),
                        &[
                            JValue::Int(0),
                            JValue::from(self.data.as_obj()),
                            JValue::from(self.offsets.as_obj()),
                        ],
                    )?
                    .l()?;
                Ok(StockRows(env.new_global_ref(out)?))
            })
            .expect("Runner.evaluate")
    }

    /// The result rows as a DOUBLE column (read by the bridge's transpose).
    fn read(&self, rows: &StockRows) -> Result<ArrayRef, String> {
        let (data, offsets) = self
            .vm
            .attach_current_thread(|env| -> JniResult<_> {
                let result = env.new_local_ref(rows.0.as_obj())?;
                let array = env.cast_local::<JObjectArray>(result)?;
                let data = array.get_element(env, 0)?;
                let data = env.convert_byte_array(&env.cast_local::<JByteArray>(data)?)?;
                let offsets = array.get_element(env, 1)?;
                let offsets = bench_support::embedded_jvm::ints(env, offsets)?;
                Ok((data, offsets))
            })
            .map_err(|e| e.to_string())?;
        let batch = rows_to_changelog(&data, &offsets, &[LogicalType::Double])
            .map_err(|e| e.to_string())?;
        Ok(Arc::clone(batch.batch().column(0)))
    }
}
