//! The async runtime of a native task thread.
//!
//! iceberg-rust's reader, table scan and catalog are async and spawn on an
//! [`iceberg::Runtime`]. A Flink task calls into native code on its own thread, so each such
//! thread gets one current-thread tokio runtime, created on first use and kept for the
//! thread's life: never one per batch, and never a pool of threads competing with Flink's.
//! Tasks spawned on a current-thread runtime run only inside `block_on`, which is enough here
//! because the reader awaits everything it spawns inside the stream it returns.
//!
//! The write path needs no runtime: [`crate::data_file_writer`] writes with parquet-rs
//! synchronously and publishes through iceberg's memory or local storage, whose futures finish
//! on their first poll.

use std::future::Future;
use std::rc::Rc;

use crate::error::{IcebergError, Result};

/// One thread's tokio runtime and the iceberg handle onto it.
pub struct TaskRuntime {
    tokio: tokio::runtime::Runtime,
    iceberg: iceberg::Runtime,
}

impl TaskRuntime {
    /// A current-thread runtime with timers (a catalog commit retries with `tokio::time`).
    pub fn new() -> Result<Self> {
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(IcebergError::Runtime)?;
        let iceberg = iceberg::Runtime::new(&tokio);
        Ok(Self { tokio, iceberg })
    }

    /// This thread's runtime, created on first use.
    pub fn current() -> Result<Rc<Self>> {
        thread_local! {
            static RUNTIME: std::cell::OnceCell<Rc<TaskRuntime>> = const { std::cell::OnceCell::new() };
        }
        RUNTIME.with(|cell| {
            if let Some(runtime) = cell.get() {
                return Ok(Rc::clone(runtime));
            }
            let runtime = Rc::new(Self::new()?);
            Ok(Rc::clone(cell.get_or_init(|| runtime)))
        })
    }

    /// The handle iceberg-rust's builders take (`ArrowReaderBuilder::new`, catalogs).
    pub fn iceberg(&self) -> iceberg::Runtime {
        self.iceberg.clone()
    }

    /// Runs `future` to completion on this runtime.
    ///
    /// Must not be called from inside another tokio runtime (tokio panics there); JNI task
    /// threads never are.
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.tokio.block_on(future)
    }
}

impl std::fmt::Debug for TaskRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRuntime").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_runtime_per_thread_and_spawned_tasks_complete() {
        let a = TaskRuntime::current().unwrap();
        let b = TaskRuntime::current().unwrap();
        assert!(Rc::ptr_eq(&a, &b));
        let handle = a.iceberg();
        let sum = a.block_on(async move { handle.io().spawn(async { 20 + 22 }).await });
        assert_eq!(sum.unwrap(), 42);
        let other = std::thread::spawn(|| {
            let c = TaskRuntime::current().unwrap();
            Rc::as_ptr(&c) as usize
        })
        .join()
        .unwrap();
        assert_ne!(other, Rc::as_ptr(&a) as usize);
    }

    #[test]
    fn timers_work_for_commit_retries() {
        let runtime = TaskRuntime::new().unwrap();
        // A timer created inside the runtime, as a commit's retry backoff creates it.
        runtime.block_on(async { tokio::time::sleep(std::time::Duration::from_millis(1)).await });
    }
}
