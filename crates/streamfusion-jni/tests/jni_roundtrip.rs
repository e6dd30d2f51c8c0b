//! Round trips through `libstreamfusion_jni` loaded into the embedded JVM.
//!
//! The cdylib built next to this test binary (`<target>/release/libstreamfusion_jni.so`) is
//! loaded by `org.streamfusion.jni.NativeOperator` (through `RowsFixture.load`, which sets the
//! `streamfusion.jni.path` property first). Input rows are written in Java by released Flink's
//! own `BinaryRowWriter` (`java/src/org/streamfusion/jni/RowsFixture.java`); output rows are
//! read back by released Flink's `BinaryRowData` getters (`Oracles.describeRows`) and compared
//! with an expectation computed here from the fixture's formulas, not by native code. GROUP BY
//! output is checked against a row-by-row model of Flink's emission computed here. Exceptions
//! are checked by class, since Java reacts to a native failure by its kind. Without a JDK or
//! the classpath of `cargo xtask jvm`, every test reports itself skipped by name. Set
//! `SF_JVM_CHECK_JNI=1` to run them under `-Xcheck:jni`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bench_support::embedded_jvm::jni::objects::{JIntArray, JObject, JObjectArray, JString};
use bench_support::embedded_jvm::jni::signature::RuntimeMethodSignature;
use bench_support::embedded_jvm::jni::strings::JNIString;
use bench_support::embedded_jvm::jni::{Env, JValue, JValueOwned, JavaVM};
use bench_support::embedded_jvm::{FlinkOracles, ints, jvm, string, string_array};
use bench_support::jvm::report_skipped;

const OPERATOR: &str = "org/streamfusion/jni/NativeOperator";
const FIXTURE: &str = "org/streamfusion/jni/RowsFixture";

/// Fixture rows (BIGINT, VARCHAR, INT) -> (INT, BIGINT) of the rows whose VARCHAR is non-NULL.
const PLAN: &str = r#"{"operator": "calc", "input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
    "calc": {"projection": [{"input": 2}, {"input": 0}],
             "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}"#;

const NATIVE_EXCEPTION: &str = "org/streamfusion/jni/NativeException";
const PLAN_EXCEPTION: &str = "org.streamfusion.jni.NativePlanException";
const DATA_EXCEPTION: &str = "org.streamfusion.jni.NativeDataException";
const STATE_EXCEPTION: &str = "org.streamfusion.jni.NativeStateException";
const ILLEGAL_ARGUMENT: &str = "java.lang.IllegalArgumentException";

/// A Java exception caught on the Rust side.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Thrown {
    class: String,
    message: String,
    /// Whether it is an `org.streamfusion.jni.NativeException`.
    native: bool,
}

impl Thrown {
    /// An exception of the `java.lang` class `class`.
    fn java_lang(class: &str, message: impl Into<String>) -> Self {
        Self {
            class: format!("java.lang.{class}"),
            message: message.into(),
            native: false,
        }
    }

    /// Asserts a `NativeException` subclass `class` whose message contains `says`.
    fn assert_native(&self, class: &str, says: &str) {
        assert_eq!(self.class, class, "{self:?}");
        assert!(self.native, "{class} extends NativeException: {self:?}");
        assert!(self.message.contains(says), "{says:?} in {self:?}");
    }
}

/// The embedded JVM with the library loaded, or `None` after reporting `test` skipped.
fn vm_or_skip(test: &str) -> Option<&'static JavaVM> {
    let vm = match jvm() {
        Ok(vm) => vm,
        Err(reason) => {
            report_skipped(test, &reason);
            return None;
        }
    };
    static LOADED: OnceLock<()> = OnceLock::new();
    LOADED.get_or_init(|| {
        let path = library_path();
        assert!(
            path.is_file(),
            "{} is missing; build it with `cargo test --release -p streamfusion-jni`",
            path.display()
        );
        vm.attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<()> {
                let path = JString::from_str(env, path.to_str().expect("UTF-8 path"))?;
                call(
                    env,
                    FIXTURE,
                    "load",
                    "(Ljava/lang/String;)I",
                    &[JValue::from(&path)],
                )
                .unwrap_or_else(|t| panic!("loading the library threw {t:?}"));
                Ok(())
            },
        )
        .expect("attach");
    });
    Some(vm)
}

/// The library built next to this binary.
fn library_path() -> PathBuf {
    bench_support::jvm::built_library_path("streamfusion_jni")
}

/// Calls a static method; a Java exception comes back as [`Thrown`] and is cleared.
fn call<'local>(
    env: &mut Env<'local>,
    class: &str,
    name: &str,
    sig: &str,
    args: &[JValue],
) -> Result<JValueOwned<'local>, Thrown> {
    let parsed = RuntimeMethodSignature::from_str(sig).expect("signature");
    match env.call_static_method(
        JNIString::new(class),
        JNIString::new(name),
        parsed.method_signature(),
        args,
    ) {
        Ok(value) => Ok(value),
        Err(bench_support::embedded_jvm::jni::errors::Error::JavaException) => {
            Err(take_exception(env))
        }
        Err(e) => panic!("{class}.{name}{sig}: {e}"),
    }
}

/// Takes the pending exception, in a local frame of its own so that the references made
/// here do not pile up in the caller's (`-Xcheck:jni` warns past 64).
fn take_exception(env: &mut Env<'_>) -> Thrown {
    let throwable = env.exception_occurred().expect("a pending exception");
    env.exception_clear();
    env.with_local_frame(
        8,
        |env| -> bench_support::embedded_jvm::jni::errors::Result<Thrown> {
            let class = accessor(env, &throwable, "getClass", "()Ljava/lang/Class;");
            let class_name = accessor(env, &class, "getName", "()Ljava/lang/String;");
            let message = accessor(env, &throwable, "getMessage", "()Ljava/lang/String;");
            let native = env.is_instance_of(&throwable, JNIString::new(NATIVE_EXCEPTION))?;
            Ok(Thrown {
                class: string(env, class_name)?,
                message: if message.is_null() {
                    String::new()
                } else {
                    string(env, message)?
                },
                native,
            })
        },
    )
    .inspect(|_| env.delete_local_ref(throwable))
    .expect("exception class and message")
}

