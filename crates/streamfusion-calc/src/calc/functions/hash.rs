//! Hash functions (opcodes 500–549): lowercase hex digests of the UTF-8 bytes, as Flink's
//! `BinaryStringDataUtil.hash` (NULL for a NULL argument).
//!
//! Result types are `FlinkSqlOperatorTable`'s: `MD5` `CHAR(32)`, `SHA1` `CHAR(40)`, `SHA224`
//! `CHAR(56)`, `SHA256` `CHAR(64)`, `SHA384` `CHAR(96)`, `SHA512` `CHAR(128)`, `SHA2`
//! `VARCHAR(128)`.

use std::sync::Arc;

use arrow::array::{Array, AsArray, StringBuilder};
use datafusion::common::ScalarValue;
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::ColumnarValue;
use md5::{Digest, Md5};
use sha2::{Sha224, Sha256, Sha384, Sha512};

use crate::calc::coercion::{is_integer, is_string};
use crate::calc::registry::{Args, Arity, Bound, FunctionDef, Kernel};
use crate::types::LogicalType;

use super::util::{fail, result};

/// `MD5(s)`: 32 lowercase hex digits.
pub const MD5: u16 = 500;
/// `SHA1(s)`: 40 lowercase hex digits.
pub const SHA1: u16 = 501;
/// `SHA224(s)`: 56 lowercase hex digits.
pub const SHA224: u16 = 502;
/// `SHA256(s)`: 64 lowercase hex digits.
pub const SHA256: u16 = 503;
/// `SHA384(s)`: 96 lowercase hex digits.
pub const SHA384: u16 = 504;
/// `SHA512(s)`: 128 lowercase hex digits.
pub const SHA512: u16 = 505;
/// `SHA2(s, bits)`: SHA-224/256/384/512; `bits` must be an integer literal of those (Flink's
/// code generator requires a literal and fails the job for any other value).
pub const SHA2: u16 = 506;

/// The family's functions.
pub const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef {
        opcode: MD5,
        name: "MD5",
        arity: Arity::Exact(1),
        bind: |a| bind_hash(a, "MD5", Algorithm::Md5),
    },
    FunctionDef {
        opcode: SHA1,
        name: "SHA1",
        arity: Arity::Exact(1),
        bind: |a| bind_hash(a, "SHA1", Algorithm::Sha1),
    },
    FunctionDef {
        opcode: SHA224,
        name: "SHA224",
        arity: Arity::Exact(1),
        bind: |a| bind_hash(a, "SHA224", Algorithm::Sha224),
    },
    FunctionDef {
        opcode: SHA256,
        name: "SHA256",
        arity: Arity::Exact(1),
        bind: |a| bind_hash(a, "SHA256", Algorithm::Sha256),
    },
    FunctionDef {
        opcode: SHA384,
        name: "SHA384",
        arity: Arity::Exact(1),
        bind: |a| bind_hash(a, "SHA384", Algorithm::Sha384),
    },
    FunctionDef {
        opcode: SHA512,
        name: "SHA512",
        arity: Arity::Exact(1),
        bind: |a| bind_hash(a, "SHA512", Algorithm::Sha512),
    },
    FunctionDef {
        opcode: SHA2,
        name: "SHA2",
        arity: Arity::Exact(2),
        bind: bind_sha2,
    },
];

/// A digest algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Algorithm {
    /// Digest length in bytes.
    fn len(self) -> usize {
        match self {
            Algorithm::Md5 => 16,
            Algorithm::Sha1 => 20,
            Algorithm::Sha224 => 28,
            Algorithm::Sha256 => 32,
            Algorithm::Sha384 => 48,
            Algorithm::Sha512 => 64,
        }
    }

    /// Writes the digest of `data` to `out[..self.len()]`.
    fn digest(self, data: &[u8], out: &mut [u8; 64]) {
        let n = self.len();
        match self {
            Algorithm::Md5 => out[..n].copy_from_slice(&Md5::digest(data)),
            Algorithm::Sha1 => out[..n].copy_from_slice(&sha1(data)),
            Algorithm::Sha224 => out[..n].copy_from_slice(&Sha224::digest(data)),
            Algorithm::Sha256 => out[..n].copy_from_slice(&Sha256::digest(data)),
            Algorithm::Sha384 => out[..n].copy_from_slice(&Sha384::digest(data)),
            Algorithm::Sha512 => out[..n].copy_from_slice(&Sha512::digest(data)),
        }
    }
}

