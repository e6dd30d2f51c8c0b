//! The JNI entry points of `org.streamfusion.jni.NativeOperator`.
//!
//! Every export is one call to [`crate::ffi::entry`] (panics caught, errors thrown as Java
//! exceptions) and reaches its operator only through [`crate::handles`]. Argument conversion
//! lives here; the work is [`crate::operator::HostedOperator`]'s.

use std::path::PathBuf;

use jni::objects::{JByteArray, JClass, JIntArray, JObject, JObjectArray, JString};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

use crate::error::{NativeError, Result};
use crate::ffi::entry;
use crate::handles;
use crate::operator::{HostedOperator, Rows};
use crate::upcalls::JvmUpcalls;

/// `static native long create(String plan, String runtime)`: a new operator for a JSON plan
/// under JSON runtime settings (`null` for the defaults).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_create<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    plan: JString<'local>,
    runtime: JString<'local>,
) -> jlong {
    entry(&mut env, &class, |env| {
        let plan = string_arg(env, &plan, "plan")?;
        let runtime = optional_string_arg(env, &runtime)?;
        let operator = HostedOperator::create(&plan, runtime.as_deref())?;
        Ok(handles::insert(operator))
    })
}

/// `static native String planFromFlink(String nodeJson, String configJson)`: the native plan
/// (JSON, for `create`) of a Flink plan node, or a `NativePlanException` naming what Flink
/// feature stops it (`streamfusion::flink::plan_node`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_planFromFlink<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    node: JString<'local>,
    config: JString<'local>,
) -> JString<'local> {
    entry(&mut env, &class, |env| {
        let node = string_arg(env, &node, "nodeJson")?;
        let config = optional_string_arg(env, &config)?;
        let plan = streamfusion::flink::plan_node(&node, config.as_deref())?;
        Ok(JString::from_str(env, plan.to_json())?)
    })
}

/// `static native Object[] push(long handle, int input, byte[] data, int[] offsets)`: the
/// output rows as `Object[] { byte[] data, int[] offsets }`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_push<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
    input: jint,
    data: JByteArray<'local>,
    offsets: JIntArray<'local>,
) -> JObjectArray<'local> {
    entry(&mut env, &class, |env| {
        let port = usize::try_from(input)
            .map_err(|_| NativeError::InvalidArgument(format!("input {input} is negative")))?;
        let offsets = ints_arg(env, &offsets, "offsets")?;
        let data = rows_bytes_arg(env, &data, offsets.last().copied())?;
        let rows = handles::with_operator(handle, |op| op.push(port, &data, &offsets))?;
        rows_result(env, &rows)
    })
}

/// `static native void bindUpcalls(long handle, Upcalls upcalls)`: `upcalls` evaluates the
/// operator's upcalls from now on ([`crate::upcalls`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_bindUpcalls<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
    upcalls: JObject<'local>,
) {
    entry(&mut env, &class, |env| {
        let host = JvmUpcalls::new(env, &upcalls)?;
        handles::with_operator(handle, |op| op.bind_upcalls(host))
    })
}

/// `static native Object[] advanceWatermark(long handle, long watermark)`: what the
/// watermark made the operator emit, shaped like `push`'s.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_advanceWatermark<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
    watermark: jlong,
) -> JObjectArray<'local> {
    entry(&mut env, &class, |env| {
        let rows = handles::with_operator(handle, |op| op.advance_watermark(watermark))?;
        rows_result(env, &rows)
    })
}

/// `static native Object[] onProcessingTime(long handle, long time)`: what the
/// processing-time timers at or before `time` emitted, shaped like `push`'s.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_onProcessingTime<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
    time: jlong,
) -> JObjectArray<'local> {
    entry(&mut env, &class, |env| {
        let rows = handles::with_operator(handle, |op| op.on_processing_time(time))?;
        rows_result(env, &rows)
    })
}

/// `static native long nextProcessingTimer(long handle)`: when the operator's earliest
/// processing-time timer is due, `Long.MIN_VALUE` without any.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_nextProcessingTimer<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
) -> jlong {
    entry(&mut env, &class, |_| {
        let next = handles::with_operator(handle, HostedOperator::next_processing_timer)?;
        Ok(next.unwrap_or(i64::MIN))
    })
}