/// Calls the no-argument object method `name` of `target`.
fn accessor<'local>(
    env: &mut Env<'local>,
    target: &JObject<'_>,
    name: &str,
    sig: &str,
) -> JObject<'local> {
    let sig = RuntimeMethodSignature::from_str(sig).expect("signature");
    env.call_method(target, JNIString::new(name), sig.method_signature(), &[])
        .and_then(|v| v.l())
        .expect("Throwable accessor")
}

/// Java-side rows: the `byte[]` and `int[]` of an `Object[] {data, offsets}`.
struct JavaRows<'local> {
    data: JObject<'local>,
    offsets: JObject<'local>,
}

impl<'local> JavaRows<'local> {
    fn from_result(env: &mut Env<'local>, result: JObject<'local>) -> Self {
        let array = env
            .cast_local::<JObjectArray>(result)
            .expect("Object[] result");
        let data = array.get_element(env, 0).expect("data");
        let offsets = array.get_element(env, 1).expect("offsets");
        Self { data, offsets }
    }

    fn fixture(env: &mut Env<'local>, n: i32) -> Self {
        let rows = call(
            env,
            FIXTURE,
            "rows",
            "(I)[Ljava/lang/Object;",
            &[JValue::Int(n)],
        )
        .map(|v| v.l().expect("object"))
        .expect("RowsFixture.rows");
        Self::from_result(env, rows)
    }

    /// Rows `first..first + n` of `RowsFixture.keyValueRows`: (BIGINT k, INT v), all `+I`.
    fn key_values(env: &mut Env<'local>, first: i64, n: i64, keys: i64) -> Self {
        let int = |v: i64| JValue::Int(i32::try_from(v).expect("int"));
        let rows = call(
            env,
            FIXTURE,
            "keyValueRows",
            "(III)[Ljava/lang/Object;",
            &[int(first), int(n), int(keys)],
        )
        .map(|v| v.l().expect("object"))
        .expect("RowsFixture.keyValueRows");
        Self::from_result(env, rows)
    }

    /// Copies the rows out of the JVM.
    fn to_rust(&self, env: &mut Env<'local>) -> (Vec<u8>, Vec<usize>) {
        let bytes = env
            .new_local_ref(&self.data)
            .and_then(|d| {
                env.cast_local::<bench_support::embedded_jvm::jni::objects::JByteArray>(d)
            })
            .expect("byte[]");
        let data = env.convert_byte_array(&bytes).expect("bytes");
        let offsets = env.new_local_ref(&self.offsets).expect("int[]");
        let offsets = ints(env, offsets)
            .expect("ints")
            .into_iter()
            .map(|o| usize::try_from(o).expect("non-negative offset"))
            .collect();
        (data, offsets)
    }
}

fn create(env: &mut Env<'_>, plan: &str) -> Result<i64, Thrown> {
    create_with(env, plan, None)
}

/// `NativeOperator.create(plan, runtime)`; `None` passes a null runtime (the defaults).
fn create_with(env: &mut Env<'_>, plan: &str, runtime: Option<&str>) -> Result<i64, Thrown> {
    let plan = JString::from_str(env, plan).expect("plan string");
    let runtime = optional_string(env, runtime);
    call(
        env,
        OPERATOR,
        "create",
        "(Ljava/lang/String;Ljava/lang/String;)J",
        &[JValue::from(&plan), JValue::from(&runtime)],
    )
    .map(|v| v.j().expect("long"))
}

/// `NativeOperator.restore(plan, runtime, directories)`.
fn restore<P: AsRef<Path>>(
    env: &mut Env<'_>,
    plan: &str,
    runtime: Option<&str>,
    directories: &[P],
) -> Result<i64, Thrown> {
    let plan = JString::from_str(env, plan).expect("plan string");
    let runtime = optional_string(env, runtime);
    let directories: Vec<&str> = directories
        .iter()
        .map(|d| d.as_ref().to_str().expect("UTF-8 path"))
        .collect();
    let directories = string_array(env, &directories).expect("String[]");
    call(
        env,
        OPERATOR,
        "restore",
        "(Ljava/lang/String;Ljava/lang/String;[Ljava/lang/String;)J",
        &[
            JValue::from(&plan),
            JValue::from(&runtime),
            JValue::from(&directories),
        ],
    )
    .map(|v| v.j().expect("long"))
}

/// A Java string, or null.
fn optional_string<'local>(env: &mut Env<'local>, value: Option<&str>) -> JObject<'local> {
    match value {
        Some(value) => JString::from_str(env, value).expect("string").into(),
        None => JObject::null(),
    }
}

fn push<'local>(
    env: &mut Env<'local>,
    handle: i64,
    rows: &JavaRows<'local>,
) -> Result<JavaRows<'local>, Thrown> {
    push_on(env, handle, 0, rows)
}

fn push_on<'local>(
    env: &mut Env<'local>,
    handle: i64,
    input: i32,
    rows: &JavaRows<'local>,
) -> Result<JavaRows<'local>, Thrown> {
    let out = call(
        env,
        OPERATOR,
        "push",
        "(JI[B[I)[Ljava/lang/Object;",
        &[
            JValue::Long(handle),
            JValue::Int(input),
            JValue::from(&rows.data),
            JValue::from(&rows.offsets),
        ],
    )?
    .l()
    .expect("object");
    Ok(JavaRows::from_result(env, out))
}

/// A method of `handle` returning rows (`flush`, `prepareSnapshot`), copied out of the JVM.
fn rows_of(env: &mut Env<'_>, name: &str, handle: i64) -> Result<(Vec<u8>, Vec<usize>), Thrown> {
    let out = on_handle(env, name, "(J)[Ljava/lang/Object;", handle)?
        .l()
        .expect("object");
    Ok(JavaRows::from_result(env, out).to_rust(env))
}

