//! The embedded JVM: one per process, started lazily on the released Flink classpath.
//!
//! Parity oracles and JVM-boundary suites call released Flink classes (and the project's
//! `java/` helpers, e.g. `org.streamfusion.parity.Oracles`) through the JNI invocation API.
//! [`jvm`] starts the JVM on first use and hands out the same [`JavaVM`] afterwards; a JVM
//! cannot be destroyed and re-created within a process, so there is exactly one.
//!
//! Options: `-Xms128m -Xmx512m -Dfile.encoding=UTF-8 -Duser.timezone=UTC
//! -Djava.class.path=<released_classpath()>`, plus `-Xcheck:jni` when
//! [`CHECK_JNI_ENV`] is set to `1`.
//!
//! **Timing**: start-up takes hundreds of milliseconds and is never inside a timed region.
//! Suites call [`jvm`] (and make a first call into the classes they use, so class loading and
//! JIT warm-up are done too) in their set-up, before any measurement starts; tests pay it once
//! per test binary.
//!
//! `libjvm` is located by [`libjvm_path`]: `$JAVA_HOME`, else the `java` launcher on the
//! `PATH` with symbolic links resolved (`readlink -f $(which java)`), then
//! `<java home>/lib/server/libjvm.so` (or the JDK 8 `jre/lib/<arch>/server/` layout). It is
//! handed to `jni` explicitly ([`JavaVM::with_libjvm`]) instead of `jni`'s own `java-locator`
//! lookup, which runs `java` in a subprocess.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use jni;
use jni::objects::{JDoubleArray, JIntArray, JLongArray, JObject, JObjectArray, JString};
use jni::signature::RuntimeMethodSignature;
use jni::strings::JNIString;
use jni::{Env, InitArgsBuilder, JNIVersion, JValue, JavaVM};

use crate::jvm::{JvmUnavailable, planner_classpath, released_classpath};

/// Set to `1` to start the embedded JVM with `-Xcheck:jni` (extra argument checking on every
/// JNI call; for debugging, not for timed runs).
pub const CHECK_JNI_ENV: &str = "SF_JVM_CHECK_JNI";

/// Initial heap of the embedded JVM.
pub const INITIAL_HEAP: &str = "-Xms128m";
/// Maximum heap of the embedded JVM.
pub const MAX_HEAP: &str = "-Xmx512m";

static JVM: OnceLock<Result<Started, JvmUnavailable>> = OnceLock::new();

/// The process's JVM and whether it runs on the planner classpath.
struct Started {
    vm: JavaVM,
    planner: bool,
}

/// The process's embedded JVM, started on first call (never inside a timed region: call it in
/// set-up). Every later call returns the same JVM, or the same reason it could not start.
pub fn jvm() -> Result<&'static JavaVM, JvmUnavailable> {
    JVM.get_or_init(|| start(false))
        .as_ref()
        .map(|s| &s.vm)
        .map_err(Clone::clone)
}

/// The process's embedded JVM on the planner classpath ([`crate::jvm::planner_classpath`]:
/// Flink's planner classes themselves, so StreamFusion's planner extension can plan queries in
/// it), started on first call. An error if the process started its JVM without the planner.
pub fn planner_jvm() -> Result<&'static JavaVM, JvmUnavailable> {
    let started = JVM
        .get_or_init(|| start(true))
        .as_ref()
        .map_err(Clone::clone)?;
    if !started.planner {
        return Err(JvmUnavailable(
            "this process started its JVM without the planner classpath".into(),
        ));
    }
    Ok(&started.vm)
}

/// The JVM options [`jvm`] starts with, for classpath `classpath`.
pub fn jvm_options(classpath: &str) -> Vec<String> {
    let mut options = vec![
        INITIAL_HEAP.to_string(),
        MAX_HEAP.to_string(),
        "-Dfile.encoding=UTF-8".to_string(),
        "-Duser.timezone=UTC".to_string(),
        format!("-Djava.class.path={classpath}"),
    ];
    if std::env::var(CHECK_JNI_ENV).is_ok_and(|v| v == "1") {
        options.push("-Xcheck:jni".to_string());
    }
    options
}

