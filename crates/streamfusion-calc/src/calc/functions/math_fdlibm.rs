//! fdlibm's `exp` and `expm1`, bit for bit: Java's `StrictMath` (and so `Math.sinh`, `cosh`
//! and `tanh`, which delegate to it) uses them, and they are not always correctly rounded
//! (`StrictMath.exp(1)` is 2.7182818284590455), so the C library's results differ.
//!
//! The constants are fdlibm's decimal text, kept verbatim.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

fn high(x: f64) -> i32 {
    (x.to_bits() >> 32) as i32
}

/// `y × 2^k` by adding `k` to the exponent field, as fdlibm does.
fn add_exponent(y: f64, k: i32) -> f64 {
    f64::from_bits(y.to_bits().wrapping_add(((i64::from(k)) << 52) as u64))
}

fn from_high(hw: i32) -> f64 {
    f64::from_bits((hw as u32 as u64) << 32)
}

const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
const INV_LN2: f64 = 1.442_695_040_888_963_387_00e+00;
const O_THRESHOLD: f64 = 7.097_827_128_933_839_730_96e+02;
const HUGE: f64 = 1.0e300;

/// fdlibm `__ieee754_exp` (`e_exp.c`).
pub fn exp(x: f64) -> f64 {
    const U_THRESHOLD: f64 = -7.451_332_191_019_411_084_20e+02;
    const TWOM1000: f64 = 9.332_636_185_032_188_789_90e-302;
    const P1: f64 = 1.666_666_666_666_660_190_37e-01;
    const P2: f64 = -2.777_777_777_701_559_338_42e-03;
    const P3: f64 = 6.613_756_321_437_934_361_17e-05;
    const P4: f64 = -1.653_390_220_546_525_153_90e-06;
    const P5: f64 = 4.138_136_797_057_238_460_39e-08;
    let hx0 = high(x);
    let xsb = ((hx0 >> 31) & 1) as usize;
    let hx = hx0 & 0x7fff_ffff;
    if hx >= 0x4086_2e42 {
        if hx >= 0x7ff0_0000 {
            return if x.is_nan() {
                x + x
            } else if xsb == 0 {
                x
            } else {
                0.0
            };
        }
        if x > O_THRESHOLD {
            return f64::INFINITY;
        }
        if x < U_THRESHOLD {
            return 0.0;
        }
    }
    let (mut x, mut hi, mut lo, k) = (x, 0.0, 0.0, 0i32);
    let k = if hx > 0x3fd6_2e42 {
        let k = if hx < 0x3ff0_a2b2 {
            hi = x - [LN2_HI, -LN2_HI][xsb];
            lo = [LN2_LO, -LN2_LO][xsb];
            1 - 2 * xsb as i32
        } else {
            let k = (INV_LN2 * x + [0.5, -0.5][xsb]) as i32;
            let t = f64::from(k);
            hi = x - t * LN2_HI;
            lo = t * LN2_LO;
            k
        };
        x = hi - lo;
        k
    } else if hx < 0x3e30_0000 {
        return 1.0 + x;
    } else {
        k
    };
    let t = x * x;
    let c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    if k == 0 {
        return 1.0 - ((x * c) / (c - 2.0) - x);
    }
    let y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi);
    if k >= -1021 {
        add_exponent(y, k)
    } else {
        add_exponent(y, k + 1000) * TWOM1000
    }
}

