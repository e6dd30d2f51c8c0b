//! fdlibm 5.3 ports, bit for bit: Java's `StrictMath` uses fdlibm, and `Math.asin`, `acos`,
//! `atan`, `atan2`, `sinh`, `cosh` and `tanh` delegate to it on JDK 17 (`sin`, `cos`, `tan`,
//! `exp`, `log`, `log10` and `pow` are HotSpot intrinsics there instead; JDK 25 on x86_64 adds
//! a `tanh` intrinsic that differs from `StrictMath.tanh`). fdlibm is not always
//! correctly rounded (`StrictMath.exp(1)` is 2.7182818284590455), so the C library's results
//! can differ in the last place.
//!
//! The constants are fdlibm's decimal text, kept verbatim; the code follows fdlibm's C source
//! (netlib fdlibm 5.3), whose notice is:
//!
//! Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//!
//! Developed at SunSoft, a Sun Microsystems, Inc. business.
//! Permission to use, copy, modify, and distribute this
//! software is freely granted, provided that this notice
//! is preserved.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

fn high(x: f64) -> i32 {
    (x.to_bits() >> 32) as i32
}

fn low(x: f64) -> u32 {
    x.to_bits() as u32
}

/// `x` with its low word cleared (fdlibm's `__LO(x) = 0`).
fn clear_low(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & 0xffff_ffff_0000_0000)
}