fn start(planner: bool) -> Result<Started, JvmUnavailable> {
    let classpath = if planner {
        planner_classpath()?
    } else {
        released_classpath()?
    };
    let libjvm = libjvm_path()?;
    let mut args = InitArgsBuilder::new().version(JNIVersion::V1_8);
    for option in jvm_options(&classpath) {
        args = args.option(option);
    }
    let args = args
        .build()
        .map_err(|e| JvmUnavailable(format!("invalid JVM options: {e}")))?;
    let vm = JavaVM::with_libjvm(args, || Ok(libjvm.clone())).map_err(|e| {
        JvmUnavailable(format!(
            "cannot start the JVM from {}: {e}",
            libjvm.display()
        ))
    })?;
    Ok(Started { vm, planner })
}

/// The JVM shared library: under `$JAVA_HOME` if set, else under the home of the `java` on
/// the `PATH` (symbolic links resolved).
pub fn libjvm_path() -> Result<PathBuf, JvmUnavailable> {
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        let home = PathBuf::from(home);
        return find_libjvm(&home).ok_or_else(|| {
            JvmUnavailable(format!(
                "JAVA_HOME={} holds no lib/server/libjvm.so; install a JDK 17+ or fix JAVA_HOME",
                home.display()
            ))
        });
    }
    let java = which("java").ok_or_else(|| {
        JvmUnavailable("no JDK: JAVA_HOME is unset and there is no `java` on the PATH".into())
    })?;
    let java = std::fs::canonicalize(&java)
        .map_err(|e| JvmUnavailable(format!("cannot resolve {}: {e}", java.display())))?;
    // <home>/bin/java
    let home = java
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| JvmUnavailable(format!("unexpected java path {}", java.display())))?;
    find_libjvm(home).ok_or_else(|| {
        JvmUnavailable(format!(
            "{} has no lib/server/libjvm.so (a JRE without the server VM?); set JAVA_HOME to a JDK",
            home.display()
        ))
    })
}

fn find_libjvm(home: &Path) -> Option<PathBuf> {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        other => other,
    };
    [
        home.join("lib/server/libjvm.so"),
        home.join("lib/server/libjvm.dylib"),
        home.join(format!("jre/lib/{arch}/server/libjvm.so")),
        home.join("jre/lib/server/libjvm.dylib"),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// A new Java `int[]` holding `values`.
pub fn int_array<'local>(
    env: &mut Env<'local>,
    values: &[i32],
) -> jni::errors::Result<JIntArray<'local>> {
    let array = JIntArray::new(env, values.len())?;
    array.set_region(env, 0, values)?;
    Ok(array)
}

/// A new Java `long[]` holding `values`.
pub fn long_array<'local>(
    env: &mut Env<'local>,
    values: &[i64],
) -> jni::errors::Result<JLongArray<'local>> {
    let array = JLongArray::new(env, values.len())?;
    array.set_region(env, 0, values)?;
    Ok(array)
}

