//! The scalar function families of the [`super::registry`], one module per opcode range.

pub mod arithmetic;
pub mod comparison;
mod decimal;
pub mod hash;
pub(crate) mod java_format;
pub mod math;
mod math_fdlibm;
pub mod string;
mod util;
