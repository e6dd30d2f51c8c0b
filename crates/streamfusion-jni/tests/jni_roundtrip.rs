//! Round trips through `libstreamfusion_jni` loaded into the embedded JVM.
//!
//! The cdylib built next to this test binary (`<target>/release/libstreamfusion_jni.so`) is
//! loaded by `org.streamfusion.jni.NativeOperator` (through `RowsFixture.load`, which sets the
//! `streamfusion.jni.path` property first). Input rows are written in Java by released Flink's
//! own `BinaryRowWriter` (`java/src/org/streamfusion/jni/RowsFixture.java`); output rows are
//! read back by released Flink's `BinaryRowData` getters (`Oracles.describeRows`) and compared
//! with an expectation computed here from the fixture's formulas, not by native code. Without
//! a JDK or the classpath of `cargo xtask jvm`, every test reports itself skipped by name.
//! Set `SF_JVM_CHECK_JNI=1` to run them under `-Xcheck:jni`.

use std::path::PathBuf;
use std::sync::OnceLock;

use bench_support::embedded_jvm::jni::objects::{JIntArray, JObject, JObjectArray, JString};
use bench_support::embedded_jvm::jni::signature::RuntimeMethodSignature;
use bench_support::embedded_jvm::jni::strings::JNIString;
use bench_support::embedded_jvm::jni::{Env, JValue, JValueOwned, JavaVM};
use bench_support::embedded_jvm::{FlinkOracles, ints, jvm, string};
use bench_support::jvm::report_skipped;

const OPERATOR: &str = "org/streamfusion/jni/NativeOperator";
const FIXTURE: &str = "org/streamfusion/jni/RowsFixture";

/// Fixture rows (BIGINT, VARCHAR, INT) -> (INT, BIGINT) of the rows whose VARCHAR is non-NULL.
const PLAN: &str = r#"{"input": ["BIGINT", "VARCHAR(2147483647)", "INT"], 
    "calc": {"projection": [{"input": 2}, {"input": 0}],
             "filter": {"call": {"op": 207, "args": [{"input": 1}]}}}}"#;

/// A Java exception caught on the Rust side.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Thrown {
    class: String,
    message: String,
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
            Ok(Thrown {
                class: string(env, class_name)?,
                message: if message.is_null() {
                    String::new()
                } else {
                    string(env, message)?
                },
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

fn create<'local>(env: &mut Env<'local>, plan: &str) -> Result<i64, Thrown> {
    let plan = JString::from_str(env, plan).expect("plan string");
    call(
        env,
        OPERATOR,
        "create",
        "(Ljava/lang/String;)J",
        &[JValue::from(&plan)],
    )
    .map(|v| v.j().expect("long"))
}

fn push<'local>(
    env: &mut Env<'local>,
    handle: i64,
    rows: &JavaRows<'local>,
) -> Result<JavaRows<'local>, Thrown> {
    let out = call(
        env,
        OPERATOR,
        "push",
        "(J[B[I)[Ljava/lang/Object;",
        &[
            JValue::Long(handle),
            JValue::from(&rows.data),
            JValue::from(&rows.offsets),
        ],
    )?
    .l()
    .expect("object");
    Ok(JavaRows::from_result(env, out))
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
                let flushed = on_handle(env, "flush", "(J)[Ljava/lang/Object;", handle)
                    .expect("flush")
                    .l()?;
                let flushed = JavaRows::from_result(env, flushed).to_rust(env);
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
    let plan = r#"{"input": ["BIGINT", "STRING", "INT"], "calc": {
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
    let identity = r#"{"input": ["BIGINT", "VARCHAR(2147483647)", "INT"],
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
    let plan = r#"{"input": ["BIGINT", "STRING", "INT"],
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
fn malformed_buffers_throw_illegal_argument_and_the_jvm_stays_usable() {
    let Some(vm) = vm_or_skip("malformed_buffers_throw_illegal_argument_and_the_jvm_stays_usable")
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
            assert_eq!(thrown.class, "java.lang.IllegalArgumentException");
            assert_eq!(
                thrown.message,
                format!(
                    "invalid input rows: row offsets end at byte {} but the data has {} bytes",
                    data.len() + 8,
                    data.len()
                )
            );

            let mut bad_kind = data.clone();
            bad_kind[offsets[3] as usize] = 9;
            let rows = rows_from_ints(env, &bad_kind, &offsets);
            let thrown = push(env, handle, &rows).map(drop).unwrap_err();
            assert_eq!(thrown.class, "java.lang.IllegalArgumentException");
            assert_eq!(
                thrown.message,
                "invalid input rows: BinaryRowData row 3: unknown row kind byte 9"
            );

            let negative = rows_from_ints(env, &data, &[0, -8]);
            let thrown = push(env, handle, &negative).map(drop).unwrap_err();
            assert_eq!(thrown.class, "java.lang.IllegalArgumentException");
            assert!(thrown.message.contains("negative"), "{thrown:?}");

            // The same handle, and the JVM, carry on.
            let rows = rows_from_ints(env, &data, &offsets);
            let (out, out_offsets) = push(env, handle, &rows).expect("valid push").to_rust(env);
            close(env, handle).expect("close");
            let thrown = create(
                env,
                r#"{"input": ["NOPE"], "calc": {"projection": [{"input": 0}]}}"#,
            )
            .unwrap_err();
            assert_eq!(thrown.class, "java.lang.IllegalArgumentException");
            assert!(
                thrown
                    .message
                    .starts_with("invalid plan: invalid type `NOPE`"),
                "{thrown:?}"
            );
            assert_eq!(
                describe(&out, &out_offsets, &["INT", "BIGINT"]),
                expected_plan_output(0..10)
            );
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
    vm.attach_current_thread(
        |env| -> bench_support::embedded_jvm::jni::errors::Result<()> {
            let handle = create(env, PLAN).expect("create");
            close(env, handle).expect("close");
            let input = JavaRows::fixture(env, 4);
            for (forged_or_closed, what) in
                [(handle, "closed"), (12345, "forged"), (-1, "negative")]
            {
                let expected = Thrown {
                    class: "java.lang.IllegalArgumentException".into(),
                    message: format!("unknown or closed operator handle {forged_or_closed}"),
                };
                let thrown = push(env, forged_or_closed, &input).map(drop).unwrap_err();
                assert_eq!(thrown, expected, "push on a {what} handle");
                for (name, sig) in [
                    ("snapshot", "(J)[B"),
                    ("flush", "(J)[Ljava/lang/Object;"),
                    ("close", "(J)V"),
                ] {
                    let thrown = on_handle(env, name, sig, forged_or_closed)
                        .map(drop)
                        .unwrap_err();
                    assert_eq!(thrown, expected, "{name} on a {what} handle");
                }
                let thrown = call(
                    env,
                    OPERATOR,
                    "advanceWatermark",
                    "(JJ)V",
                    &[JValue::Long(forged_or_closed), JValue::Long(1)],
                )
                .map(drop)
                .unwrap_err();
                assert_eq!(thrown, expected, "advanceWatermark on a {what} handle");
            }
            Ok(())
        },
    )
    .expect("attach");
}