/// fdlibm's NaN for an argument out of the domain, `(x-x)/(x-x)`: the argument if it is a NaN,
/// else the hardware's default NaN.
#[allow(clippy::eq_op)]
fn domain_error(x: f64) -> f64 {
    (x - x) / (x - x)
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

const PIO2_HI: f64 = 1.570_796_326_794_896_558_00e+00;
const PIO2_LO: f64 = 6.123_233_995_736_766_035_87e-17;
const PS0: f64 = 1.666_666_666_666_666_574_15e-01;
const PS1: f64 = -3.255_658_186_224_009_154_05e-01;
const PS2: f64 = 2.012_125_321_348_629_258_81e-01;
const PS3: f64 = -4.005_553_450_067_941_140_27e-02;
const PS4: f64 = 7.915_349_942_898_145_321_76e-04;
const PS5: f64 = 3.479_331_075_960_211_675_70e-05;
const QS1: f64 = -2.403_394_911_734_414_218_78e+00;
const QS2: f64 = 2.020_945_760_233_505_694_71e+00;
const QS3: f64 = -6.882_839_716_054_532_930_30e-01;
const QS4: f64 = 7.703_815_055_590_193_527_91e-02;

/// fdlibm's rational approximation `R(t) = p/q` shared by `asin` and `acos`, as its numerator
/// `p` and denominator `q`.
fn asin_pq(t: f64) -> (f64, f64) {
    let p = t * (PS0 + t * (PS1 + t * (PS2 + t * (PS3 + t * (PS4 + t * PS5)))));
    let q = 1.0 + t * (QS1 + t * (QS2 + t * (QS3 + t * QS4)));
    (p, q)
}

/// fdlibm `__ieee754_asin` (`e_asin.c`).
pub fn asin(x: f64) -> f64 {
    const PIO4_HI: f64 = 7.853_981_633_974_482_789_99e-01;
    let hx = high(x);
    let ix = hx & 0x7fff_ffff;
    if ix >= 0x3ff0_0000 {
        // |x| >= 1: ±pi/2 at ±1, NaN beyond (and for NaN).
        if (ix - 0x3ff0_0000) as u32 | low(x) == 0 {
            return x * PIO2_HI + x * PIO2_LO;
        }
        return domain_error(x);
    }
    if ix < 0x3fe0_0000 {
        // |x| < 0.5; below 2^-27 asin(x) rounds to x.
        if ix < 0x3e40_0000 {
            return x;
        }
        let t = x * x;
        let (p, q) = asin_pq(t);
        let w = p / q;
        return x + x * w;
    }
    // 0.5 <= |x| < 1.
    let w = 1.0 - x.abs();
    let t = w * 0.5;
    let (p, q) = asin_pq(t);
    let s = t.sqrt();
    let t = if ix >= 0x3fef_3333 {
        // |x| > 0.975.
        let w = p / q;
        PIO2_HI - (2.0 * (s + s * w) - PIO2_LO)
    } else {
        let w = clear_low(s);
        let c = (t - w * w) / (s + w);
        let r = p / q;
        let p = 2.0 * s * r - (PIO2_LO - 2.0 * c);
        let q = PIO4_HI - 2.0 * w;
        PIO4_HI - (p - q)
    };
    if hx > 0 { t } else { -t }
}

/// fdlibm `__ieee754_acos` (`e_acos.c`).
pub fn acos(x: f64) -> f64 {
    const PI: f64 = 3.141_592_653_589_793_116_00e+00;
    let hx = high(x);
    let ix = hx & 0x7fff_ffff;
    if ix >= 0x3ff0_0000 {
        // |x| >= 1: 0 at 1, pi at -1, NaN beyond (and for NaN).
        if (ix - 0x3ff0_0000) as u32 | low(x) == 0 {
            return if hx > 0 { 0.0 } else { PI + 2.0 * PIO2_LO };
        }
        return domain_error(x);
    }
    if ix < 0x3fe0_0000 {
        // |x| < 0.5; up to 2^-57 acos(x) rounds to pi/2.
        if ix <= 0x3c60_0000 {
            return PIO2_HI + PIO2_LO;
        }
        let z = x * x;
        let (p, q) = asin_pq(z);
        let r = p / q;
        PIO2_HI - (x - (PIO2_LO - x * r))
    } else if hx < 0 {
        // -1 < x <= -0.5.
        let z = (1.0 + x) * 0.5;
        let (p, q) = asin_pq(z);
        let s = z.sqrt();
        let r = p / q;
        let w = r * s - PIO2_LO;
        PI - 2.0 * (s + w)
    } else {
        // 0.5 <= x < 1.
        let z = (1.0 - x) * 0.5;
        let s = z.sqrt();
        let df = clear_low(s);
        let c = (z - df * df) / (s + df);
        let (p, q) = asin_pq(z);
        let r = p / q;
        let w = r * s + c;
        2.0 * (df + w)
    }
}

/// fdlibm `__ieee754_atan2` (`e_atan2.c`): `atan2(y, x)`, as `StrictMath.atan2(y, x)`.
pub fn atan2(y: f64, x: f64) -> f64 {
    const TINY: f64 = 1.0e-300;
    const PI_O_4: f64 = 7.853_981_633_974_482_790_0e-01;
    const PI_O_2: f64 = 1.570_796_326_794_896_558_0e+00;
    const PI: f64 = 3.141_592_653_589_793_116_0e+00;
    const PI_LO: f64 = 1.224_646_799_147_353_177_2e-16;
    let (hx, lx) = (high(x), low(x));
    let (hy, ly) = (high(y), low(y));
    let ix = hx & 0x7fff_ffff;
    let iy = hy & 0x7fff_ffff;
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if (hx.wrapping_sub(0x3ff0_0000) as u32 | lx) == 0 {
        // x = 1.0.
        return atan(y);
    }
    // 2 × sign(x) + sign(y).
    let m = ((hy >> 31) & 1) | ((hx >> 30) & 2);
    if (iy as u32 | ly) == 0 {
        // y = ±0.
        return match m {
            0 | 1 => y,
            2 => PI + TINY,
            _ => -PI - TINY,
        };
    }
    if (ix as u32 | lx) == 0 {
        // x = ±0.
        return if hy < 0 {
            -PI_O_2 - TINY
        } else {
            PI_O_2 + TINY
        };
    }
    if ix == 0x7ff0_0000 {
        // x = ±Infinity.
        return if iy == 0x7ff0_0000 {
            match m {
                0 => PI_O_4 + TINY,
                1 => -PI_O_4 - TINY,
                2 => 3.0 * PI_O_4 + TINY,
                _ => -3.0 * PI_O_4 - TINY,
            }
        } else {
            match m {
                0 => 0.0,
                1 => -0.0,
                2 => PI + TINY,
                _ => -PI - TINY,
            }
        };
    }
    if iy == 0x7ff0_0000 {
        // y = ±Infinity.
        return if hy < 0 {
            -PI_O_2 - TINY
        } else {
            PI_O_2 + TINY
        };
    }
    // y/x, unless it is beyond 2^60 either way.
    let k = (iy - ix) >> 20;
    let z = if k > 60 {
        PI_O_2 + 0.5 * PI_LO
    } else if hx < 0 && k < -60 {
        0.0
    } else {
        atan((y / x).abs())
    };
    match m {
        0 => z,
        1 => -z,
        2 => PI - (z - PI_LO),
        _ => (z - PI_LO) - PI,
    }
}

/// The high word of `|x|`, as fdlibm's thresholds read it.
fn high_abs(x: f64) -> i32 {
    high(x) & 0x7fff_ffff
}

/// fdlibm `__ieee754_cosh` (`e_cosh.c`).
pub fn cosh(x: f64) -> f64 {
    let ix = high_abs(x);
    let a = x.abs();
    if ix >= 0x7ff0_0000 {
        return x * x;
    }
    if ix < 0x3fd6_2e43 {
        // |x| < ln2 / 2.
        let t = expm1(a);
        let w = 1.0 + t;
        if ix < 0x3c80_0000 {
            return w;
        }
        return 1.0 + (t * t) / (w + w);
    }
    if ix < 0x4036_0000 {
        // |x| < 22.
        let t = exp(a);
        return 0.5 * t + 0.5 / t;
    }
    if ix < 0x4086_2e42 {
        // |x| < log(Double.MAX_VALUE).
        return 0.5 * exp(a);
    }
    if a.to_bits() <= 0x4086_33ce_8fb9_f87d {
        // Up to the overflow threshold.
        let w = exp(0.5 * a);
        let t = 0.5 * w;
        return t * w;
    }
    f64::INFINITY
}

/// fdlibm `__ieee754_sinh` (`e_sinh.c`).
pub fn sinh(x: f64) -> f64 {
    let ix = high_abs(x);
    if ix >= 0x7ff0_0000 {
        return x + x;
    }
    let h = if high(x) < 0 { -0.5 } else { 0.5 };
    let a = x.abs();
    if ix < 0x4036_0000 {
        // |x| < 22; below 2^-28 sinh(x) rounds to x.
        if ix < 0x3e30_0000 {
            return x;
        }
        let t = expm1(a);
        if ix < 0x3ff0_0000 {
            return h * (2.0 * t - t * t / (t + 1.0));
        }
        return h * (t + t / (t + 1.0));
    }
    if ix < 0x4086_2e42 {
        // |x| < log(Double.MAX_VALUE).
        return h * exp(a);
    }
    if a.to_bits() <= 0x4086_33ce_8fb9_f87d {
        // Up to the overflow threshold.
        let w = exp(0.5 * a);
        let t = h * w;
        return t * w;
    }
    x * f64::INFINITY
}

/// fdlibm `tanh` (`s_tanh.c`).
pub fn tanh(x: f64) -> f64 {
    let jx = high(x);
    let ix = jx & 0x7fff_ffff;
    if ix >= 0x7ff0_0000 {
        // ±1 for ±Infinity, NaN for NaN.
        return if jx >= 0 {
            1.0 / x + 1.0
        } else {
            1.0 / x - 1.0
        };
    }
    let z = if ix < 0x4036_0000 {
        // |x| < 22; below 2^-55 tanh(x) rounds to x.
        if ix < 0x3c80_0000 {
            return x * (1.0 + x);
        }
        if ix >= 0x3ff0_0000 {
            let t = expm1(2.0 * x.abs());
            1.0 - 2.0 / (t + 2.0)
        } else {
            let t = expm1(-2.0 * x.abs());
            -t / (t + 2.0)
        }
    } else {
        1.0
    };
    if jx >= 0 { z } else { -z }
}

#[cfg(test)]
#[path = "math_fdlibm_tests.rs"]
mod tests;