/// fdlibm `expm1` (`s_expm1.c`).
pub fn expm1(x: f64) -> f64 {
    const Q1: f64 = -3.333_333_333_333_313_164_28e-02;
    const Q2: f64 = 1.587_301_587_254_814_601_65e-03;
    const Q3: f64 = -7.936_507_578_674_879_424_73e-05;
    const Q4: f64 = 4.008_217_827_329_362_395_52e-06;
    const Q5: f64 = -2.010_992_181_836_243_713_26e-07;
    let hx0 = high(x);
    let negative = hx0 < 0;
    let hx = hx0 & 0x7fff_ffff;
    if hx >= 0x4043_687a {
        if hx >= 0x4086_2e42 {
            if hx >= 0x7ff0_0000 {
                return if x.is_nan() {
                    x + x
                } else if negative {
                    -1.0
                } else {
                    x
                };
            }
            if x > O_THRESHOLD {
                return f64::INFINITY;
            }
        }
        if negative {
            return -1.0;
        }
    }
    let mut x = x;
    let mut c = 0.0;
    let k: i32 = if hx > 0x3fd6_2e42 {
        let (hi, lo, k) = if hx < 0x3ff0_a2b2 {
            if negative {
                (x + LN2_HI, -LN2_LO, -1)
            } else {
                (x - LN2_HI, LN2_LO, 1)
            }
        } else {
            let k = (INV_LN2 * x + if negative { -0.5 } else { 0.5 }) as i32;
            let t = f64::from(k);
            (x - t * LN2_HI, t * LN2_LO, k)
        };
        x = hi - lo;
        c = (hi - x) - lo;
        k
    } else if hx < 0x3c90_0000 {
        let t = HUGE + x;
        return x - (t - (HUGE + x));
    } else {
        0
    };
    let hfx = 0.5 * x;
    let hxs = x * hfx;
    let r1 = 1.0 + hxs * (Q1 + hxs * (Q2 + hxs * (Q3 + hxs * (Q4 + hxs * Q5))));
    let t = 3.0 - r1 * hfx;
    let mut e = hxs * ((r1 - t) / (6.0 - x * t));
    if k == 0 {
        return x - (x * e - hxs);
    }
    e = x * (e - c) - c;
    e -= hxs;
    if k == -1 {
        return 0.5 * (x - e) - 0.5;
    }
    if k == 1 {
        return if x < -0.25 {
            -2.0 * (e - (x + 0.5))
        } else {
            1.0 + 2.0 * (x - e)
        };
    }
    if k <= -2 || k > 56 {
        let y = 1.0 - (e - x);
        return add_exponent(y, k) - 1.0;
    }
    if k < 20 {
        let t = from_high(0x3ff0_0000 - (0x0020_0000 >> k));
        add_exponent(t - (e - x), k)
    } else {
        let t = from_high((0x3ff - k) << 20);
        add_exponent(x - (e + t) + 1.0, k)
    }
}

const ATAN_HI: [f64; 4] = [
    4.636_476_090_008_060_935_15e-01,
    7.853_981_633_974_482_789_99e-01,
    9.827_937_232_473_290_540_82e-01,
    1.570_796_326_794_896_558_00e+00,
];
const ATAN_LO: [f64; 4] = [
    2.269_877_745_296_168_709_24e-17,
    3.061_616_997_868_383_017_93e-17,
    1.390_331_103_123_099_845_16e-17,
    6.123_233_995_736_766_035_87e-17,
];
const AT: [f64; 11] = [
    3.333_333_333_333_293_180_27e-01,
    -1.999_999_999_987_648_324_76e-01,
    1.428_571_427_250_346_637_11e-01,
    -1.111_111_040_546_235_578_80e-01,
    9.090_887_133_436_506_561_96e-02,
    -7.691_876_205_044_829_994_95e-02,
    6.661_073_137_387_531_206_69e-02,
    -5.833_570_133_790_573_486_45e-02,
    4.976_877_994_615_932_360_17e-02,
    -3.653_157_274_421_691_552_70e-02,
    1.628_582_011_536_578_236_23e-02,
];

