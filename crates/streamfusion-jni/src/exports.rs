//! The JNI entry points of `org.streamfusion.jni.NativeOperator`.
//!
//! Every export is one call to [`crate::ffi::entry`] (panics caught, errors thrown as Java
//! exceptions) and reaches its operator only through [`crate::handles`]. Argument conversion
//! lives here; the work is [`crate::operator::Operator`]'s.

use jni::objects::{JByteArray, JClass, JIntArray, JObject, JObjectArray, JString};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

use crate::error::{NativeError, Result};
use crate::ffi::entry;
use crate::handles;
use crate::operator::{Operator, Plan, Rows};

/// `static native long create(String plan)`: a new operator for a JSON plan.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_create<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    plan: JString<'local>,
) -> jlong {
    entry(&mut env, |env| {
        if plan.is_null() {
            return Err(NativeError::InvalidArgument("plan is null".into()));
        }
        let plan = Plan::parse(&plan.try_to_string(env)?)?;
        Ok(handles::insert(Operator::new(plan)))
    })
}

/// `static native Object[] push(long handle, byte[] data, int[] offsets)`: the output rows as
/// `Object[] { byte[] data, int[] offsets }`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_push<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data: JByteArray<'local>,
    offsets: JIntArray<'local>,
) -> JObjectArray<'local> {
    entry(&mut env, |env| {
        let data = bytes_arg(env, &data, "data")?;
        let offsets = ints_arg(env, &offsets, "offsets")?;
        let rows = handles::with_operator(handle, |op| op.push(&data, &offsets))?;
        rows_result(env, &rows)
    })
}

/// `static native void advanceWatermark(long handle, long watermark)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_advanceWatermark<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    watermark: jlong,
) {
    entry(&mut env, |_env| {
        handles::with_operator(handle, |op| {
            op.advance_watermark(watermark);
            Ok(())
        })
    })
}

/// `static native Object[] flush(long handle)`: pending output, shaped like `push`'s.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_flush<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> JObjectArray<'local> {
    entry(&mut env, |env| {
        let rows = handles::with_operator(handle, |op| Ok(op.flush()))?;
        rows_result(env, &rows)
    })
}

/// `static native byte[] snapshot(long handle)`: the operator's versioned snapshot.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_snapshot<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> JByteArray<'local> {
    entry(&mut env, |env| {
        let snapshot = handles::with_operator(handle, |op| Ok(op.snapshot()))?;
        Ok(env.byte_array_from_slice(&snapshot)?)
    })
}

/// `static native long restore(byte[] snapshot)`: a new operator from a snapshot.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_restore<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    snapshot: JByteArray<'local>,
) -> jlong {
    entry(&mut env, |env| {
        let snapshot = bytes_arg(env, &snapshot, "snapshot")?;
        Ok(handles::insert(Operator::restore(&snapshot)?))
    })
}

/// `static native void close(long handle)`: releases the operator; the handle is dead after.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_close<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    entry(&mut env, |_env| handles::remove(handle))
}

/// `static native int liveOperators()`: how many handles are open (for leak checks).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_liveOperators<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
) -> jint {
    entry(&mut env, |_env| Ok(handles::live() as jint))
}

/// `static native void panicForTesting(String message)`: panics with `message`, so tests can
/// prove that a native panic reaches Java as a `RuntimeException` and the JVM carries on.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_streamfusion_jni_NativeOperator_panicForTesting<'local>(
    mut env: EnvUnowned<'local>,
    _class: JClass<'local>,
    message: JString<'local>,
) {
    entry(&mut env, |env| -> Result<()> {
        let message = if message.is_null() {
            String::from("null")
        } else {
            message.try_to_string(env)?
        };
        panic!("{message}")
    })
}

fn bytes_arg(env: &mut Env<'_>, array: &JByteArray<'_>, name: &str) -> Result<Vec<u8>> {
    if array.is_null() {
        return Err(NativeError::InvalidArgument(format!("{name} is null")));
    }
    Ok(env.convert_byte_array(array)?)
}

fn ints_arg(env: &mut Env<'_>, array: &JIntArray<'_>, name: &str) -> Result<Vec<i32>> {
    if array.is_null() {
        return Err(NativeError::InvalidArgument(format!("{name} is null")));
    }
    let mut out = vec![0; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    Ok(out)
}

/// `Object[] { byte[] data, int[] offsets }`.
fn rows_result<'local>(env: &mut Env<'local>, rows: &Rows) -> Result<JObjectArray<'local>> {
    let data = env.byte_array_from_slice(&rows.data)?;
    let offsets = JIntArray::new(env, rows.offsets.len())?;
    offsets.set_region(env, 0, &rows.offsets)?;
    let out = JObjectArray::<JObject>::new(env, 2, JObject::null())?;
    out.set_element(env, 0, &data)?;
    out.set_element(env, 1, &offsets)?;
    Ok(out)
}
