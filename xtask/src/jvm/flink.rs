//! Released Apache Flink 2.3.0's `lib/` jars, cached outside the checkout.
//!
//! Maven Central is not reachable from the build machines, but PyPI is: the wheel of
//! `apache-flink-libraries==2.3.0` carries Flink's `lib/` under `pyflink/lib/`. It is fetched
//! once with pip into `<cache>/wheels/` and checked against its pinned SHA-256; its jars are
//! unpacked once into `<cache>/flink-2.3.0/lib/`. The marker `<cache>/flink-2.3.0/.complete`,
//! written last and holding the wheel's SHA-256, is what makes that directory count as ready,
//! so an interrupted unpack is redone. `cargo xtask flink` fetches the PyFlink wheel (Flink's
//! `bin/` and `conf/`) the same way, through [`FlinkCache::fetch`]. `<cache>` is
//! `$SF_CACHE_DIR`, or `$HOME/.cache/streamfusion`; clean clones and CI reuse it.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use xshell::{Shell, cmd};

use super::files;
use crate::prereqs;

pub const FLINK_VERSION: &str = "2.3.0";

/// SHA-256 of [`WHEEL_FILE`] as PyPI publishes it.
pub const WHEEL_SHA256: &str = "38ece876553286b3a285cf344c2d2038f8a7ca10da5df54d5107250386d64151";

const WHEEL_FILE: &str = "apache_flink_libraries-2.3.0-py2.py3-none-any.whl";

/// A wheel pinned by file name and SHA-256, fetched with pip into `<cache>/wheels/`.
#[derive(Debug)]
pub struct Wheel {
    pub requirement: &'static str,
    pub file: &'static str,
    pub sha256: &'static str,
    /// What it brings and its size, for the download message.
    what: &'static str,
    /// pip options choosing the pinned file whatever the local Python and platform.
    pip_options: &'static [&'static str],
    /// Another way to get going without the download, for error messages.
    instead: &'static str,
}

/// Flink's `lib/`, `opt/`, `plugins/` and `bin/bash-java-utils.jar`.
pub const LIBRARIES_WHEEL: Wheel = Wheel {
    requirement: "apache-flink-libraries==2.3.0",
    file: WHEEL_FILE,
    sha256: WHEEL_SHA256,
    what: "Flink 2.3.0's jars, 329 MB",
    pip_options: &[],
    instead: ", or set SF_NATIVE_BENCH_CLASSPATH to a prepared Flink 2.3.0 classpath",
};

/// PyFlink, which carries Flink's `bin/` and `conf/` (as `pyflink/bin/`, `pyflink/conf/`).
/// It is built per CPython version and platform, though those two directories are the same in
/// every build: pip is told which build to take, so one file name and digest fit every host.
pub const PYFLINK_WHEEL: Wheel = Wheel {
    requirement: "apache-flink==2.3.0",
    file: "apache_flink-2.3.0-cp311-cp311-manylinux_2_5_x86_64.manylinux1_x86_64.\
           manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    sha256: "0e5f612704de1610b153e919c0564b62ad513cddfcf4960f5a021658cdf41a13",
    what: "Flink 2.3.0's bin/ and conf/, 2.8 MB",
    pip_options: &[
        "--python-version",
        "3.11",
        "--implementation",
        "cp",
        "--abi",
        "cp311",
        "--platform",
        "manylinux2014_x86_64",
    ],
    instead: "",
};

/// Where the wheel keeps Flink's `lib/` (a directory entry, as `jar xf` takes it).
const JARS_IN_WHEEL: &str = "pyflink/lib/";
/// Flink's `lib/` jar that runs the planner in an isolated class loader.
pub const LOADER_JAR: &str = "flink-table-planner-loader-2.3.0.jar";
/// The real planner inside [`LOADER_JAR`] (a resource, as `jar xf` names it).
const PLANNER_IN_LOADER: &str = "flink-table-planner.jar";
/// The real planner unpacked, under the name Flink's `opt/` gives it.
pub const PLANNER_JAR: &str = "flink-table-planner_2.12-2.3.0.jar";
const MARKER: &str = ".complete";
const STAGING_PREFIX: &str = ".unpack-";

/// The cache of Flink's jars.
#[derive(Debug, Clone)]
pub struct FlinkCache {
    root: PathBuf,
}