/// `NativeOperator.advanceWatermark(handle, watermark)`, copied out of the JVM.
fn advance_watermark(
    env: &mut Env<'_>,
    handle: i64,
    watermark: i64,
) -> Result<(Vec<u8>, Vec<usize>), Thrown> {
    let out = call(
        env,
        OPERATOR,
        "advanceWatermark",
        "(JJ)[Ljava/lang/Object;",
        &[JValue::Long(handle), JValue::Long(watermark)],
    )?
    .l()
    .expect("object");
    Ok(JavaRows::from_result(env, out).to_rust(env))
}

/// `NativeOperator.snapshot(handle, directory)`.
fn snapshot(env: &mut Env<'_>, handle: i64, directory: &Path) -> Result<(), Thrown> {
    let directory =
        JString::from_str(env, directory.to_str().expect("UTF-8 path")).expect("string");
    call(
        env,
        OPERATOR,
        "snapshot",
        "(JLjava/lang/String;)V",
        &[JValue::Long(handle), JValue::from(&directory)],
    )
    .map(drop)
}

fn on_handle<'local>(
    env: &mut Env<'local>,
    name: &str,
    sig: &str,
    handle: i64,
) -> Result<JValueOwned<'local>, Thrown> {
    call(env, OPERATOR, name, sig, &[JValue::Long(handle)])
}

fn close(env: &mut Env<'_>, handle: i64) -> Result<(), Thrown> {
    on_handle(env, "close", "(J)V", handle).map(drop)
}

fn rows_from_ints<'local>(env: &mut Env<'local>, data: &[u8], offsets: &[i32]) -> JavaRows<'local> {
    let data = env.byte_array_from_slice(data).expect("byte[]");
    let array = JIntArray::new(env, offsets.len()).expect("int[]");
    array.set_region(env, 0, offsets).expect("int[] region");
    JavaRows {
        data: data.into(),
        offsets: array.into(),
    }
}

// ---- the fixture's formulas (RowsFixture.java), evaluated independently of native code ----

fn kind(i: i64) -> &'static str {
    ["+I", "-U", "+U", "-D"][(i % 4) as usize]
}

fn f0(i: i64) -> Option<i64> {
    (i % 5 != 3).then(|| i * 1_000_003 - 500)
}

fn f1(i: i64) -> Option<String> {
    (i % 7 != 2).then(|| {
        if i % 3 == 0 {
            format!("a long ünïcode value #{i}")
        } else {
            format!("s{i}")
        }
    })
}

fn f2(i: i64) -> Option<i64> {
    (i % 4 != 1).then(|| i * 31 - 7)
}

fn show<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "null".to_string(), |v| v.to_string())
}

/// What [`PLAN`] makes of fixture rows `range`, as `Oracles.describeRows` lines.
fn expected_plan_output(range: std::ops::Range<i64>) -> Vec<String> {
    range
        .filter(|&i| f1(i).is_some())
        .map(|i| format!("{}|{}|{}", kind(i), show(f2(i)), show(f0(i))))
        .collect()
}

fn describe(data: &[u8], offsets: &[usize], types: &[&str]) -> Vec<String> {
    FlinkOracles::new()
        .expect("oracles")
        .describe_rows(data, offsets, types)
        .expect("describeRows")
}

#[test]
fn java_rows_come_back_filtered_and_projected_with_kinds_and_nulls() {
    let Some(vm) = vm_or_skip("java_rows_come_back_filtered_and_projected_with_kinds_and_nulls")
    else {
        return;
    };
    let (data, offsets, flushed) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let input = JavaRows::fixture(env, 200);
                let handle = create(env, PLAN).expect("create");
                let output = push(env, handle, &input).expect("push");
                let (data, offsets) = output.to_rust(env);
                let flushed = rows_of(env, "flush", handle).expect("flush");
                close(env, handle).expect("close");
                Ok((data, offsets, flushed))
            },
        )
        .expect("attach");
    let expected = expected_plan_output(0..200);
    assert!(expected.len() > 150, "the fixture keeps most rows");
    assert_eq!(describe(&data, &offsets, &["INT", "BIGINT"]), expected);
    assert_eq!(
        flushed,
        (Vec::new(), vec![0]),
        "a stateless plan flushes nothing"
    );
}

#[test]
fn java_rows_through_a_calc_program_match_a_row_model() {
    let Some(vm) = vm_or_skip("java_rows_through_a_calc_program_match_a_row_model") else {
        return;
    };
    // SELECT f2 * 3 + f0, CASE WHEN f2 > 100 THEN 'big' ELSE 'small' END, CHAR_LENGTH(f1)
    // WHERE f0 IS NOT NULL AND f2 IS NOT NULL
    let plan = r#"{"operator": "calc", "input": ["BIGINT", "STRING", "INT"], "calc": {
        "projection": [
          {"call": {"op": 100, "args": [
            {"call": {"op": 102, "args": [{"input": 2}, {"literal": {"type": "INT", "value": "3"}}]}},
            {"input": 0}]}},
          {"case": {"when": [[{"call": {"op": 204, "args": [{"input": 2},
                                 {"literal": {"type": "INT", "value": "100"}}]}},
                              {"literal": {"type": "VARCHAR(3)", "value": "big"}}]],
                    "else": {"literal": {"type": "VARCHAR(5)", "value": "small"}}}},
          {"call": {"op": 300, "args": [{"input": 1}]}}],
        "filter": {"and": [{"call": {"op": 207, "args": [{"input": 0}]}},
                           {"call": {"op": 207, "args": [{"input": 2}]}}]}}}"#;
    let (data, offsets) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let input = JavaRows::fixture(env, 200);
                let handle = create(env, plan).expect("create");
                let rows = push(env, handle, &input).expect("push").to_rust(env);
                close(env, handle).expect("close");
                Ok(rows)
            },
        )
        .expect("attach");
    let expected: Vec<String> = (0..200)
        .filter_map(|i| {
            let (a, c) = (f0(i)?, f2(i)?);
            let size = if c > 100 { "big" } else { "small" };
            let chars = f1(i).map(|s| s.chars().count());
            Some(format!("{}|{}|{size}|{}", kind(i), c * 3 + a, show(chars)))
        })
        .collect();
    assert!(expected.len() > 100, "the fixture keeps most rows");
    assert_eq!(
        describe(&data, &offsets, &["BIGINT", "STRING", "INT"]),
        expected
    );
}