/// The contents of a Java `long[]` returned as an object.
pub fn longs(env: &mut Env<'_>, array: JObject<'_>) -> jni::errors::Result<Vec<i64>> {
    let array = env.cast_local::<JLongArray>(array)?;
    let mut out = vec![0; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    Ok(out)
}

/// The contents of a Java `int[]` returned as an object (e.g. by `call_static_method`).
pub fn ints(env: &mut Env<'_>, array: JObject<'_>) -> jni::errors::Result<Vec<i32>> {
    let array = env.cast_local::<JIntArray>(array)?;
    let mut out = vec![0; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    Ok(out)
}

/// A Java `String` returned as an object, as a Rust string.
pub fn string(env: &mut Env<'_>, string: JObject<'_>) -> jni::errors::Result<String> {
    env.cast_local::<JString>(string)?.try_to_string(env)
}

/// A new Java `String[]` holding `values`.
pub fn string_array<'local>(
    env: &mut Env<'local>,
    values: &[&str],
) -> jni::errors::Result<JObjectArray<'local, JString<'local>>> {
    let array = JObjectArray::<JString>::new(env, values.len(), JString::null())?;
    for (i, value) in values.iter().enumerate() {
        let s = JString::from_str(env, value)?;
        array.set_element(env, i, &s)?;
        env.delete_local_ref(s);
    }
    Ok(array)
}

/// The released-Flink oracles of `java/src/org/streamfusion/parity/Oracles.java`, one JNI call
/// per batch. Every method returns what the released class named in its documentation
/// computes, or the JNI error (a Java exception arrives with its class, message and stack).
#[derive(Debug, Clone, Copy)]
pub struct FlinkOracles {
    vm: &'static JavaVM,
}

/// The JVM-side class holding the batched oracles.
pub const ORACLES_CLASS: &str = "org/streamfusion/parity/Oracles";

impl FlinkOracles {
    /// The oracles on the process's embedded JVM (started here if it is not yet: call this in
    /// set-up, never inside a timed region).
    pub fn new() -> Result<Self, JvmUnavailable> {
        jvm().map(|vm| Self { vm })
    }

    /// The JVM the oracles run on.
    pub fn vm(&self) -> &'static JavaVM {
        self.vm
    }

    /// `MathUtils.murmurHash(code)` for every code.
    pub fn murmur_hashes(&self, codes: &[i32]) -> jni::errors::Result<Vec<i32>> {
        self.ints_to_ints("murmurHashes", &[codes], &[])
    }

    /// `KeyGroupRangeAssignment.computeKeyGroupForKeyHash(hash, max_parallelism)` for every hash.
    pub fn key_groups_for_hashes(
        &self,
        hashes: &[i32],
        max_parallelism: i32,
    ) -> jni::errors::Result<Vec<i32>> {
        self.ints_to_ints("keyGroupsForHashes", &[hashes], &[max_parallelism])
    }

    /// `computeOperatorIndexForKeyGroup(max[i], parallelism[i], key_group[i])` for every `i`.
    pub fn operator_indices(
        &self,
        max: &[i32],
        parallelism: &[i32],
        key_group: &[i32],
    ) -> jni::errors::Result<Vec<i32>> {
        self.ints_to_ints("operatorIndices", &[max, parallelism, key_group], &[])
    }

    /// `computeKeyGroupRangeForOperatorIndex(max[i], parallelism[i], index[i])` as
    /// `(start, end)` (both inclusive) for every `i`.
    pub fn key_group_ranges(
        &self,
        max: &[i32],
        parallelism: &[i32],
        index: &[i32],
    ) -> jni::errors::Result<Vec<(i32, i32)>> {
        let flat = self.ints_to_ints("keyGroupRanges", &[max, parallelism, index], &[])?;
        Ok(flat.chunks_exact(2).map(|r| (r[0], r[1])).collect())
    }

    /// `computeDefaultMaxParallelism(p)` for every parallelism.
    pub fn default_max_parallelisms(&self, parallelism: &[i32]) -> jni::errors::Result<Vec<i32>> {
        self.ints_to_ints("defaultMaxParallelisms", &[parallelism], &[])
    }

    /// `BinaryRowData.hashCode()` of every row `data[offsets[i]..offsets[i + 1]]` of `arity`
    /// fields.
    pub fn hash_rows(
        &self,
        data: &[u8],
        offsets: &[usize],
        arity: usize,
    ) -> jni::errors::Result<Vec<i32>> {
        self.rows_to_ints("hashRows", "([B[II)[I", data, offsets, &[arity_int(arity)?])
    }

    /// `KeyGroupRangeAssignment.assignToKeyGroup(row, max_parallelism)` of every row.
    pub fn key_groups_of_rows(
        &self,
        data: &[u8],
        offsets: &[usize],
        arity: usize,
        max_parallelism: i32,
    ) -> jni::errors::Result<Vec<i32>> {
        self.rows_to_ints(
            "keyGroupsOfRows",
            "([B[III)[I",
            data,
            offsets,
            &[arity_int(arity)?, max_parallelism],
        )
    }

    /// Every row's kind and field values as the released `BinaryRowData` getters read them,
    /// one `kind|field0|field1|...` line per row; `types` are spelled as `Oracles.describeRows`
    /// documents (`BIGINT`, `STRING`, `DECIMAL:p:s`, `TIMESTAMP:p`, ...).
    pub fn describe_rows(
        &self,
        data: &[u8],
        offsets: &[usize],
        types: &[&str],
    ) -> jni::errors::Result<Vec<String>> {
        let offsets = java_offsets(offsets)?;
        self.vm.attach_current_thread(|env| {
            let data = env.byte_array_from_slice(data)?;
            let offsets = int_array(env, &offsets)?;
            let types = string_array(env, types)?;
            let out = call_oracle(
                env,
                "describeRows",
                "([B[I[Ljava/lang/String;)Ljava/lang/String;",
                &[
                    JValue::from(&data),
                    JValue::from(&offsets),
                    JValue::from(&types),
                ],
            )?;
            Ok(string(env, out)?.lines().map(str::to_string).collect())
        })
    }

    /// `DecimalDataUtils.<op>(a[i], b[i], precision, scale)` (`op` is `add`, `subtract`,
    /// `multiply`, `divide` or `mod`) with `a` of type `DECIMAL(p1, s1)` and `b` of
    /// `DECIMAL(p2, s2)`, all as plain decimal text: one result per pair, its plain text,
    /// `null` for Flink's NULL on overflow, or `error:<exception class>`.
    #[allow(clippy::too_many_arguments)]
    pub fn decimal_arithmetic(
        &self,
        op: &str,
        a: &[&str],
        b: &[&str],
        (p1, s1): (i32, i32),
        (p2, s2): (i32, i32),
        (precision, scale): (i32, i32),
    ) -> jni::errors::Result<Vec<String>> {
        self.vm.attach_current_thread(|env| {
            let op = JString::from_str(env, op)?;
            let a = string_array(env, a)?;
            let b = string_array(env, b)?;
            let out = call_oracle(
                env,
                "decimalArithmetic",
                "(Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/String;IIIIII)Ljava/lang/String;",
                &[
                    JValue::from(&op),
                    JValue::from(&a),
                    JValue::from(&b),
                    JValue::Int(p1),
                    JValue::Int(s1),
                    JValue::Int(p2),
                    JValue::Int(s2),
                    JValue::Int(precision),
                    JValue::Int(scale),
                ],
            )?;
            Ok(string(env, out)?.lines().map(str::to_string).collect())
        })
    }

    /// `TimeWindow.getWindowStartWithOffset(ts[i], offset[i], size[i])` for every `i`.
    pub fn window_starts(
        &self,
        ts: &[i64],
        offset: &[i64],
        size: &[i64],
    ) -> jni::errors::Result<Vec<i64>> {
        self.vm.attach_current_thread(|env| {
            let (ts, offset, size) = (
                long_array(env, ts)?,
                long_array(env, offset)?,
                long_array(env, size)?,
            );
            let out = call_oracle(
                env,
                "windowStarts",
                "([J[J[J)[J",
                &[
                    JValue::from(&ts),
                    JValue::from(&offset),
                    JValue::from(&size),
                ],
            )?;
            longs(env, out)
        })
    }

    /// The windows the released `kind` (`TUMBLE`, `HOP`, `CUMULATE`) assigner of `size`,
    /// `slide` (HOP's slide, CUMULATE's step) and `offset` gives each timestamp, as
    /// `(start, end)` pairs in Flink's order.
    pub fn assign_windows(
        &self,
        kind: &str,
        size: i64,
        slide: i64,
        offset: i64,
        ts: &[i64],
    ) -> jni::errors::Result<Vec<Vec<(i64, i64)>>> {
        let flat = self.vm.attach_current_thread(|env| {
            let kind = JString::from_str(env, kind)?;
            let ts = long_array(env, ts)?;
            let out = call_oracle(
                env,
                "assignWindows",
                "(Ljava/lang/String;JJJ[J)[J",
                &[
                    JValue::from(&kind),
                    JValue::Long(size),
                    JValue::Long(slide),
                    JValue::Long(offset),
                    JValue::from(&ts),
                ],
            )?;
            longs(env, out)
        })?;
        let mut windows = Vec::with_capacity(ts.len());
        let mut rest = flat.as_slice();
        while let Some((&n, tail)) = rest.split_first() {
            let (pairs, tail) = tail.split_at(2 * n as usize);
            windows.push(pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect());
            rest = tail;
        }
        Ok(windows)
    }

    /// `CAST(value AS target)` by Flink's string cast helpers (`target` is `INT`, `BIGINT` or
    /// `DECIMAL:p:s`): per value its result text, or `error:<class>: <message>`.
    pub fn cast_strings(&self, target: &str, values: &[&str]) -> jni::errors::Result<Vec<String>> {
        self.vm.attach_current_thread(|env| {
            let target = JString::from_str(env, target)?;
            let values = string_array(env, values)?;
            let out = call_oracle(
                env,
                "castStrings",
                "(Ljava/lang/String;[Ljava/lang/String;)Ljava/lang/String;",
                &[JValue::from(&target), JValue::from(&values)],
            )?;
            Ok(string(env, out)?.lines().map(str::to_string).collect())
        })
    }

    /// `SqlFunctionUtils.struncate(x[i], n[i])` (TRUNCATE of a DOUBLE) for every `i`.
    pub fn truncate_doubles(&self, x: &[f64], n: &[i32]) -> jni::errors::Result<Vec<f64>> {
        self.vm.attach_current_thread(|env| {
            let xs = JDoubleArray::new(env, x.len())?;
            xs.set_region(env, 0, x)?;
            let ns = int_array(env, n)?;
            let out = call_oracle(
                env,
                "truncateDoubles",
                "([D[I)[D",
                &[JValue::from(&xs), JValue::from(&ns)],
            )?;
            let out = env.cast_local::<JDoubleArray>(out)?;
            let mut values = vec![0.0; out.len(env)?];
            out.get_region(env, 0, &mut values)?;
            Ok(values)
        })
    }

    fn ints_to_ints(
        &self,
        name: &str,
        arrays: &[&[i32]],
        scalars: &[i32],
    ) -> jni::errors::Result<Vec<i32>> {
        let sig = format!(
            "({}{})[I",
            "[I".repeat(arrays.len()),
            "I".repeat(scalars.len())
        );
        self.vm.attach_current_thread(|env| {
            let arrays = arrays
                .iter()
                .map(|values| int_array(env, values))
                .collect::<jni::errors::Result<Vec<_>>>()?;
            let args: Vec<JValue> = arrays
                .iter()
                .map(JValue::from)
                .chain(scalars.iter().map(|&i| JValue::Int(i)))
                .collect();
            let out = call_oracle(env, name, &sig, &args)?;
            ints(env, out)
        })
    }

    fn rows_to_ints(
        &self,
        name: &str,
        sig: &str,
        data: &[u8],
        offsets: &[usize],
        scalars: &[i32],
    ) -> jni::errors::Result<Vec<i32>> {
        let offsets = java_offsets(offsets)?;
        self.vm.attach_current_thread(|env| {
            let data = env.byte_array_from_slice(data)?;
            let offsets = int_array(env, &offsets)?;
            let args: Vec<JValue> = [JValue::from(&data), JValue::from(&offsets)]
                .into_iter()
                .chain(scalars.iter().map(|&i| JValue::Int(i)))
                .collect();
            let out = call_oracle(env, name, sig, &args)?;
            ints(env, out)
        })
    }
}