impl FlinkCache {
    /// The cache under `$SF_CACHE_DIR`, or `$HOME/.cache/streamfusion`.
    pub fn locate() -> Result<FlinkCache> {
        let root = cache_root(env::var_os("SF_CACHE_DIR"), env::var_os("HOME")).context(
            "no cache directory for the Flink jars: set SF_CACHE_DIR (or HOME) to a writable \
             directory",
        )?;
        // Classpath entries must not depend on the directory a test or suite runs in.
        let root = std::path::absolute(&root)
            .with_context(|| format!("making the cache path {} absolute", root.display()))?;
        Ok(FlinkCache { root })
    }

    fn wheels_dir(&self) -> PathBuf {
        self.root.join("wheels")
    }

    fn wheel(&self) -> PathBuf {
        self.wheel_path(&LIBRARIES_WHEEL)
    }

    /// Where `wheel` is kept once fetched (see [`FlinkCache::fetch`]).
    pub fn wheel_path(&self, wheel: &Wheel) -> PathBuf {
        self.wheels_dir().join(wheel.file)
    }

    fn dist_dir(&self) -> PathBuf {
        self.root.join(format!("flink-{FLINK_VERSION}"))
    }

    pub fn lib_dir(&self) -> PathBuf {
        self.dist_dir().join("lib")
    }

    /// The real planner, unpacked from the loader jar by [`FlinkCache::ensure_planner`].
    pub fn planner_jar(&self) -> PathBuf {
        self.dist_dir().join("planner").join(PLANNER_JAR)
    }

    fn marker(&self) -> PathBuf {
        self.dist_dir().join(MARKER)
    }

    /// Whether the jars are unpacked completely from the pinned wheel.
    pub fn is_ready(&self) -> bool {
        fs::read_to_string(self.marker()).is_ok_and(|m| marker_matches(&m, WHEEL_SHA256))
            && files::find_flat(&self.lib_dir(), "jar").is_ok_and(|jars| !jars.is_empty())
    }

    /// Whether preparing the jars needs pip: they are not unpacked and there is no wheel to
    /// unpack them from.
    pub fn needs_download(&self) -> bool {
        !self.is_ready() && !self.wheel().is_file()
    }

    /// Downloads and unpacks what is missing, and returns the jars, sorted.
    pub fn ensure(&self, sh: &Shell) -> Result<Vec<PathBuf>> {
        fs::create_dir_all(&self.root)
            .with_context(|| format!("creating the cache directory {}", self.root.display()))?;
        let _lock = files::lock_exclusive(
            &self.root.join(format!("flink-{FLINK_VERSION}.lock")),
            "preparing the Flink jars",
        )?;
        if !self.is_ready() {
            self.fetch(sh, &LIBRARIES_WHEEL)?;
            self.unpack(sh)?;
        }
        let jars = files::find_flat(&self.lib_dir(), "jar")?;
        if jars.is_empty() {
            bail!(
                "{} holds no jars although {} says it is complete; delete {} and run `cargo \
                 xtask jvm` again",
                self.lib_dir().display(),
                self.marker().display(),
                self.dist_dir().display()
            );
        }
        Ok(jars)
    }

    /// Unpacks the real planner from the loader jar once (after [`FlinkCache::ensure`]) and
    /// returns it. The planner extension replaces a planner class, which the loader's isolated
    /// class loader would never see: its classpath carries this jar instead of the loader.
    /// It is renamed into place whole, so an existing file is complete.
    pub fn ensure_planner(&self, sh: &Shell) -> Result<PathBuf> {
        let jar = self.planner_jar();
        if jar.is_file() {
            return Ok(jar);
        }
        let _lock = files::lock_exclusive(
            &self.root.join(format!("flink-{FLINK_VERSION}.lock")),
            "unpacking the Flink planner",
        )?;
        if jar.is_file() {
            return Ok(jar);
        }
        let loader = self.lib_dir().join(LOADER_JAR);
        if !loader.is_file() {
            bail!(
                "{} is missing, so the planner cannot be unpacked from it; delete {} and run \
                 `cargo xtask jvm` again",
                loader.display(),
                self.dist_dir().display()
            );
        }
        let dir = jar.parent().expect("the planner jar has a directory");
        let staging = dir.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        files::remove(&staging)?;
        fs::create_dir_all(&staging).with_context(|| format!("creating {}", staging.display()))?;
        eprintln!(
            "xtask: unpacking the Flink planner from {} into {}",
            loader.display(),
            jar.display()
        );
        {
            let _cwd = sh.push_dir(&staging);
            cmd!(sh, "jar xf {loader} {PLANNER_IN_LOADER}")
                .quiet()
                .run()
                .with_context(|| format!("`jar xf` could not unpack {}", loader.display()))?;
        }
        let unpacked = staging.join(PLANNER_IN_LOADER);
        if !unpacked.is_file() {
            bail!(
                "{} holds no {PLANNER_IN_LOADER}; is it Flink {FLINK_VERSION}'s planner loader?",
                loader.display()
            );
        }
        fs::rename(&unpacked, &jar)
            .with_context(|| format!("moving {} to {}", unpacked.display(), jar.display()))?;
        files::remove(&staging)?;
        Ok(jar)
    }