#[test]
fn an_identity_plan_gives_back_the_bytes_flinks_writer_wrote() {
    let Some(vm) = vm_or_skip("an_identity_plan_gives_back_the_bytes_flinks_writer_wrote") else {
        return;
    };
    let identity = r#"{"operator": "calc", "input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
        "calc": {"projection": [{"input": 0}, {"input": 1}, {"input": 2}]}}"#;
    let (input, output) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let input = JavaRows::fixture(env, 300);
                let handle = create(env, identity).expect("create");
                let output = push(env, handle, &input).expect("push").to_rust(env);
                close(env, handle).expect("close");
                Ok((input.to_rust(env), output))
            },
        )
        .expect("attach");
    // Native decode then encode of rows written by Flink's BinaryRowWriter, byte for byte.
    assert_eq!(output.1, input.1, "row boundaries");
    assert!(
        output.0 == input.0,
        "row bytes differ from what Flink wrote"
    );
}

#[test]
fn a_plan_may_repeat_columns_and_keep_only_null_values() {
    let Some(vm) = vm_or_skip("a_plan_may_repeat_columns_and_keep_only_null_values") else {
        return;
    };
    let plan = r#"{"operator": "calc", "input": ["BIGINT", "STRING", "INT"],
        "calc": {"projection": [{"input": 1}, {"input": 1}, {"input": 2}],
                 "filter": {"call": {"op": 206, "args": [{"input": 0}]}}}}"#;
    let (data, offsets) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let input = JavaRows::fixture(env, 100);
                let handle = create(env, plan).expect("create");
                let rows = push(env, handle, &input).expect("push").to_rust(env);
                close(env, handle).expect("close");
                Ok(rows)
            },
        )
        .expect("attach");
    let expected: Vec<String> = (0..100)
        .filter(|&i| f0(i).is_none())
        .map(|i| {
            format!(
                "{}|{}|{}|{}",
                kind(i),
                show(f1(i)),
                show(f1(i)),
                show(f2(i))
            )
        })
        .collect();
    assert_eq!(expected.len(), 20);
    assert_eq!(
        describe(&data, &offsets, &["STRING", "STRING", "INT"]),
        expected
    );
}

#[test]
fn malformed_rows_and_failing_expressions_throw_native_data_exceptions() {
    let Some(vm) =
        vm_or_skip("malformed_rows_and_failing_expressions_throw_native_data_exceptions")
    else {
        return;
    };
    vm.attach_current_thread(
        |env| -> bench_support::embedded_jvm::jni::errors::Result<()> {
            let handle = create(env, PLAN).expect("create");
            let (data, offsets) = JavaRows::fixture(env, 10).to_rust(env);
            let offsets: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();

            let mut past_end = offsets.clone();
            *past_end.last_mut().unwrap() += 8;
            let rows = rows_from_ints(env, &data, &past_end);
            let thrown = push(env, handle, &rows).map(drop).unwrap_err();
            thrown.assert_native(
                DATA_EXCEPTION,
                &format!(
                    "invalid input rows: row offsets end at byte {} but the data has {} bytes",
                    data.len() + 8,
                    data.len()
                ),
            );

            let mut bad_kind = data.clone();
            bad_kind[offsets[3] as usize] = 9;
            let rows = rows_from_ints(env, &bad_kind, &offsets);
            let thrown = push(env, handle, &rows).map(drop).unwrap_err();
            thrown.assert_native(
                DATA_EXCEPTION,
                "invalid input rows: BinaryRowData row 3: unknown row kind byte 9",
            );

            let negative = rows_from_ints(env, &data, &[0, -8]);
            let thrown = push(env, handle, &negative).map(drop).unwrap_err();
            thrown.assert_native(DATA_EXCEPTION, "negative");

            // The same handle, and the JVM, carry on.
            let rows = rows_from_ints(env, &data, &offsets);
            let (out, out_offsets) = push(env, handle, &rows).expect("valid push").to_rust(env);
            close(env, handle).expect("close");
            assert_eq!(
                describe(&out, &out_offsets, &["INT", "BIGINT"]),
                expected_plan_output(0..10)
            );

            // SELECT f2 / 0: Flink's job fails on the value, so does the push.
            let divide = r#"{"operator": "calc", "input": ["BIGINT", "STRING", "INT"],
                "calc": {"projection": [{"call": {"op": 103, "args": [{"input": 2},
                          {"literal": {"type": "INT", "value": "0"}}]}}]}}"#;
            let handle = create(env, divide).expect("create");
            let thrown = push(env, handle, &rows).map(drop).unwrap_err();
            thrown.assert_native(DATA_EXCEPTION, "/ by zero");
            close(env, handle).expect("close");
            Ok(())
        },
    )
    .expect("attach");
}

