//! The `jni_roundtrip` suite: one `NativeOperator.push` call made from Rust through JNI into
//! the embedded JVM, through the Java wrapper into `libstreamfusion_jni`, and back.
//!
//! Measured boundary: the Rust-side JNI call of the Java static method
//! `org.streamfusion.jni.NativeOperator.push(long handle, int input, byte[] data, int[]
//! offsets)` (its class and method ID resolved once in set-up), the native entry, decoding,
//! the Calc operator's `process` and the `Object[] {byte[], int[]}` the library builds, plus pinning that result with one global
//! reference and deleting it when the output is dropped (a few tens of nanoseconds). Each
//! call runs in its own JNI local frame (the permanent thread attachment's per-call frame), so
//! thousands of iterations do not pile up local references.
//!
//! Outside timing: JVM start-up, loading the library (`RowsFixture.load`), `NativeOperator`
//! creation and the fixture rows, written in Java by released Flink's `BinaryRowWriter`
//! (`RowsFixture.rows(n)`) and held as global references.
//!
//! Families:
//! - `push/rows={32,512,8192}`: the filter+projection Calc plan of the JNI tests (keep rows
//!   whose VARCHAR is non-NULL, project INT and BIGINT), on input 0.
//! - `push_project/rows={32,512,8192}`: the same projection without the filter, so every
//!   row comes back.
//!
//! The three row counts make the fixed per-call cost and the per-row cost visible.
//!
//! Oracle (untimed): the output rows are read back by released Flink's `BinaryRowData`
//! getters (`Oracles.describeRows`) and compared with the fixture's formulas evaluated here
//! (row count after the filter, row kinds, values and NULLs), never by native code.
//!
//! Without a JDK, the classpath of `cargo xtask jvm` or the built library, every case is
//! reported skipped with the reason.

use std::path::PathBuf;

use arrow::array::ArrayData;
use bench_support::buffers::ArrowBuffers;
use bench_support::embedded_jvm::jni::errors::Result as JniResult;
use bench_support::embedded_jvm::jni::ids::JStaticMethodID;
use bench_support::embedded_jvm::jni::objects::{
    JByteArray, JClass, JObject, JObjectArray, JString,
};
use bench_support::embedded_jvm::jni::refs::Global;
use bench_support::embedded_jvm::jni::signature::{ReturnType, RuntimeMethodSignature};
use bench_support::embedded_jvm::jni::strings::JNIString;
use bench_support::embedded_jvm::jni::{Env, JValue, JavaVM};
use bench_support::embedded_jvm::{FlinkOracles, ints, jvm};
use bench_support::{Suite, Verdict, expect_eq};

bench_support::counting_allocator!();

const OPERATOR: &str = "org/streamfusion/jni/NativeOperator";
const FIXTURE: &str = "org/streamfusion/jni/RowsFixture";
const PUSH_SIG: &str = "(JI[B[I)[Ljava/lang/Object;";

const ROWS: [i64; 3] = [32, 512, 8192];

/// Fixture rows (BIGINT, VARCHAR, INT) -> (INT, BIGINT) of the rows whose VARCHAR is non-NULL.
const FILTER_PLAN: &str = r#"{"operator": "calc", "input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
    "calc": {"projection": [{"input": 2}, {"input": 0}],
             "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}"#;

/// Fixture rows (BIGINT, VARCHAR, INT) -> (INT, BIGINT), every row.
const PROJECT_PLAN: &str = r#"{"operator": "calc", "input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
    "calc": {"projection": [{"input": 2}, {"input": 0}]}}"#;

fn main() {
    let mut suite = Suite::new("jni_roundtrip");
    let families = [
        ("push", FILTER_PLAN, true),
        ("push_project", PROJECT_PLAN, false),
    ];
    let ids = |family: &str| ROWS.map(|rows| format!("{family}/rows={rows}"));
    match ready() {
        Ok(vm) => {
            for (family, plan, filtered) in families {
                for (rows, id) in ROWS.into_iter().zip(ids(family)) {
                    suite.stateless(
                        &id,
                        || Fixture::new(vm, plan, rows),
                        |fixture| fixture.push(),
                        |fixture, pushed| check(fixture, pushed, filtered),
                    );
                }
            }
        }
        Err(reason) => {
            for (family, _, _) in families {
                for id in ids(family) {
                    suite.skip(&id, &reason);
                }
            }
        }
    }
    suite.finish();
}