#[test]
fn snapshot_close_restore_continues_with_the_same_plan() {
    let Some(vm) = vm_or_skip("snapshot_close_restore_continues_with_the_same_plan") else {
        return;
    };
    let (snapshot, restored_snapshot, data, offsets) = vm
        .attach_current_thread(
            |env| -> bench_support::embedded_jvm::jni::errors::Result<_> {
                let handle = create(env, PLAN).expect("create");
                call(
                    env,
                    OPERATOR,
                    "advanceWatermark",
                    "(JJ)V",
                    &[JValue::Long(handle), JValue::Long(1_000)],
                )
                .expect("advanceWatermark");
                let first = JavaRows::fixture(env, 10);
                push(env, handle, &first).expect("push");
                let snapshot = on_handle(env, "snapshot", "(J)[B", handle)
                    .expect("snapshot")
                    .l()?;
                close(env, handle).expect("close");

                let snapshot = env
                    .cast_local::<bench_support::embedded_jvm::jni::objects::JByteArray>(
                        snapshot,
                    )?;
                let restored = call(
                    env,
                    OPERATOR,
                    "restore",
                    "([B)J",
                    &[JValue::from(&snapshot)],
                )
                .expect("restore")
                .j()?;
                assert_ne!(restored, handle, "a restore gets a new handle");
                let second = JavaRows::fixture(env, 30);
                let (data, offsets) = push(env, restored, &second).expect("push").to_rust(env);
                let restored_snapshot = on_handle(env, "snapshot", "(J)[B", restored)
                    .expect("snapshot")
                    .l()?;
                let restored_snapshot = env
                    .cast_local::<bench_support::embedded_jvm::jni::objects::JByteArray>(
                        restored_snapshot,
                    )?;
                let restored_snapshot = env.convert_byte_array(&restored_snapshot)?;
                close(env, restored).expect("close");

                let mut corrupt = env.convert_byte_array(&snapshot)?;
                corrupt[4] = 99;
                let corrupt = env.byte_array_from_slice(&corrupt)?;
                let thrown = call(env, OPERATOR, "restore", "([B)J", &[JValue::from(&corrupt)])
                    .map(drop)
                    .unwrap_err();
                assert_eq!(thrown.class, "java.lang.IllegalArgumentException");
                assert_eq!(
                    thrown.message,
                    "invalid snapshot: version 99 is not the supported version 1"
                );
                let snapshot = env.convert_byte_array(&snapshot)?;
                Ok((snapshot, restored_snapshot, data, offsets))
            },
        )
        .expect("attach");
    // Version 1 layout: magic, version, watermark, rows processed, plan length, plan.
    assert_eq!(&snapshot[..4], b"SFOP");
    let long = |s: &[u8], at: usize| i64::from_le_bytes(s[at..at + 8].try_into().unwrap());
    assert_eq!(long(&snapshot, 8), 1_000, "watermark");
    assert_eq!(
        long(&snapshot, 16),
        10,
        "rows processed before the snapshot"
    );
    assert_eq!(
        long(&restored_snapshot, 8),
        1_000,
        "watermark after restore"
    );
    assert_eq!(long(&restored_snapshot, 16), 40, "rows processed carry on");
    assert_eq!(snapshot[28..], restored_snapshot[28..], "the same plan");
    assert_eq!(
        describe(&data, &offsets, &["INT", "BIGINT"]),
        expected_plan_output(0..30)
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
                Thrown {
                    class: "java.lang.RuntimeException".into(),
                    message: "native panic: boom on purpose".into(),
                }
            );
            // The JVM and the library carry on.
            let handle = create(env, PLAN).expect("create after a panic");
            close(env, handle).expect("close");
            Ok(())
        },
    )
    .expect("attach");
}
