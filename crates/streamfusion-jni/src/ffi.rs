//! THE wrapper around every JNI export.
//!
//! Every `Java_org_streamfusion_jni_NativeOperator_*` function is one call to [`entry`], whose
//! body returns a [`Result`]. [`entry`] runs the body under [`std::panic::catch_unwind`]; an
//! `Err` or a caught panic becomes a pending Java exception of the class
//! [`NativeError::java_class`] names, carrying the native message, and the export returns the
//! type's default (`0`, `null`), which Java never sees because the exception is thrown on
//! return. Nothing unwinds across the FFI boundary. A Java exception already pending (raised by
//! a JNI call the body made) is left to propagate unchanged.
//!
//! The exception class is loaded by the class loader of the class that declared the native
//! method (`NativeOperator`), so the `NativeStateException` thrown is the very class the Java
//! caller names, even where a Flink user-code class loader holds another copy of it. Should
//! that class be missing, the message still reaches Java as a `RuntimeException`.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use jni::errors::ThrowRuntimeExAndDefault;
use jni::objects::JClass;
use jni::refs::LoaderContext;
use jni::strings::JNIString;
use jni::{Env, EnvUnowned};

use crate::error::{NativeError, RUNTIME, Result};

/// Runs `body` for a JNI export declared by `caller`: returns its value, or throws its error
/// (or panic) as a Java exception and returns `T::default()`.
pub fn entry<'local, T, F>(unowned: &mut EnvUnowned<'local>, caller: &JClass<'local>, body: F) -> T
where
    T: Default,
    F: FnOnce(&mut Env<'local>) -> Result<T>,
{
    unowned
        .with_env(|env| -> Result<T> {
            let outcome = catch_unwind(AssertUnwindSafe(|| body(&mut *env)));
            match outcome {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(error)) => {
                    throw(env, caller, &error);
                    Ok(T::default())
                }
                Err(payload) => {
                    throw(env, caller, &NativeError::Panic(panic_message(payload)));
                    Ok(T::default())
                }
            }
        })
        // Only reached if throwing itself panicked: `jni` then throws a RuntimeException.
        .resolve::<ThrowRuntimeExAndDefault>()
}

/// Makes `error` the pending Java exception, unless one is pending already: its class as
/// `caller`'s class loader sees it, else as the default lookup finds it, else
/// `RuntimeException`.
fn throw(env: &mut Env<'_>, caller: &JClass<'_>, error: &NativeError) {
    if env.exception_check() {
        return;
    }
    let name = error.java_class();
    let message = JNIString::new(error.to_string());
    let by_caller = match loaded_by(env, caller, name) {
        Ok(class) => threw(env.throw_new(&class, &message)),
        Err(_) => false,
    };
    if by_caller {
        return;
    }
    env.exception_clear();
    if threw(env.throw_new(JNIString::new(name), &message)) {
        return;
    }
    env.exception_clear();
    // A failure to throw leaves nothing better to do: the export still returns its default.
    let _ = env.throw_new(JNIString::new(RUNTIME), &message);
}

/// Whether a `throw_new` made its exception pending (`jni` reports that as `JavaException`).
fn threw(result: jni::errors::Result<()>) -> bool {
    matches!(result, Err(jni::errors::Error::JavaException))
}

/// The class `name` (JNI binary name) as the class loader of `caller` loads it.
fn loaded_by<'local>(
    env: &mut Env<'local>,
    caller: &JClass<'_>,
    name: &str,
) -> jni::errors::Result<JClass<'local>> {
    let loader = caller.get_class_loader(env)?;
    let binary_name = JNIString::new(name.replace('/', "."));
    LoaderContext::Loader(&loader).load_class(env, binary_name, false)
}

/// The message of a panic payload (`panic!` with a literal or a formatted string).
fn panic_message(payload: Box<dyn Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => match payload.downcast::<&'static str>() {
            Ok(message) => (*message).to_string(),
            Err(payload) => {
                // Dropping an arbitrary payload may itself panic; leak it instead.
                std::mem::forget(payload);
                "non-string panic payload".to_string()
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_messages_are_recovered_from_literal_and_formatted_payloads() {
        let literal = catch_unwind(|| panic!("boom")).unwrap_err();
        assert_eq!(panic_message(literal), "boom");
        let formatted = catch_unwind(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(panic_message(formatted), "boom 7");
        let other = catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert_eq!(panic_message(other), "non-string panic payload");
    }
}