/// The embedded JVM with `libstreamfusion_jni` loaded into it, or why not.
fn ready() -> Result<&'static JavaVM, String> {
    let vm = jvm().map_err(|e| e.to_string())?;
    let path = library_path();
    if !path.is_file() {
        return Err(format!(
            "{} is missing; build it with `cargo test --release -p streamfusion-jni`",
            path.display()
        ));
    }
    let path = path.to_str().ok_or("library path is not UTF-8")?.to_owned();
    vm.attach_current_thread(|env| -> JniResult<()> {
        let path = JString::from_str(env, &path)?;
        env.call_static_method(
            JNIString::new(FIXTURE),
            JNIString::new("load"),
            RuntimeMethodSignature::from_str("(Ljava/lang/String;)I")?.method_signature(),
            &[JValue::from(&path)],
        )?;
        Ok(())
    })
    .map_err(|e| format!("loading {path} threw: {e}"))?;
    Ok(vm)
}

/// The library built next to this binary.
fn library_path() -> PathBuf {
    bench_support::jvm::built_library_path("streamfusion_jni")
}

/// An operator handle, its Java-side input rows and the resolved `NativeOperator.push`.
struct Fixture {
    vm: &'static JavaVM,
    rows: i64,
    handle: i64,
    data: Global<JObject<'static>>,
    offsets: Global<JObject<'static>>,
    class: Global<JClass<'static>>,
    push: JStaticMethodID,
}

/// JVM-held values: no Arrow buffers to walk.
impl ArrowBuffers for Fixture {
    fn collect_arrays(&self, _out: &mut Vec<ArrayData>) {}
}

impl Fixture {
    fn new(vm: &'static JavaVM, plan: &str, rows: i64) -> Self {
        vm.attach_current_thread(|env| -> JniResult<Self> {
            let plan = JString::from_str(env, plan)?;
            // A null runtime: the defaults (memory state, every key group).
            let handle = env
                .call_static_method(
                    JNIString::new(OPERATOR),
                    JNIString::new("create"),
                    RuntimeMethodSignature::from_str("(Ljava/lang/String;Ljava/lang/String;)J")?
                        .method_signature(),
                    &[JValue::from(&plan), JValue::from(&JObject::null())],
                )?
                .j()?;
            let fixture = env
                .call_static_method(
                    JNIString::new(FIXTURE),
                    JNIString::new("rows"),
                    RuntimeMethodSignature::from_str("(I)[Ljava/lang/Object;")?.method_signature(),
                    &[JValue::Int(i32::try_from(rows).expect("row count"))],
                )?
                .l()?;
            let fixture = env.cast_local::<JObjectArray>(fixture)?;
            let data = fixture.get_element(env, 0)?;
            let offsets = fixture.get_element(env, 1)?;
            let class = env.find_class(JNIString::new(OPERATOR))?;
            let push = env.get_static_method_id(
                &class,
                JNIString::new("push"),
                RuntimeMethodSignature::from_str(PUSH_SIG)?.method_signature(),
            )?;
            Ok(Self {
                vm,
                rows,
                handle,
                data: env.new_global_ref(data)?,
                offsets: env.new_global_ref(offsets)?,
                class: env.new_global_ref(class)?,
                push,
            })
        })
        .expect("operator and fixture rows")
    }