/// `static native Object[] flush(long handle)`: buffered output, shaped like `push`'s.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_flush<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
) -> JObjectArray<'local> {
    entry(&mut env, &class, |env| {
        let rows = handles::with_operator(handle, HostedOperator::flush)?;
        rows_result(env, &rows)
    })
}

/// `static native Object[] prepareSnapshot(long handle)`: Flink's
/// `prepareSnapshotPreBarrier`; the buffered output, shaped like `push`'s.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_prepareSnapshot<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
) -> JObjectArray<'local> {
    entry(&mut env, &class, |env| {
        let rows = handles::with_operator(handle, HostedOperator::prepare_snapshot)?;
        rows_result(env, &rows)
    })
}

/// `static native void snapshot(long handle, String directory)`: publishes the operator's
/// checkpoint at `directory`, which must not exist yet.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_snapshot<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
    directory: JString<'local>,
) {
    entry(&mut env, &class, |env| {
        let directory = PathBuf::from(string_arg(env, &directory, "directory")?);
        handles::with_operator(handle, |op| op.snapshot(&directory))
    })
}

/// `static native long restore(String plan, String runtime, String[] checkpointDirectories)`:
/// a new operator restored from published checkpoints.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_restore<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    plan: JString<'local>,
    runtime: JString<'local>,
    checkpoint_directories: JObjectArray<'local, JString<'local>>,
) -> jlong {
    entry(&mut env, &class, |env| {
        let plan = string_arg(env, &plan, "plan")?;
        let runtime = optional_string_arg(env, &runtime)?;
        let directories = strings_arg(env, &checkpoint_directories, "checkpointDirectories")?;
        let operator = HostedOperator::restore(&plan, runtime.as_deref(), &directories)?;
        Ok(handles::insert(operator))
    })
}

/// `static native Object[] snapshotKeyGroups(long handle)`: the operator's state as raw
/// keyed state, `Object[] { byte[] data, int[] offsets, int[] keyGroups }`: section `i` is
/// `data[offsets[i]..offsets[i + 1])`, of key group `keyGroups[i]`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_snapshotKeyGroups<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
) -> JObjectArray<'local> {
    entry(&mut env, &class, |env| {
        let sections = handles::with_operator(handle, HostedOperator::snapshot_sections)?;
        let (data, offsets) = rows_arrays(env, &sections.rows)?;
        let groups = JIntArray::new(env, sections.key_groups.len())?;
        groups.set_region(env, 0, &sections.key_groups)?;
        let out = JObjectArray::<JObject>::new(env, 3, JObject::null())?;
        out.set_element(env, 0, &data)?;
        out.set_element(env, 1, &offsets)?;
        out.set_element(env, 2, &groups)?;
        Ok(out)
    })
}

/// `static native long restoreKeyGroups(String plan, String runtime, byte[] data, int[]
/// offsets)`: a new operator restored from key-group sections (section `i` is
/// `data[offsets[i]..offsets[i + 1])`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_restoreKeyGroups<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    plan: JString<'local>,
    runtime: JString<'local>,
    data: JByteArray<'local>,
    offsets: JIntArray<'local>,
) -> jlong {
    entry(&mut env, &class, |env| {
        let plan = string_arg(env, &plan, "plan")?;
        let runtime = optional_string_arg(env, &runtime)?;
        let offsets = ints_arg(env, &offsets, "offsets")?;
        let data = rows_bytes_arg(env, &data, offsets.last().copied())?;
        let sections = slices(&data, &offsets)?;
        let operator = HostedOperator::restore_sections(&plan, runtime.as_deref(), &sections)?;
        Ok(handles::insert(operator))
    })
}

/// `static native void close(long handle)`: releases the operator; the handle is dead after.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_close<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    handle: jlong,
) {
    entry(&mut env, &class, |_env| handles::remove(handle))
}

/// `static native int liveOperators()`: how many handles are open (for leak checks).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_liveOperators<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
) -> jint {
    entry(&mut env, &class, |_env| Ok(handles::live() as jint))
}

