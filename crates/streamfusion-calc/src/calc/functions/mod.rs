//! The scalar function families of the [`super::registry`], one module per opcode range.

pub mod arithmetic;
pub mod collection;
mod collection_kernels;
mod collection_sort;
pub mod comparison;
mod decimal;
pub mod hash;
pub mod interval;
mod java_chars;
/// Java's number text (parse and print), shared with the formats crate.
pub mod java_format;
pub mod java_regex;
pub mod json;
pub mod json_string;
pub mod math;
mod math_fdlibm;
pub mod string;
pub mod string_codec;
pub mod string_edit;
pub mod string_regexp;
pub mod string_search;
pub mod string_similar;
pub mod temporal;
/// Calendar arithmetic, Java's hybrid Julian/Gregorian calendar included (shared with the
/// formats crate).
pub mod temporal_calendar;
mod temporal_format;
pub(crate) mod temporal_values;
mod util;
pub mod value;