#[test]
fn plans_and_runtime_settings_that_cannot_run_throw_native_plan_exceptions() {
    let Some(vm) =
        vm_or_skip("plans_and_runtime_settings_that_cannot_run_throw_native_plan_exceptions")
    else {
        return;
    };
    vm.attach_current_thread(
        |env| -> bench_support::embedded_jvm::jni::errors::Result<()> {
            let bad_type = r#"{"operator": "calc", "input": ["NOPE"],
                "calc": {"projection": [{"input": 0}]}}"#;
            let thrown = create(env, bad_type).unwrap_err();
            thrown.assert_native(PLAN_EXCEPTION, "NOPE");
            assert!(thrown.message.starts_with("invalid plan: "), "{thrown:?}");
            let thrown = create(env, r#"{"operator": "sort_merge_join"}"#).unwrap_err();
            thrown.assert_native(PLAN_EXCEPTION, "unknown variant `sort_merge_join`");
            let untagged = r#"{"input": ["INT"], "calc": {"projection": [{"input": 0}]}}"#;
            create(env, untagged)
                .unwrap_err()
                .assert_native(PLAN_EXCEPTION, "operator");
            let bad_field = r#"{"operator": "calc", "input": ["INT"],
                "calc": {"projection": [{"input": 1}]}}"#;
            create(env, bad_field).unwrap_err().assert_native(
                PLAN_EXCEPTION,
                "projection[0]: input field 1 does not exist (the input has 1 fields)",
            );
            create_with(env, PLAN, Some(r#"{"backend": "tape"}"#))
                .unwrap_err()
                .assert_native(
                    PLAN_EXCEPTION,
                    "invalid runtime settings: unknown variant `tape`",
                );
            create_with(env, PLAN, Some(r#"{"key_groups": [5, 2]}"#))
                .unwrap_err()
                .assert_native(PLAN_EXCEPTION, "key_groups [5, 2] is not a range");

            // Boundary misuse is not a plan problem.
            let null_plan = call(
                env,
                OPERATOR,
                "create",
                "(Ljava/lang/String;Ljava/lang/String;)J",
                &[
                    JValue::from(&JObject::null()),
                    JValue::from(&JObject::null()),
                ],
            )
            .map(drop)
            .unwrap_err();
            assert_eq!(
                null_plan,
                Thrown::java_lang("IllegalArgumentException", "invalid argument: plan is null")
            );
            let handle = create(env, PLAN).expect("create");
            let rows = JavaRows::fixture(env, 3);
            let thrown = push_on(env, handle, 1, &rows).map(drop).unwrap_err();
            assert_eq!(thrown.class, ILLEGAL_ARGUMENT, "{thrown:?}");
            assert!(
                thrown.message.contains("input 1 does not exist"),
                "{thrown:?}"
            );
            let no_data = JavaRows {
                data: JObject::null(),
                offsets: rows.offsets,
            };
            let thrown = push(env, handle, &no_data).map(drop).unwrap_err();
            assert_eq!(
                thrown,
                Thrown::java_lang("IllegalArgumentException", "invalid argument: data is null")
            );
            close(env, handle).expect("close");
            Ok(())
        },
    )
    .expect("attach");
}

#[test]
fn closed_and_forged_handles_throw_illegal_argument() {
    let Some(vm) = vm_or_skip("closed_and_forged_handles_throw_illegal_argument") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    vm.attach_current_thread(
        |env| -> bench_support::embedded_jvm::jni::errors::Result<()> {
            let handle = create(env, PLAN).expect("create");
            close(env, handle).expect("close");
            let input = JavaRows::fixture(env, 4);
            for (forged_or_closed, what) in
                [(handle, "closed"), (12345, "forged"), (-1, "negative")]
            {
                let expected = Thrown::java_lang(
                    "IllegalArgumentException",
                    format!("unknown or closed operator handle {forged_or_closed}"),
                );
                let thrown = push(env, forged_or_closed, &input).map(drop).unwrap_err();
                assert_eq!(thrown, expected, "push on a {what} handle");
                for name in ["flush", "prepareSnapshot"] {
                    let thrown = rows_of(env, name, forged_or_closed).map(drop).unwrap_err();
                    assert_eq!(thrown, expected, "{name} on a {what} handle");
                }
                let thrown = close(env, forged_or_closed).unwrap_err();
                assert_eq!(thrown, expected, "close on a {what} handle");
                let thrown = advance_watermark(env, forged_or_closed, 1)
                    .map(drop)
                    .unwrap_err();
                assert_eq!(thrown, expected, "advanceWatermark on a {what} handle");
                let thrown = snapshot(env, forged_or_closed, &dir.path().join(what)).unwrap_err();
                assert_eq!(thrown, expected, "snapshot on a {what} handle");
            }
            Ok(())
        },
    )
    .expect("attach");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing was written for a dead handle"
    );
}

/// The watermark recorded in a published checkpoint's operator metadata.
fn checkpoint_watermark(checkpoint: &Path) -> Option<i64> {
    let metadata = std::fs::read(checkpoint.join("metadata.bin")).expect("metadata.bin");
    let metadata: serde_json::Value = serde_json::from_slice(&metadata).expect("JSON metadata");
    metadata["watermark"].as_i64()
}

#[test]
fn snapshot_close_restore_continues_with_the_same_plan() {
    let Some(vm) = vm_or_skip("snapshot_close_restore_continues_with_the_same_plan") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let (first, second) = (
        dir.path().join("checkpoint-1"),
        dir.path().join("checkpoint-2"),
    );
    let (data, offsets) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let handle = create(env, PLAN).expect("create");
                let emitted = advance_watermark(env, handle, 1_000).expect("advanceWatermark");
                assert_eq!(
                    emitted,
                    (Vec::new(), vec![0]),
                    "Calc emits nothing on a watermark"
                );
                let rows = JavaRows::fixture(env, 10);
                push(env, handle, &rows).expect("push");
                let prepared = rows_of(env, "prepareSnapshot", handle).expect("prepareSnapshot");
                assert_eq!(prepared, (Vec::new(), vec![0]), "Calc buffers nothing");
                snapshot(env, handle, &first).expect("snapshot");
                snapshot(env, handle, &first)
                    .unwrap_err()
                    .assert_native(STATE_EXCEPTION, "already exists");
                close(env, handle).expect("close");

                let restored = restore(env, PLAN, None, &[&first]).expect("restore");
                assert_ne!(restored, handle, "a restore gets a new handle");
                let rows = JavaRows::fixture(env, 30);
                let (data, offsets) = push(env, restored, &rows).expect("push").to_rust(env);
                snapshot(env, restored, &second).expect("snapshot after restore");
                close(env, restored).expect("close");

                // The same columns in another order: another plan, refused by name.
                let swapped = PLAN.replace(
                    r#"[{"input": 2}, {"input": 0}]"#,
                    r#"[{"input": 0}, {"input": 2}]"#,
                );
                let thrown = restore(env, &swapped, None, &[&first]).unwrap_err();
                thrown.assert_native(STATE_EXCEPTION, "written for a different plan");
                thrown.assert_native(
                    STATE_EXCEPTION,
                    "calc.projection[0].input: checkpoint 2, plan 0",
                );
                let group = group_plan("SUM", None);
                restore(env, &group, None, &[&first])
                    .unwrap_err()
                    .assert_native(
                        STATE_EXCEPTION,
                        "written by a calc operator, not group_aggregate",
                    );
                let missing = dir.path().join("missing");
                restore(env, PLAN, None, &[&missing])
                    .unwrap_err()
                    .assert_native(STATE_EXCEPTION, "MANIFEST.json is missing");
                Ok((data, offsets))
            },
        )
        .expect("attach");
    assert_eq!(checkpoint_watermark(&first), Some(1_000));
    assert_eq!(
        checkpoint_watermark(&second),
        Some(1_000),
        "the watermark carries over a restore"
    );
    assert_eq!(
        describe(&data, &offsets, &["INT", "BIGINT"]),
        expected_plan_output(0..30)
    );
}