    /// Makes sure the pinned `wheel` is in `<cache>/wheels`, downloading it when absent, and
    /// returns its path. A file there with another SHA-256 is deleted first; a download with
    /// another SHA-256 is deleted and is an error.
    pub fn fetch(&self, sh: &Shell, wheel: &Wheel) -> Result<PathBuf> {
        let Wheel {
            requirement,
            file,
            sha256: pinned,
            what,
            pip_options,
            instead,
        } = wheel;
        let pip_options = *pip_options;
        let dir = self.wheels_dir();
        let path = self.wheel_path(wheel);
        if path.is_file() {
            let actual = sha256(sh, &path)?;
            if actual == *pinned {
                return Ok(path);
            }
            eprintln!(
                "xtask: {} has SHA-256 {actual}, not the pinned {pinned}; deleting it and \
                 downloading it again",
                path.display()
            );
            files::remove(&path)?;
        }
        if let Err(missing) = prereqs::check_jvm(true) {
            bail!("{missing}");
        }
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        eprintln!(
            "xtask: downloading {requirement} ({what}) from PyPI into {}",
            dir.display()
        );
        cmd!(
            sh,
            "python3 -m pip download --no-deps --only-binary=:all: {pip_options...} {requirement} -d {dir}"
        )
        .run()
        .with_context(|| {
            format!(
                "pip could not download {requirement}; check that PyPI is reachable (pip honours \
                 PIP_INDEX_URL and proxy settings), or copy {file} into {} yourself{instead}",
                dir.display()
            )
        })?;
        if !path.is_file() {
            bail!(
                "pip reported success but {} does not exist; the index may have served another \
                 file name. Copy {file} (SHA-256 {pinned}) into {} yourself",
                path.display(),
                dir.display()
            );
        }
        let actual = sha256(sh, &path)?;
        if actual != *pinned {
            files::remove(&path)?;
            bail!(
                "the downloaded {file} has SHA-256 {actual}, not the pinned {pinned}, so it was \
                 deleted. The index served a different file (a mirror or proxy?); fetch the file \
                 PyPI publishes into {}{instead}",
                dir.display()
            );
        }
        Ok(path)
    }

    /// Unpacks the wheel's `pyflink/lib/` into `lib/` through a staging directory, then writes
    /// the marker. `jar` (from the JDK) unpacks it, so no `unzip` is needed.
    fn unpack(&self, sh: &Shell) -> Result<()> {
        let wheel = self.wheel();
        let dist = self.dist_dir();
        let lib = self.lib_dir();
        fs::create_dir_all(&dist).with_context(|| format!("creating {}", dist.display()))?;
        files::remove(&self.marker())?;
        files::remove(&lib)?;
        // Leftovers of interrupted unpacks; the lock keeps other xtasks out meanwhile.
        for entry in fs::read_dir(&dist).with_context(|| format!("listing {}", dist.display()))? {
            let entry = entry.with_context(|| format!("listing {}", dist.display()))?;
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(STAGING_PREFIX)
            {
                files::remove(&entry.path())?;
            }
        }
        let staging = dist.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        fs::create_dir_all(&staging).with_context(|| format!("creating {}", staging.display()))?;
        eprintln!(
            "xtask: unpacking Flink's jars from {} into {}",
            wheel.display(),
            lib.display()
        );
        {
            let _cwd = sh.push_dir(&staging);
            cmd!(sh, "jar xf {wheel} {JARS_IN_WHEEL}")
                .quiet()
                .run()
                .with_context(|| {
                    format!(
                        "`jar xf` could not unpack {}; if the file is damaged, delete it and run \
                         `cargo xtask jvm` again",
                        wheel.display()
                    )
                })?;
        }
        let unpacked = staging.join(JARS_IN_WHEEL);
        if files::find_flat(&unpacked, "jar")?.is_empty() {
            bail!(
                "{} has no jars under {JARS_IN_WHEEL}; is it the {} wheel?",
                wheel.display(),
                LIBRARIES_WHEEL.requirement
            );
        }
        fs::rename(&unpacked, &lib)
            .with_context(|| format!("moving {} to {}", unpacked.display(), lib.display()))?;
        files::remove(&staging)?;
        files::write_atomically(&self.marker(), &format!("{WHEEL_SHA256}\n"))
    }
}