fn bind_hash(args: &Args<'_>, name: &'static str, algorithm: Algorithm) -> Result<Bound, String> {
    if !is_string(&args.types[0]) {
        return Err(format!(
            "the argument must be a string, not {}",
            args.types[0]
        ));
    }
    let result_type = LogicalType::Char(2 * algorithm.len() as u32);
    Ok(Bound {
        args: args.types.to_vec(),
        result: result_type.clone(),
        kernel: Kernel::function(name, &result_type, move |args, rows| {
            hash(&args[..1], args, rows, algorithm)
        }),
    })
}

fn bind_sha2(args: &Args<'_>) -> Result<Bound, String> {
    if !is_string(&args.types[0]) {
        return Err(format!(
            "the first argument must be a string, not {}",
            args.types[0]
        ));
    }
    if !is_integer(&args.types[1]) {
        return Err(format!(
            "the bit length must be an integer literal, not {}",
            args.types[1]
        ));
    }
    let bits = match args.literal(1) {
        None => return Err("the bit length must be a literal".into()),
        Some(v) if v.is_null() => return Err("the bit length must not be NULL".into()),
        Some(v) => v.to_string(),
    };
    let algorithm = match bits.as_str() {
        "224" => Algorithm::Sha224,
        "256" => Algorithm::Sha256,
        "384" => Algorithm::Sha384,
        "512" => Algorithm::Sha512,
        other => {
            return Err(format!(
                "unsupported bit length {other}: SHA2 takes 224, 256, 384 or 512"
            ));
        }
    };
    let result_type = LogicalType::VarChar(128);
    Ok(Bound {
        args: args.types.to_vec(),
        result: result_type.clone(),
        kernel: Kernel::function("SHA2", &result_type, move |args, rows| {
            hash(&args[..1], args, rows, algorithm)
        }),
    })
}

/// Hex digests of `input[0]`'s values; `all` (every argument) decides scalar-ness.
fn hash(
    input: &[ColumnarValue],
    all: &[ColumnarValue],
    rows: usize,
    algorithm: Algorithm,
) -> DfResult<ColumnarValue> {
    let mut digest = [0u8; 64];
    let mut hex_buf = [0u8; 128];
    let n = algorithm.len();
    let mut one = |s: &str, out: &mut StringBuilder| -> DfResult<()> {
        algorithm.digest(s.as_bytes(), &mut digest);
        hex::encode_to_slice(&digest[..n], &mut hex_buf[..2 * n])
            .map_err(|e| fail(format!("hex encoding: {e}")))?;
        // Hex digits are ASCII.
        out.append_value(std::str::from_utf8(&hex_buf[..2 * n]).unwrap_or_default());
        Ok(())
    };
    match &input[0] {
        ColumnarValue::Scalar(
            ScalarValue::Utf8(s) | ScalarValue::LargeUtf8(s) | ScalarValue::Utf8View(s),
        ) => {
            let mut out = StringBuilder::with_capacity(1, 2 * n);
            match s {
                Some(s) => one(s, &mut out)?,
                None => out.append_null(),
            }
            let array = Arc::new(out.finish());
            if all.iter().all(|a| matches!(a, ColumnarValue::Scalar(_))) {
                result(all, array)
            } else {
                let scalar = ScalarValue::try_from_array(array.as_ref(), 0)?;
                Ok(ColumnarValue::Array(scalar.to_array_of_size(rows)?))
            }
        }
        ColumnarValue::Array(a) => {
            let strings = a
                .as_string_opt::<i32>()
                .ok_or_else(|| fail(format!("expected a Utf8 array, found {}", a.data_type())))?;
            let mut out = StringBuilder::with_capacity(strings.len(), strings.len() * 2 * n);
            for s in strings.iter() {
                match s {
                    Some(s) => one(s, &mut out)?,
                    None => out.append_null(),
                }
            }
            Ok(ColumnarValue::Array(Arc::new(out.finish())))
        }
        ColumnarValue::Scalar(s) => Err(fail(format!(
            "expected a Utf8 value, found {}",
            s.data_type()
        ))),
    }
}

