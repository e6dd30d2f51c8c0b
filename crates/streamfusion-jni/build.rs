//! Links `libstreamfusion_jni.so` with `-z nodelete`: the JVM may `dlclose` a native library
//! when the class loader that loaded it is collected, and mimalloc (the library's allocator)
//! registers thread-exit destructors that must stay mapped for as long as any thread that
//! allocated through it lives.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-z,nodelete");
    }
}