/// `$SF_CACHE_DIR` when set and non-empty, else `$HOME/.cache/streamfusion`.
fn cache_root(sf_cache_dir: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    match (sf_cache_dir, home) {
        (Some(dir), _) if !dir.is_empty() => Some(PathBuf::from(dir)),
        (_, Some(home)) if !home.is_empty() => {
            Some(Path::new(&home).join(".cache").join("streamfusion"))
        }
        _ => None,
    }
}

/// The marker is written last, holding the SHA-256 of the wheel the jars came from; anything
/// else (no marker, an empty one from an interrupted write, another wheel's) means redo.
fn marker_matches(contents: &str, wheel_sha256: &str) -> bool {
    contents.trim() == wheel_sha256
}

/// The SHA-256 of a file, by coreutils' `sha256sum`.
fn sha256(sh: &Shell, path: &Path) -> Result<String> {
    let output = cmd!(sh, "sha256sum {path}")
        .quiet()
        .read()
        .with_context(|| {
            format!(
                "computing the SHA-256 of {} with `sha256sum` (from coreutils)",
                path.display()
            )
        })?;
    parse_sha256sum(&output)
        .with_context(|| format!("`sha256sum {}` printed `{output}`", path.display()))
}

/// The digest from `sha256sum`'s `<hex>  <file>` line, lowercase.
fn parse_sha256sum(output: &str) -> Option<String> {
    let digest = output.split_whitespace().next()?.trim_start_matches('\\');
    (digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| digest.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::tests::scratch;

    #[test]
    fn only_a_marker_holding_the_wheels_sha256_counts() {
        assert!(marker_matches(&format!("{WHEEL_SHA256}\n"), WHEEL_SHA256));
        assert!(marker_matches(WHEEL_SHA256, WHEEL_SHA256));
        assert!(!marker_matches("", WHEEL_SHA256));
        assert!(!marker_matches(&WHEEL_SHA256[..32], WHEEL_SHA256));
        assert!(!marker_matches(&"0".repeat(64), WHEEL_SHA256));
    }

    #[test]
    fn unpacked_jars_without_the_marker_are_not_ready() {
        let cache = FlinkCache {
            root: scratch("flink-cache"),
        };
        fs::create_dir_all(cache.lib_dir()).unwrap();
        fs::write(cache.lib_dir().join("flink-dist-2.3.0.jar"), "").unwrap();
        assert!(!cache.is_ready(), "jars without a marker");
        assert!(cache.needs_download(), "no wheel to unpack them from");

        fs::write(cache.marker(), "").unwrap();
        assert!(!cache.is_ready(), "an interrupted marker write");

        fs::write(cache.marker(), format!("{WHEEL_SHA256}\n")).unwrap();
        assert!(cache.is_ready());
        assert!(!cache.needs_download());

        files::remove(&cache.lib_dir()).unwrap();
        assert!(!cache.is_ready(), "a marker without jars");
    }

    #[test]
    fn the_cache_is_sf_cache_dir_else_under_home() {
        assert_eq!(
            cache_root(Some("/ci/cache".into()), Some("/root".into())),
            Some(PathBuf::from("/ci/cache"))
        );
        assert_eq!(
            cache_root(Some("".into()), Some("/root".into())),
            Some(PathBuf::from("/root/.cache/streamfusion"))
        );
        assert_eq!(cache_root(None, None), None);
    }

    #[test]
    fn sha256sum_output_gives_the_lowercase_digest() {
        let upper = WHEEL_SHA256.to_ascii_uppercase();
        assert_eq!(
            parse_sha256sum(&format!("{upper}  /cache/wheels/{WHEEL_FILE}\n")).as_deref(),
            Some(WHEEL_SHA256)
        );
        assert_eq!(parse_sha256sum("sha256sum: x: No such file"), None);
        assert_eq!(parse_sha256sum(""), None);
    }
}