// ---- GROUP BY: RowsFixture.keyValueRows and a model of Flink's emission ----

/// Keys of the GROUP BY input.
const KEYS: i64 = 7;

/// `SELECT k, <function>(v), COUNT(*) GROUP BY k` over (BIGINT k, INT v).
fn group_plan(function: &str, mini_batch_rows: Option<usize>) -> String {
    let mini_batch = mini_batch_rows.map_or("null".to_string(), |n| n.to_string());
    format!(
        r#"{{"operator": "group_aggregate", "input_names": ["k", "v"],
            "input_types": ["BIGINT", "INT"], "grouping": [0],
            "calls": [{{"function": "{function}", "arg": 1, "name": "s"}},
                      {{"function": "COUNT_STAR", "name": "c"}}],
            "input_retracts": false, "generate_update_before": true,
            "mini_batch_rows": {mini_batch}, "state_ttl_ms": null, "max_parallelism": 128}}"#
    )
}

/// Row `i` of `RowsFixture.keyValueRows`.
fn key_value(i: i64) -> (i64, Option<i64>) {
    (i % KEYS, (i % 10 != 9).then(|| i * 13 % 50 - 20))
}

/// A group's result: (SUM(v), COUNT(*)).
type GroupResult = (Option<i64>, i64);

/// A GROUP BY's groups as the model sees them: key -> result.
#[derive(Debug, Default, Clone)]
struct Groups(BTreeMap<i64, GroupResult>);

impl Groups {
    /// Applies row `i`; the group's result before and after.
    fn apply(&mut self, i: i64) -> (i64, Option<GroupResult>, GroupResult) {
        let (k, v) = key_value(i);
        let before = self.0.get(&k).copied();
        let (sum, count) = before.unwrap_or((None, 0));
        let sum = match (sum, v) {
            (Some(s), Some(v)) => Some(s + v),
            (s, v) => s.or(v),
        };
        self.0.insert(k, (sum, count + 1));
        (k, before, (sum, count + 1))
    }
}

fn group_row(kind: &str, k: i64, (sum, count): GroupResult) -> String {
    format!("{kind}|{k}|{}|{count}", show(sum))
}

/// What immediate-mode GROUP BY with update-before emits for rows `range`: per row, `+I` for
/// a new group, else `-U` with the old result and `+U` with the new (COUNT(*) always changes).
fn immediate(groups: &mut Groups, range: std::ops::Range<i64>) -> Vec<String> {
    let mut out = Vec::new();
    for i in range {
        let (k, before, after) = groups.apply(i);
        match before {
            None => out.push(group_row("+I", k, after)),
            Some(before) => {
                out.push(group_row("-U", k, before));
                out.push(group_row("+U", k, after));
            }
        }
    }
    out
}

/// What a mini-batch GROUP BY emits for a bundle of rows `range`: per group it touched, once,
/// sorted (a bundle's groups come out in no promised order).
fn bundle(groups: &mut Groups, range: std::ops::Range<i64>) -> Vec<String> {
    let before = groups.clone();
    let touched: std::collections::BTreeSet<i64> = range.map(|i| groups.apply(i).0).collect();
    let mut out = Vec::new();
    for k in touched {
        let after = groups.0[&k];
        match before.0.get(&k) {
            None => out.push(group_row("+I", k, after)),
            Some(&old) => {
                out.push(group_row("-U", k, old));
                out.push(group_row("+U", k, after));
            }
        }
    }
    out.sort();
    out
}

const GROUP_OUTPUT: [&str; 3] = ["BIGINT", "INT", "BIGINT"];

fn describe_sorted(rows: &(Vec<u8>, Vec<usize>)) -> Vec<String> {
    let mut described = describe(&rows.0, &rows.1, &GROUP_OUTPUT);
    described.sort();
    described
}

