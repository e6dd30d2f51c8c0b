//! Tests of the string encodings: expected values are JDK 17's and Flink 2.3.0's (run through
//! released Flink, or `java.util.Base64` / `java.net.URLDecoder` directly), never computed by
//! the functions under test.

use super::*;

fn b64(bytes: &[u8]) -> String {
    let mut out = String::new();
    to_base64(bytes, &mut out);
    out
}

fn unb64(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    from_base64(s.as_bytes(), &mut out).map(|()| out)
}

#[test]
fn base64_encodes_and_decodes_as_java_util_base64() {
    assert_eq!(b64(b""), "");
    assert_eq!(b64(b"f"), "Zg==");
    assert_eq!(b64(b"fo"), "Zm8=");
    assert_eq!(b64(b"foo"), "Zm9v");
    assert_eq!(b64(&[0x00, 0xFF]), "AP8=");
    assert_eq!(b64(&[0xFF, 0xFE, 0xFD]), "//79");
    for (text, want) in [
        ("Zm9v", &b"foo"[..]),
        ("Zm9vYg", b"foob"),
        ("Zm9vYg==", b"foob"),
        ("Zm9vYmE", b"fooba"),
        ("Zm9vYmE=", b"fooba"),
        ("", b""),
        // Bits past the last byte are ignored.
        ("Zh", b"f"),
        ("Zm9=", b"fo"),
    ] {
        assert_eq!(unb64(text).unwrap(), want, "{text}");
    }
    for (text, java) in [
        ("Zm9v!", "Illegal base64 character 21"),
        (
            "Z",
            "Input byte[] should at least have 2 bytes for base64 bytes",
        ),
        ("Zg=", "Input byte array has wrong 4-byte ending unit"),
        ("Zm9vY", "Last unit does not have enough valid bits"),
        ("Zm9v\n", "Illegal base64 character a"),
        (
            "Zg==Zg==",
            "Input byte array has incorrect ending byte at 4",
        ),
        ("====", "Input byte array has wrong 4-byte ending unit"),
        ("Z===", "Last unit does not have enough valid bits"),
        ("Zm 9v", "Illegal base64 character 20"),
        ("Zm9\u{e9}", "Illegal base64 character -3d"),
    ] {
        assert_eq!(unb64(text).unwrap_err(), java, "{text:?}");
    }
}

#[test]
fn unhex_reads_pairs_from_the_end_and_drops_an_odd_first_digit() {
    let unhex_of = |s: &str| {
        let mut out = Vec::new();
        unhex(s.as_bytes(), &mut out).map(|()| out)
    };
    assert_eq!(unhex_of(""), Some(vec![]));
    assert_eq!(unhex_of("0"), Some(vec![0]));
    assert_eq!(unhex_of("41"), Some(vec![0x41]));
    assert_eq!(unhex_of("414"), Some(vec![0x00, 0x14]));
    assert_eq!(unhex_of("ff00"), Some(vec![0xFF, 0x00]));
    for bad in ["FFzz", "zz41", "é1", "g", "日本", "0x41"] {
        assert_eq!(unhex_of(bad), None, "{bad}");
    }
}

fn url_decode_of(s: &str) -> Option<String> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let (mut bytes, mut out) = (Vec::new(), String::new());
    url_decode(&units, &mut bytes, &mut out).then_some(out)
}

#[test]
fn url_encoding_is_java_net_url_encoder_and_decoder() {
    let enc = |s: &str| {
        let mut out = String::new();
        url_encode(s, &mut out);
        out
    };
    assert_eq!(enc("a b+c"), "a+b%2Bc");
    assert_eq!(enc("~!*'()-_."), "%7E%21*%27%28%29-_.");
    assert_eq!(enc("😀/?=&"), "%F0%9F%98%80%2F%3F%3D%26");
    assert_eq!(enc("héllo"), "h%C3%A9llo");
    for (s, want) in [
        ("a b+c", Some("a b c")),
        ("%41%42", Some("AB")),
        ("%e6%97%a5", Some("日")),
        ("%C3", Some("\u{FFFD}")),
        ("%ED%A0%80", Some("\u{FFFD}")),
        ("%+1", Some("\u{1}")),
        ("%-0", Some("\u{0}")),
        ("%-1", None),
        ("%zz", None),
        ("%4", None),
        ("%", None),
        ("a%%41", None),
        ("%F0%9F%98%80x%", None),
        ("%😀", None),
        ("", Some("")),
    ] {
        assert_eq!(url_decode_of(s).as_deref(), want, "{s}");
    }
    // Java's Character.digit reads Arabic-Indic digits and fullwidth letters.
    assert_eq!(url_decode_of("%\u{661}\u{662}").as_deref(), Some("\u{12}"));
    assert_eq!(
        url_decode_of("%\u{FF21}\u{FF21}").as_deref(),
        Some("\u{FFFD}")
    );
    assert_eq!(url_decode_of("%\u{e9}1"), None);
}

#[test]
fn chr_hex_and_bin_read_java_longs() {
    let run = |f: fn(i64, &mut String), n: i64| {
        let mut out = String::new();
        f(n, &mut out);
        out
    };
    assert_eq!(run(chr, 65), "A");
    assert_eq!(run(chr, 321), "A");
    assert_eq!(run(chr, 256), "\u{0}");
    assert_eq!(run(chr, 255), "ÿ");
    assert_eq!(run(chr, -5), "");
    let mut hex = String::new();
    push_hex("日本😀".as_bytes(), &mut hex);
    assert_eq!(hex, "E697A5E69CACF09F9880");
}
