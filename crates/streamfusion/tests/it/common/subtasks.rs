//! An operator plan run as a keyed job runs it: subtasks owning the key groups Flink assigns
//! them, started at parallelism 1 on fresh state of one backend, fed rows routed by their
//! keys' key groups, and checkpointed all together and restored at another parallelism
//! (aligned or rescaled).

use streamfusion::changelog::ChangelogBatch;
use streamfusion::ops::{Operator, OperatorPlan, Output, StateConfig};
use streamfusion::state::checkpoint::Checkpoint;
use tempfile::TempDir;

use super::{Backend, key_group_ranges, route};

pub struct Subtasks {
    /// The running subtasks, in the order of their key-group ranges.
    pub ops: Vec<Box<dyn Operator>>,
    plan: OperatorPlan,
    backend: Backend,
    max_parallelism: u32,
    /// How many operators have been opened (each RocksDB one in a directory of its own).
    opened: usize,
    /// How many times the subtasks have been checkpointed.
    checkpointed: usize,
    /// Where RocksDB state and checkpoints live; declared after `ops`, so dropped after them.
    dir: TempDir,
}

impl Subtasks {
    /// `plan` at parallelism 1, its state on `backend`.
    pub fn new(plan: OperatorPlan, backend: Backend, max_parallelism: u32) -> Self {
        let mut subtasks = Subtasks {
            ops: Vec::new(),
            plan,
            backend,
            max_parallelism,
            opened: 0,
            checkpointed: 0,
            dir: tempfile::tempdir().unwrap(),
        };
        subtasks.ops = key_group_ranges(max_parallelism, 1)
            .into_iter()
            .map(|r| {
                let state = subtasks.state();
                subtasks.plan.build(&state, Some(r)).unwrap()
            })
            .collect();
        subtasks
    }

    /// Fresh state for the next operator opened.
    fn state(&mut self) -> StateConfig {
        self.opened += 1;
        match self.backend {
            Backend::Memory => StateConfig::memory(),
            Backend::Rocks => {
                StateConfig::rocksdb(self.dir.path().join(format!("db{}", self.opened)))
            }
        }
    }

    /// `batch`'s rows (an INT key in column 0) to the subtasks that own their keys' key
    /// groups.
    pub fn process(&mut self, batch: &ChangelogBatch, out: &mut Output) {
        self.process_on(0, batch, out);
    }

    /// [`Subtasks::process`] on input `port` (a join's left or right).
    pub fn process_on(&mut self, port: usize, batch: &ChangelogBatch, out: &mut Output) {
        let parts = route(batch, self.ops.len(), self.max_parallelism);
        for (op, part) in self.ops.iter_mut().zip(parts) {
            if let Some(part) = part {
                op.process(port, &part, out).unwrap();
            }
        }
    }

    /// The watermark `w` to every subtask.
    pub fn advance_watermark(&mut self, w: i64, out: &mut Output) {
        for op in &mut self.ops {
            op.advance_watermark(w, out).unwrap();
        }
    }

    /// The end of input to every subtask.
    pub fn flush(&mut self, out: &mut Output) {
        for op in &mut self.ops {
            op.flush(out).unwrap();
        }
    }

    /// Checkpoints every subtask (what `prepare_checkpoint` emits goes to `out`) and
    /// replaces them by `parallelism` subtasks restored from all their checkpoints.
    pub fn restore(&mut self, parallelism: u32, out: &mut Output) {
        self.checkpointed += 1;
        let mut checkpoints = Vec::new();
        for (i, op) in self.ops.iter_mut().enumerate() {
            op.prepare_checkpoint(out).unwrap();
            let target = self
                .dir
                .path()
                .join(format!("ckpt-{}-{i}", self.checkpointed));
            let published = op.checkpoint(&target).unwrap();
            checkpoints.push(Checkpoint::open(published.path()).unwrap());
        }
        self.ops = key_group_ranges(self.max_parallelism, parallelism)
            .into_iter()
            .map(|r| {
                let state = self.state();
                self.plan.restore(&state, Some(r), &checkpoints).unwrap()
            })
            .collect();
    }
}