#[test]
fn a_group_by_on_rocksdb_snapshots_restores_and_continues() {
    let Some(vm) = vm_or_skip("a_group_by_on_rocksdb_snapshots_restores_and_continues") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let checkpoint = dir.path().join("checkpoint-1");
    let working = dir.path().join("task/operator-1");
    let plan = group_plan("SUM", None);
    let runtime = format!(
        r#"{{"backend": "rocksdb", "working_dir": "{}", "key_groups": [0, 127]}}"#,
        working.display()
    );
    let (before, after, flushed) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let handle =
                    create_with(env, &plan, Some(r#"{"backend": "rocksdb"}"#)).expect("create");
                let rows = JavaRows::key_values(env, 0, 120, KEYS);
                let before = push(env, handle, &rows).expect("push").to_rust(env);
                let emitted = advance_watermark(env, handle, 500).expect("advanceWatermark");
                assert_eq!(
                    emitted,
                    (Vec::new(), vec![0]),
                    "immediate mode holds nothing"
                );
                let prepared = rows_of(env, "prepareSnapshot", handle).expect("prepareSnapshot");
                assert_eq!(
                    prepared,
                    (Vec::new(), vec![0]),
                    "immediate mode holds nothing"
                );
                snapshot(env, handle, &checkpoint).expect("snapshot");
                close(env, handle).expect("close");

                restore(env, &group_plan("MAX", None), None, &[&checkpoint])
                    .unwrap_err()
                    .assert_native(
                        STATE_EXCEPTION,
                        r#"calls[0].function: checkpoint "SUM", plan "MAX""#,
                    );
                let restored =
                    restore(env, &plan, Some(&runtime), &[&checkpoint]).expect("restore");
                let rows = JavaRows::key_values(env, 120, 180, KEYS);
                let after = push(env, restored, &rows).expect("push").to_rust(env);
                let flushed = rows_of(env, "flush", restored).expect("flush");
                close(env, restored).expect("close");
                Ok((before, after, flushed))
            },
        )
        .expect("attach");
    assert!(
        working.join("db").is_dir(),
        "the store lived in the given working directory"
    );
    assert_eq!(checkpoint_watermark(&checkpoint), Some(500));
    let mut groups = Groups::default();
    let expected = immediate(&mut groups, 0..120);
    assert_eq!(expected.len(), 2 * 120 - KEYS as usize);
    assert_eq!(describe(&before.0, &before.1, &GROUP_OUTPUT), expected);
    let expected = immediate(&mut groups, 120..300);
    assert_eq!(describe(&after.0, &after.1, &GROUP_OUTPUT), expected);
    assert_eq!(flushed, (Vec::new(), vec![0]));
    // The model against a sum computed directly for one key: SUM skips NULL values,
    // COUNT(*) counts every row.
    let k0: Vec<i64> = (0..300).filter(|i| i % KEYS == 0).collect();
    let sum: i64 = k0
        .iter()
        .filter(|&&i| i % 10 != 9)
        .map(|i| i * 13 % 50 - 20)
        .sum();
    assert_eq!(groups.0[&0], (Some(sum), k0.len() as i64));
}

#[test]
fn a_mini_batch_group_by_emits_on_a_watermark_and_before_a_snapshot() {
    let Some(vm) = vm_or_skip("a_mini_batch_group_by_emits_on_a_watermark_and_before_a_snapshot")
    else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary directory");
    let checkpoint = dir.path().join("checkpoint-1");
    let plan = group_plan("SUM", Some(10_000));
    let (on_watermark, before_snapshot, after_restore) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let handle = create(env, &plan).expect("create");
                let rows = JavaRows::key_values(env, 0, 60, KEYS);
                let pushed = push(env, handle, &rows).expect("push").to_rust(env);
                assert_eq!(pushed, (Vec::new(), vec![0]), "buffered in the bundle");
                let on_watermark = advance_watermark(env, handle, 10).expect("advanceWatermark");
                let rows = JavaRows::key_values(env, 60, 40, KEYS);
                push(env, handle, &rows).expect("push");
                snapshot(env, handle, &checkpoint)
                    .unwrap_err()
                    .assert_native(STATE_EXCEPTION, "flush before checkpointing");
                let before_snapshot =
                    rows_of(env, "prepareSnapshot", handle).expect("prepareSnapshot");
                snapshot(env, handle, &checkpoint).expect("snapshot");
                close(env, handle).expect("close");

                let restored = restore(env, &plan, None, &[&checkpoint]).expect("restore");
                let rows = JavaRows::key_values(env, 100, 25, KEYS);
                push(env, restored, &rows).expect("push");
                let after_restore = rows_of(env, "flush", restored).expect("flush");
                close(env, restored).expect("close");
                Ok((on_watermark, before_snapshot, after_restore))
            },
        )
        .expect("attach");
    let mut groups = Groups::default();
    assert_eq!(describe_sorted(&on_watermark), bundle(&mut groups, 0..60));
    assert_eq!(
        describe_sorted(&before_snapshot),
        bundle(&mut groups, 60..100)
    );
    assert_eq!(
        describe_sorted(&after_restore),
        bundle(&mut groups, 100..125)
    );
}

#[test]
fn a_native_panic_becomes_a_runtime_exception() {
    let Some(vm) = vm_or_skip("a_native_panic_becomes_a_runtime_exception") else {
        return;
    };
    vm.attach_current_thread(
        |env| -> bench_support::embedded_jvm::jni::errors::Result<()> {
            let message = JString::from_str(env, "boom on purpose")?;
            let thrown = call(
                env,
                FIXTURE,
                "nativePanic",
                "(Ljava/lang/String;)V",
                &[JValue::from(&message)],
            )
            .map(drop)
            .unwrap_err();
            assert_eq!(
                thrown,
                Thrown::java_lang("RuntimeException", "native panic: boom on purpose")
            );
            // The JVM and the library carry on.
            let handle = create(env, PLAN).expect("create after a panic");
            close(env, handle).expect("close");
            Ok(())
        },
    )
    .expect("attach");
}

