//! The JVM as the host of a native Calc's upcalls.
//!
//! Java binds an `org.streamfusion.jni.Upcalls` object to an operator
//! (`NativeOperator.bindUpcalls`). Each upcall hands it one batch: the argument columns written
//! as `BinaryRowData` rows by the bridge's transpose, in a `byte[]` with `int[]` offsets
//! (`Object[] evaluate(int index, byte[] data, int[] offsets)`), and reads its answer, one
//! single-field row per argument row in the same shape, back into an Arrow column. The call
//! runs on the task thread inside the JNI call that pushed the batch, so the thread is
//! attached already. A Java exception is cleared and comes back as the upcall's error, with
//! its class and message; the JVM stays usable.

use std::sync::Arc;

use arrow::array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow::datatypes::{Field, Schema};
use jni::objects::{JByteArray, JIntArray, JObject, JObjectArray};
use jni::refs::Global;
use jni::signature::RuntimeMethodSignature;
use jni::strings::JNIString;
use jni::{Env, JValue, JavaVM};
use streamfusion::calc::UpcallHost;
use streamfusion::changelog::ChangelogBatch;
use streamfusion::types::LogicalType;
use streamfusion_bridge::transpose::{changelog_to_rows, rows_to_changelog};

use crate::error::{NativeError, Result};
use crate::exports::{ints_arg, rows_arrays, rows_bytes_arg};
use crate::operator::Rows;

/// The Java method every upcall calls.
const EVALUATE: &str = "evaluate";
const EVALUATE_SIGNATURE: &str = "(I[B[I)[Ljava/lang/Object;";

/// The JVM object that evaluates an operator's upcalls.
#[derive(Debug)]
pub struct JvmUpcalls {
    vm: JavaVM,
    target: Global<JObject<'static>>,
}

impl JvmUpcalls {
    /// The host calling `target`'s `evaluate`.
    pub fn new(env: &mut Env<'_>, target: &JObject<'_>) -> Result<Arc<Self>> {
        if target.is_null() {
            return Err(NativeError::InvalidArgument("upcalls is null".into()));
        }
        Ok(Arc::new(Self {
            vm: env.get_java_vm()?,
            target: env.new_global_ref(target)?,
        }))
    }

    /// Hands `rows` to upcall `index`; its answer rows, or the Java exception's text.
    fn call(&self, index: usize, rows: &Rows) -> std::result::Result<Rows, String> {
        let index = i32::try_from(index).map_err(|_| format!("upcall {index} out of range"))?;
        let outcome = self.vm.attach_current_thread(|env| -> Result<_> {
            env.with_local_frame(8, |env| -> Result<_> {
                let (data, offsets) = rows_arrays(env, rows)?;
                let signature = RuntimeMethodSignature::from_str(EVALUATE_SIGNATURE)?;
                let answer = env.call_method(
                    &self.target,
                    JNIString::new(EVALUATE),
                    signature.method_signature(),
                    &[
                        JValue::Int(index),
                        JValue::Object(&data),
                        JValue::Object(&offsets),
                    ],
                );
                let answer = match answer {
                    Ok(value) => value.l()?,
                    Err(jni::errors::Error::JavaException) => {
                        return Ok(Err(java_exception(env)));
                    }
                    Err(e) => return Err(e.into()),
                };
                if answer.is_null() {
                    return Ok(Err("evaluate returned null".to_string()));
                }
                let answer = env.cast_local::<JObjectArray>(answer)?;
                let data = answer.get_element(env, 0)?;
                let data = env.cast_local::<JByteArray>(data)?;
                let offsets = answer.get_element(env, 1)?;
                let offsets = env.cast_local::<JIntArray>(offsets)?;
                let offsets = ints_arg(env, &offsets, "the upcall's offsets")?;
                let data = rows_bytes_arg(env, &data, offsets.last().copied())?;
                Ok(Ok(Rows { data, offsets }))
            })
        });
        match outcome {
            Ok(answer) => answer,
            Err(e) => Err(format!("the JVM call failed: {e}")),
        }
    }
}

/// The pending Java exception as `Class: message` (its `toString`), cleared.
fn java_exception(env: &mut Env<'_>) -> String {
    let Some(throwable) = env.exception_occurred() else {
        return "a Java exception".into();
    };
    env.exception_clear();
    let text = RuntimeMethodSignature::from_str("()Ljava/lang/String;")
        .and_then(|sig| {
            env.call_method(
                &throwable,
                JNIString::new("toString"),
                sig.method_signature(),
                &[],
            )
        })
        .and_then(|v| v.l())
        .and_then(|s| env.cast_local::<jni::objects::JString>(s))
        .and_then(|s| s.try_to_string(env));
    env.exception_clear();
    text.unwrap_or_else(|_| "a Java exception whose text could not be read".into())
}

impl UpcallHost for JvmUpcalls {
    fn evaluate(
        &self,
        index: usize,
        args: &[ArrayRef],
        arg_types: &[LogicalType],
        ty: &LogicalType,
        rows: usize,
    ) -> std::result::Result<ArrayRef, String> {
        let schema = Schema::new(
            args.iter()
                .enumerate()
                .map(|(i, a)| Field::new(format!("a{i}"), a.data_type().clone(), true))
                .collect::<Vec<_>>(),
        );
        let batch = RecordBatch::try_new_with_options(
            Arc::new(schema),
            args.to_vec(),
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| e.to_string())?;
        let (data, offsets) = changelog_to_rows(&ChangelogBatch::insert_only(batch), arg_types)
            .map_err(|e| e.to_string())?;
        let answer = self.call(index, &Rows { data, offsets })?;
        if answer.offsets.len() != rows + 1 {
            return Err(format!(
                "{} answer offsets for {rows} argument rows",
                answer.offsets.len()
            ));
        }
        let column = rows_to_changelog(&answer.data, &answer.offsets, std::slice::from_ref(ty))
            .map_err(|e| format!("the answer rows do not read as {ty}: {e}"))?;
        Ok(Arc::clone(column.batch().column(0)))
    }
}