/// `static native void panicForTesting(String message)`: panics with `message`, so tests can
/// prove that a native panic reaches Java as a `RuntimeException` and the JVM carries on.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_panicForTesting<'local>(
    mut env: EnvUnowned<'local>,
    class: JClass<'local>,
    message: JString<'local>,
) {
    entry(&mut env, &class, |env| -> Result<()> {
        let message = optional_string_arg(env, &message)?.unwrap_or_else(|| "null".into());
        panic!("{message}")
    })
}

fn string_arg(env: &mut Env<'_>, string: &JString<'_>, name: &str) -> Result<String> {
    optional_string_arg(env, string)?
        .ok_or_else(|| NativeError::InvalidArgument(format!("{name} is null")))
}

fn optional_string_arg(env: &mut Env<'_>, string: &JString<'_>) -> Result<Option<String>> {
    if string.is_null() {
        return Ok(None);
    }
    Ok(Some(string.try_to_string(env)?))
}

/// A `String[]` whose elements must not be null either.
fn strings_arg(
    env: &mut Env<'_>,
    array: &JObjectArray<'_, JString<'_>>,
    name: &str,
) -> Result<Vec<String>> {
    if array.is_null() {
        return Err(NativeError::InvalidArgument(format!("{name} is null")));
    }
    let len = array.len(env)?;
    let mut out = Vec::with_capacity(len);
    for i in 0..len {
        let element = array.get_element(env, i)?;
        let value = optional_string_arg(env, &element)?;
        env.delete_local_ref(element);
        out.push(
            value.ok_or_else(|| NativeError::InvalidArgument(format!("{name}[{i}] is null")))?,
        );
    }
    Ok(out)
}

/// The bytes of `data` the rows use: up to the last offset, as a Java operator reuses one
/// buffer larger than its bundle. A last offset outside the array takes the whole array, so
/// the row reader reports the bad offset.
pub(crate) fn rows_bytes_arg(
    env: &mut Env<'_>,
    array: &JByteArray<'_>,
    end: Option<i32>,
) -> Result<Vec<u8>> {
    if array.is_null() {
        return Err(NativeError::InvalidArgument("data is null".into()));
    }
    let len = array.len(env)?;
    let used = end
        .and_then(|end| usize::try_from(end).ok())
        .filter(|&end| end <= len)
        .unwrap_or(len);
    let mut bytes = vec![0i8; used];
    array.get_region(env, 0, &mut bytes)?;
    Ok(bytes.into_iter().map(|b| b as u8).collect())
}

/// `data` cut at `offsets` (ascending, starting anywhere within it).
fn slices<'a>(data: &'a [u8], offsets: &[i32]) -> Result<Vec<&'a [u8]>> {
    offsets
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let range = usize::try_from(w[0]).ok().zip(usize::try_from(w[1]).ok());
            match range {
                Some((start, end)) if start <= end && end <= data.len() => Ok(&data[start..end]),
                _ => Err(NativeError::InvalidArgument(format!(
                    "offsets[{i}..={}] = [{}, {}] is not a range within {} bytes",
                    i + 1,
                    w[0],
                    w[1],
                    data.len()
                ))),
            }
        })
        .collect()
}

pub(crate) fn ints_arg(env: &mut Env<'_>, array: &JIntArray<'_>, name: &str) -> Result<Vec<i32>> {
    if array.is_null() {
        return Err(NativeError::InvalidArgument(format!("{name} is null")));
    }
    let mut out = vec![0; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    Ok(out)
}

/// `rows` as a `byte[]` and an `int[]`.
pub(crate) fn rows_arrays<'local>(
    env: &mut Env<'local>,
    rows: &Rows,
) -> Result<(JByteArray<'local>, JIntArray<'local>)> {
    let data = env.byte_array_from_slice(&rows.data)?;
    let offsets = JIntArray::new(env, rows.offsets.len())?;
    offsets.set_region(env, 0, &rows.offsets)?;
    Ok((data, offsets))
}

/// `Object[] { byte[] data, int[] offsets }`.
fn rows_result<'local>(env: &mut Env<'local>, rows: &Rows) -> Result<JObjectArray<'local>> {
    let (data, offsets) = rows_arrays(env, rows)?;
    let out = JObjectArray::<JObject>::new(env, 2, JObject::null())?;
    out.set_element(env, 0, &data)?;
    out.set_element(env, 1, &offsets)?;
    Ok(out)
}