/// `StrictMath.atan` (fdlibm `s_atan.c`), which `Math.atan` delegates to: the C library's
/// `atan` can differ in the last digit.
pub fn atan(x: f64) -> f64 {
    let hx = high(x);
    let ix = hx & 0x7fff_ffff;
    if ix >= 0x4410_0000 {
        // |x| >= 2^66, or NaN.
        if x.is_nan() {
            return x + x;
        }
        return if hx > 0 {
            ATAN_HI[3] + ATAN_LO[3]
        } else {
            -ATAN_HI[3] - ATAN_LO[3]
        };
    }
    let (id, x) = if ix < 0x3fdc_0000 {
        // |x| < 0.4375; below 2^-29 atan(x) rounds to x.
        if ix < 0x3e20_0000 {
            return x;
        }
        (None, x)
    } else {
        let x = x.abs();
        if ix < 0x3ff3_0000 {
            if ix < 0x3fe6_0000 {
                (Some(0), (2.0 * x - 1.0) / (2.0 + x))
            } else {
                (Some(1), (x - 1.0) / (x + 1.0))
            }
        } else if ix < 0x4003_8000 {
            (Some(2), (x - 1.5) / (1.0 + 1.5 * x))
        } else {
            (Some(3), -1.0 / x)
        }
    };
    let z = x * x;
    let w = z * z;
    let s1 = z * (AT[0] + w * (AT[2] + w * (AT[4] + w * (AT[6] + w * (AT[8] + w * AT[10])))));
    let s2 = w * (AT[1] + w * (AT[3] + w * (AT[5] + w * (AT[7] + w * AT[9]))));
    match id {
        None => x - x * (s1 + s2),
        Some(id) => {
            let z = ATAN_HI[id] - ((x * (s1 + s2) - ATAN_LO[id]) - x);
            if hx < 0 { -z } else { z }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atan_matches_java_math_atan_bit_for_bit() {
        // Printed by `Math.atan` on JDK 17 (`Double.doubleToRawLongBits`), one value in each
        // reduction interval and on their edges.
        let cases: [(f64, u64); 18] = [
            (std::f64::consts::PI, 0x3ff433b8a322ddd2),
            (0.1, 0x3fb983e282e2cc4d),
            (-0.3, 0xbfd2a73a661eaf06),
            (0.5, 0x3fddac670561bb4f),
            (0.7, 0x3fe38b112d7bd4ad),
            (-1.0, 0xbfe921fb54442d18),
            (1.2, 0x3fec08aae496efa6),
            (2.0, 0x3ff1b6e192ebbe44),
            (-2.4, 0xbff2d0ead6066396),
            (3.0, 0x3ff3fc176b7a8560),
            (10.0, 0x3ff789bd2c160054),
            (1e20, 0x3ff921fb54442d18),
            (-1e300, 0xbff921fb54442d18),
            (1e-10, 0x3ddb7cdfd9d7bdbb),
            (0.4375, 0x3fda64eec3cc23fd),
            (1.1875, 0x3febde70ed439fe7),
            (2.4375, 0x3ff2e75728833a54),
            (0.6875, 0x3fe345f01cce37bb),
        ];
        for (x, bits) in cases {
            assert_eq!(atan(x).to_bits(), bits, "atan({x})");
        }
        assert!(atan(f64::NAN).is_nan());
    }

    #[test]
    fn matches_strict_math() {
        // StrictMath.exp(1) from Java 17; the correctly rounded value is ...045.
        assert_eq!(exp(1.0), 2.718_281_828_459_045_5);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(710.0), f64::INFINITY);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(expm1(0.0), 0.0);
        assert_eq!(expm1(-1000.0), -1.0);
        // StrictMath.expm1 / exp printed by Java 17.
        for (x, m1, e) in [
            (1e-10, 1.00000000005e-10, 1.0000000001),
            (0.3, 0.349_858_807_576_003_1, 1.349_858_807_576_003_2),
            (-0.7, -0.503_414_696_208_590_5, 0.496_585_303_791_409_5),
            (1.0, 1.718_281_828_459_045, 2.718_281_828_459_045_5),
            (5.0, 147.413_159_102_576_6, 148.413_159_102_576_6),
            (
                40.0,
                2.353_852_668_370_199_68e17,
                2.353_852_668_370_199_68e17,
            ),
            (-40.0, -1.0, 4.248_354_255_291_589e-18),
        ] {
            assert_eq!(expm1(x), m1, "expm1 {x}");
            assert_eq!(exp(x), e, "exp {x}");
        }
    }
}
