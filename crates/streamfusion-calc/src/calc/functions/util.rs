//! Shared pieces of the function kernels.

use arrow::array::ArrayRef;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::logical_expr::ColumnarValue;

/// Every argument as an array of `rows` values (scalars repeated).
pub fn arrays(args: &[ColumnarValue], rows: usize) -> DfResult<Vec<ArrayRef>> {
    args.iter().map(|a| a.to_array(rows)).collect()
}

/// The evaluation error Flink's job would fail with.
pub fn fail(message: impl Into<String>) -> DataFusionError {
    DataFusionError::Execution(message.into())
}

/// The result of a kernel over arrays: a scalar when every argument was one.
pub fn result(args: &[ColumnarValue], array: ArrayRef) -> DfResult<ColumnarValue> {
    if args.iter().all(|a| matches!(a, ColumnarValue::Scalar(_))) && array.len() == 1 {
        Ok(ColumnarValue::Scalar(
            datafusion::common::ScalarValue::try_from_array(&array, 0)?,
        ))
    } else {
        Ok(ColumnarValue::Array(array))
    }
}