fn too_large() -> jni::errors::Error {
    jni::errors::Error::JniCall(jni::errors::JniError::InvalidArguments)
}

fn arity_int(arity: usize) -> jni::errors::Result<i32> {
    i32::try_from(arity).map_err(|_| too_large())
}

/// Row offsets as a Java `int[]` (row buffers handed to Java stay below 2 GiB).
fn java_offsets(offsets: &[usize]) -> jni::errors::Result<Vec<i32>> {
    offsets
        .iter()
        .map(|&o| i32::try_from(o).map_err(|_| too_large()))
        .collect()
}

/// Calls the static `Oracles.<name>` with JNI signature `sig` and returns its result object.
fn call_oracle<'local>(
    env: &mut Env<'local>,
    name: &str,
    sig: &str,
    args: &[JValue],
) -> jni::errors::Result<JObject<'local>> {
    let sig = RuntimeMethodSignature::from_str(sig)?;
    env.call_static_method(
        JNIString::new(ORACLES_CLASS),
        JNIString::new(name),
        sig.method_signature(),
        args,
    )?
    .l()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_carry_heap_encoding_zone_and_classpath() {
        let options = jvm_options("a.jar:b");
        for expected in [
            "-Xms128m",
            "-Xmx512m",
            "-Dfile.encoding=UTF-8",
            "-Duser.timezone=UTC",
            "-Djava.class.path=a.jar:b",
        ] {
            assert!(options.iter().any(|o| o == expected), "{options:?}");
        }
    }

    #[test]
    fn a_home_without_libjvm_has_none() {
        let dir = std::env::temp_dir().join("sf-no-jdk-here");
        assert_eq!(find_libjvm(&dir), None);
    }
}