/// A node released Flink 2.3.0 described (`crates/streamfusion/tests/flink-2.3.0-nodes/`).
fn flink_node(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../streamfusion/tests/flink-2.3.0-nodes")
        .join(format!("calc-{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `NativeOperator.planFromFlink(node, config)`: the native plan's JSON.
fn plan_from_flink(env: &mut Env<'_>, node: &str, config: Option<&str>) -> Result<String, Thrown> {
    let node = JString::from_str(env, node).expect("node string");
    let config = optional_string(env, config);
    let plan = call(
        env,
        OPERATOR,
        "planFromFlink",
        "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
        &[JValue::from(&node), JValue::from(&config)],
    )?
    .l()
    .expect("a String");
    Ok(string(env, plan).expect("the plan's text"))
}

#[test]
fn flink_nodes_plan_natively_or_throw_the_reason_as_a_native_plan_exception() {
    let Some(vm) =
        vm_or_skip("flink_nodes_plan_natively_or_throw_the_reason_as_a_native_plan_exception")
    else {
        return;
    };
    vm.attach_current_thread(
        |env| -> bench_support::embedded_jvm::jni::errors::Result<()> {
            let config = r#"{"table.exec.legacy-cast-behaviour": "DISABLED",
                "table.local-time-zone": "UTC"}"#;
            let plan = plan_from_flink(env, &flink_node("int_arithmetic"), Some(config))
                .expect("a supported Calc plans");
            assert!(plan.contains(r#""operator":"calc""#), "{plan}");
            // The answer is what `create` takes.
            let handle = create(env, &plan).expect("create from the planned JSON");
            close(env, handle).expect("close");
            // Flink's REPEAT node with its function renamed to one the registry lacks.
            let unsupported = flink_node("fallback_repeat").replace("$REPEAT$1", "$PARSE_URL$1");
            plan_from_flink(env, &unsupported, None)
                .unwrap_err()
                .assert_native(PLAN_EXCEPTION, "function $PARSE_URL$1 is not supported");
            plan_from_flink(env, "{]", None)
                .unwrap_err()
                .assert_native(PLAN_EXCEPTION, "malformed Flink plan JSON");
            Ok(())
        },
    )
    .expect("attach");
}

#[test]
fn a_pushed_buffer_longer_than_its_rows_is_read_up_to_the_last_offset() {
    let Some(vm) = vm_or_skip("a_pushed_buffer_longer_than_its_rows_is_read_up_to_the_last_offset")
    else {
        return;
    };
    let (data, offsets) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let input = JavaRows::fixture(env, 40);
                let (mut bytes, offsets) = input.to_rust(env);
                // A reused buffer: stale bytes after the last row are never read.
                bytes.extend(std::iter::repeat_n(0xAB, 100));
                let offsets: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
                let reused = rows_from_ints(env, &bytes, &offsets);
                let handle = create(env, PLAN).expect("create");
                let output = push(env, handle, &reused).expect("push");
                let out = output.to_rust(env);
                close(env, handle).expect("close");
                Ok(out)
            },
        )
        .expect("attach");
    assert_eq!(
        describe(&data, &offsets, &["INT", "BIGINT"]),
        expected_plan_output(0..40)
    );
}

/// Fixture rows (BIGINT, VARCHAR, INT) -> (BIGINT) by upcall `index` of `f2`, in a Calc that
/// keeps the rows whose f0 is not NULL.
fn upcall_plan(index: usize) -> String {
    format!(
        r#"{{"operator": "calc", "input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
        "calc": {{"projection": [{{"upcall": {{"index": {index}, "args": [{{"input": 2}}],
                                              "arguments": ["INT"], "type": "BIGINT"}}}}],
                 "filter": {{"call": {{"op": 207, "args": [{{"input": 0}}]}}}},
                 "upcalls": [{{"function": "SQUARE", "call": {{}}}},
                             {{"function": "BOOM", "call": {{}}}}]}}}}"#
    )
}

/// `NativeOperator.bindUpcalls(handle, RowsFixture.squares())`.
fn bind_squares(env: &mut Env<'_>, handle: i64) -> Result<(), Thrown> {
    let upcalls = call(
        env,
        FIXTURE,
        "squares",
        "()Lorg/streamfusion/jni/Upcalls;",
        &[],
    )?
    .l()
    .expect("object");
    call(
        env,
        OPERATOR,
        "bindUpcalls",
        "(JLorg/streamfusion/jni/Upcalls;)V",
        &[JValue::Long(handle), JValue::from(&upcalls)],
    )?;
    Ok(())
}

#[test]
fn an_upcall_hands_its_batch_to_the_bound_java_object_and_a_java_exception_fails_only_it() {
    let test =
        "an_upcall_hands_its_batch_to_the_bound_java_object_and_a_java_exception_fails_only_it";
    let Some(vm) = vm_or_skip(test) else {
        return;
    };
    let (squared, again, boom, unbound) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let input = JavaRows::fixture(env, 200);
                let square = create(env, &upcall_plan(0)).expect("create");
                bind_squares(env, square).expect("bind");
                let squared = push(env, square, &input).expect("push").to_rust(env);
                let failing = create(env, &upcall_plan(1)).expect("create");
                bind_squares(env, failing).expect("bind");
                let boom = push(env, failing, &input).map(|_| ()).unwrap_err();
                // The JVM and the other operator carry on.
                let again = push(env, square, &input).expect("push").to_rust(env);
                let lonely = create(env, &upcall_plan(0)).expect("create");
                let unbound = push(env, lonely, &input).map(|_| ()).unwrap_err();
                for handle in [square, failing, lonely] {
                    close(env, handle).expect("close");
                }
                Ok((squared, again, boom, unbound))
            },
        )
        .expect("attach");
    let expected: Vec<String> = (0..200)
        .filter(|&i| f0(i).is_some())
        .map(|i| format!("{}|{}", kind(i), show(f2(i).map(|v| v * v))))
        .collect();
    assert!(expected.len() > 150, "the fixture keeps most rows");
    assert_eq!(describe(&squared.0, &squared.1, &["BIGINT"]), expected);
    assert_eq!(again, squared);
    boom.assert_native(
        DATA_EXCEPTION,
        "BOOM (upcall): java.lang.ArithmeticException: boom at",
    );
    unbound.assert_native(DATA_EXCEPTION, "SQUARE has no host");
}