    /// The timed round trip: `NativeOperator.push(handle, 0, data, offsets)` through JNI.
    fn push(&self) -> Pushed {
        self.vm
            .attach_current_thread(|env| -> JniResult<Pushed> {
                let args = [
                    JValue::Long(self.handle).as_jni(),
                    JValue::Int(0).as_jni(),
                    JValue::from(self.data.as_obj()).as_jni(),
                    JValue::from(self.offsets.as_obj()).as_jni(),
                ];
                // SAFETY: `push` was resolved on `class` for `PUSH_SIG`, whose return type is
                // an array and whose arguments are `args`, in order and of the right types.
                let out = unsafe {
                    env.call_static_method_unchecked(
                        &self.class,
                        self.push,
                        ReturnType::Array,
                        &args,
                    )
                }?
                .l()?;
                Ok(Pushed(env.new_global_ref(out)?))
            })
            .expect("NativeOperator.push")
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let closed = self.vm.attach_current_thread(|env| -> JniResult<()> {
            env.call_static_method(
                &self.class,
                JNIString::new("close"),
                RuntimeMethodSignature::from_str("(J)V")?.method_signature(),
                &[JValue::Long(self.handle)],
            )?;
            Ok(())
        });
        if let Err(e) = closed {
            eprintln!("closing operator {}: {e}", self.handle);
        }
    }
}

/// The `Object[] {byte[] data, int[] offsets}` one push returns.
struct Pushed(Global<JObject<'static>>);

/// JVM-held values: no Arrow buffers to walk.
impl ArrowBuffers for Pushed {
    fn collect_arrays(&self, _out: &mut Vec<ArrayData>) {}
}

impl Pushed {
    /// Copies the output rows out of the JVM.
    fn to_rust(&self, vm: &JavaVM) -> JniResult<(Vec<u8>, Vec<usize>)> {
        vm.attach_current_thread(|env: &mut Env| -> JniResult<_> {
            let result = env.new_local_ref(self.0.as_obj())?;
            let array = env.cast_local::<JObjectArray>(result)?;
            let data = array.get_element(env, 0)?;
            let data = env.cast_local::<JByteArray>(data)?;
            let data = env.convert_byte_array(&data)?;
            let offsets = array.get_element(env, 1)?;
            let offsets = ints(env, offsets)?
                .into_iter()
                .map(|o| usize::try_from(o).expect("non-negative offset"))
                .collect();
            Ok((data, offsets))
        })
    }
}

// ---- the fixture's formulas (RowsFixture.java), evaluated independently of native code ----

fn kind(i: i64) -> &'static str {
    ["+I", "-U", "+U", "-D"][(i % 4) as usize]
}

fn f0(i: i64) -> Option<i64> {
    (i % 5 != 3).then(|| i * 1_000_003 - 500)
}

fn f1_is_null(i: i64) -> bool {
    i % 7 == 2
}

fn f2(i: i64) -> Option<i64> {
    (i % 4 != 1).then(|| i * 31 - 7)
}

fn show(v: Option<i64>) -> String {
    v.map_or_else(|| "null".to_string(), |v| v.to_string())
}

/// What the plan makes of fixture rows `0..rows`, as `Oracles.describeRows` lines.
fn expected_output(rows: i64, filtered: bool) -> Vec<String> {
    (0..rows)
        .filter(|&i| !filtered || !f1_is_null(i))
        .map(|i| format!("{}|{}|{}", kind(i), show(f2(i)), show(f0(i))))
        .collect()
}

fn check(fixture: &Fixture, pushed: &Pushed, filtered: bool) -> Verdict {
    let (data, offsets) = pushed.to_rust(fixture.vm).map_err(|e| e.to_string())?;
    let expected = expected_output(fixture.rows, filtered);
    let kept = if filtered {
        // Row i has a NULL VARCHAR exactly when i % 7 == 2.
        fixture.rows - (fixture.rows + 4) / 7
    } else {
        fixture.rows
    };
    expect_eq(
        "rows in the output",
        &offsets.len().saturating_sub(1),
        &usize::try_from(kept).expect("row count"),
    )?;
    expect_eq("expected rows", &expected.len(), &(offsets.len() - 1))?;
    let described = FlinkOracles::new()
        .map_err(|e| e.to_string())?
        .describe_rows(&data, &offsets, &["INT", "BIGINT"])
        .map_err(|e| format!("describeRows: {e}"))?;
    for (row, (got, want)) in described.iter().zip(&expected).enumerate() {
        expect_eq(&format!("output row {row}"), got, want)?;
    }
    expect_eq("described rows", &described.len(), &expected.len())
}