/// SHA-1 of `data`.
fn sha1(data: &[u8]) -> [u8; 20] {
    sha1::Sha1::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    use arrow::array::{ArrayRef, RecordBatch, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    use crate::calc::program::{CalcProgram, Expr};
    use crate::calc::{CalcError, compile};
    use crate::changelog::ChangelogBatch;

    const STRING: LogicalType = LogicalType::VarChar(i32::MAX as u32);

    /// Runs `op(input[0] [, extra])` over one STRING column through the compiler.
    fn run(
        op: u16,
        extra: Vec<Expr>,
        values: &[Option<&str>],
    ) -> (LogicalType, Vec<Option<String>>) {
        let mut args = vec![Expr::input(0)];
        args.extend(extra);
        let calc = compile(&CalcProgram::project(vec![Expr::call(op, args)]), &[STRING]).unwrap();
        let column: ArrayRef = Arc::new(StringArray::from(values.to_vec()));
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
        let batch = RecordBatch::try_new(schema, vec![column]).unwrap();
        let out = calc.evaluate(&ChangelogBatch::insert_only(batch)).unwrap();
        let col = out.batch().column(0).as_string::<i32>().clone();
        (
            calc.output_types()[0].clone(),
            col.iter().map(|v| v.map(str::to_owned)).collect(),
        )
    }

    fn one(op: u16, value: &str) -> String {
        run(op, vec![], &[Some(value)]).1[0].clone().unwrap()
    }

    #[test]
    fn digests_match_published_test_vectors() {
        // RFC 1321, FIPS 180-2 / NIST example values (what Java's MessageDigest gives).
        assert_eq!(one(MD5, ""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(one(MD5, "abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(one(SHA1, ""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(one(SHA1, "abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            one(
                SHA1,
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            ),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
        assert_eq!(
            one(SHA224, "abc"),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
        );
        assert_eq!(
            one(SHA256, "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            one(SHA384, "abc"),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed\
             8086072ba1e7cc2358baeca134c825a7"
        );
        assert_eq!(
            one(SHA512, "abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
             2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        );
        // "The quick brown fox jumps over the lazy dog": the well-known SHA-1.
        assert_eq!(
            one(SHA1, "The quick brown fox jumps over the lazy dog"),
            "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"
        );
    }

    #[test]
    fn sha1_pads_across_block_boundaries() {
        // One million 'a' (FIPS 180 long-message vector); 55/56/64-byte inputs cross padding.
        let million = "a".repeat(1_000_000);
        assert_eq!(
            hex::encode(sha1(million.as_bytes())),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        );
        // `openssl sha1` of 56 and 64 'a's.
        assert_eq!(
            hex::encode(sha1("a".repeat(56).as_bytes())),
            "c2db330f6083854c99d4b5bfb6e8f29f201be699"
        );
        assert_eq!(
            hex::encode(sha1("a".repeat(64).as_bytes())),
            "0098ba824b5c16427bd7a1122a5a442a25ec644d"
        );
    }

    #[test]
    fn result_types_nulls_and_utf8_bytes() {
        let (ty, out) = run(SHA256, vec![], &[None, Some("ß")]);
        assert_eq!(ty, LogicalType::Char(64));
        assert_eq!(out[0], None);
        // SHA-256 of the UTF-8 bytes C3 9F (`printf 'ß' | sha256sum`; Java hashes the same).
        assert_eq!(
            out[1].as_deref(),
            Some("cd3a7e92a9114307055e4a0583acd6549ec3bb6d7c10ecc6ce11ae3d76b3d7db")
        );
        // A non-BMP character: its four UTF-8 bytes (`hashlib.md5('😀'.encode())`).
        assert_eq!(one(MD5, "😀"), "2a02eac39d716a70ecf37579185927b6");
        assert_eq!(run(MD5, vec![], &[None]).0, LogicalType::Char(32));
        assert_eq!(run(SHA1, vec![], &[None]).0, LogicalType::Char(40));
        assert_eq!(run(SHA224, vec![], &[None]).0, LogicalType::Char(56));
        assert_eq!(run(SHA384, vec![], &[None]).0, LogicalType::Char(96));
        assert_eq!(run(SHA512, vec![], &[None]).0, LogicalType::Char(128));
    }

    #[test]
    fn sha2_takes_a_literal_bit_length() {
        let (ty, out) = run(
            SHA2,
            vec![Expr::lit(LogicalType::Int, "256")],
            &[Some("abc"), None],
        );
        assert_eq!(ty, LogicalType::VarChar(128));
        assert_eq!(
            out,
            vec![
                Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into()),
                None
            ]
        );
        let (_, out) = run(
            SHA2,
            vec![Expr::lit(LogicalType::Int, "224")],
            &[Some("abc")],
        );
        assert_eq!(
            out[0].as_deref(),
            Some("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
        );
        for bits in ["1", "160", "0"] {
            let program = CalcProgram::project(vec![Expr::call(
                SHA2,
                vec![Expr::input(0), Expr::lit(LogicalType::Int, bits)],
            )]);
            let err = compile(&program, &[STRING]).unwrap_err();
            assert!(matches!(err, CalcError::ArgumentTypes { .. }), "{err:?}");
            assert!(err.to_string().contains("unsupported bit length"), "{err}");
        }
        let program =
            CalcProgram::project(vec![Expr::call(SHA2, vec![Expr::input(0), Expr::input(1)])]);
        let err = compile(&program, &[STRING, LogicalType::Int]).unwrap_err();
        assert!(err.to_string().contains("must be a literal"), "{err}");
    }
}
