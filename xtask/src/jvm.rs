//! `cargo xtask jvm`: the JVM classpath of released Apache Flink 2.3.0 plus the project's own
//! Java classes, for the parity oracles and the JVM-boundary suites.
//!
//! 1. The jars: Flink's `lib/`, from the PyPI wheel cached outside the checkout (see
//!    [`flink`]); or `SF_NATIVE_BENCH_CLASSPATH` as given, without downloading anything.
//! 2. Every `java/src/**/*.java`, compiled with `javac --release 17` against those jars into
//!    `<target>/jvm/classes-<hash>`, named by a hash of the sources and the classpath: it is
//!    compiled aside and renamed into place whole, and never changed after, so tests and
//!    suites still reading an earlier classpath (another checkout, a concurrent run) keep
//!    working; directories unused for a day are removed.
//! 3. `<target>/jvm/classpath.txt`: one line, the classes directory first, then the jars,
//!    replaced atomically.
//! 4. `<target>/jvm/classpath-planner.txt`: the same with the real planner instead of the
//!    loader jar (the classes directory, the planner unpacked once from
//!    `flink-table-planner-loader` into the cache, then the other jars), which is what the
//!    planner extension (`java/src/org/apache/flink`, `java/src/org/streamfusion/flink`)
//!    and its MiniCluster drivers (`java/src/org/streamfusion/harness`: parity, restore,
//!    whole-job timing; kept out of the user's jar) need: it replaces a planner class, which
//!    the loader's isolated class loader never sees. The Java sources compile against it. An `SF_NATIVE_BENCH_CLASSPATH` without a
//!    `flink-table-planner_*` jar compiles without the extension and writes no such file.
//!
//! `smoke`, `bench` and `test` prepare the classpath too when the prerequisites are there, and
//! give tests and suites its path as `SF_JVM_CLASSPATH_FILE`. Tests and suites read
//! `SF_NATIVE_BENCH_CLASSPATH` if set, else that file, else they report themselves skipped.

pub(crate) mod files;
pub(crate) mod flink;

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context, Result, bail};
use clap::Args;
use xshell::{Shell, cmd};

use crate::metadata::JvmRecord;
use crate::prereqs::{self, Missing};
use crate::suites::Session;
use crate::workspace::Workspace;

use flink::{FLINK_VERSION, FlinkCache, WHEEL_SHA256};

/// A prepared classpath to use instead of the cached Flink jars.
pub const NATIVE_CLASSPATH_VAR: &str = "SF_NATIVE_BENCH_CLASSPATH";

/// Where tests and suites find `classpath.txt`.
pub const CLASSPATH_FILE_VAR: &str = "SF_JVM_CLASSPATH_FILE";

/// Where tests find `classpath-planner.txt` (set only when it was written).
pub const PLANNER_CLASSPATH_FILE_VAR: &str = "SF_JVM_PLANNER_CLASSPATH_FILE";

/// Sources that need the real planner on the classpath: the planner extension, the drivers
/// running it, and the golden generators that record the extension's node descriptions.
const PLANNER_SOURCES: &[&str] = &[
    "org/apache/flink",
    "org/streamfusion/flink",
    "org/streamfusion/harness",
    "org/streamfusion/golden/DedupVectors.java",
    "org/streamfusion/golden/JoinVectors.java",
    "org/streamfusion/golden/NodeVectors.java",
    "org/streamfusion/golden/OverVectors.java",
    "org/streamfusion/golden/RankVectors.java",
    "org/streamfusion/golden/WindowVectors.java",
];

#[derive(Debug, Args)]
pub struct JvmArgs {}

pub fn run(_args: &JvmArgs) -> Result<ExitCode> {
    let workspace = Workspace::load()?;
    let sh = workspace.shell()?;
    match prepare(&sh, &workspace)? {
        Outcome::Prepared(prepared) => {
            prepared.print();
            Ok(ExitCode::SUCCESS)
        }
        Outcome::Missing(missing) => bail!("{missing}"),
    }
}

/// For `smoke`, `bench` and `test`: prepares the classpath, exports `SF_JVM_CLASSPATH_FILE`
/// into the environment of everything the session runs, and records the result in
/// `metadata.json`. Missing prerequisites are one line and not a failure; returns false when
/// preparing failed otherwise (a download or compile error, already printed).
pub fn prepare_for_session(session: &mut Session) -> Result<bool> {
    let (record, ok) = match prepare(&session.sh, &session.workspace) {
        Ok(Outcome::Prepared(prepared)) => {
            prepared.print();
            session
                .sh
                .set_var(CLASSPATH_FILE_VAR, &prepared.classpath_file);
            match &prepared.planner_classpath_file {
                Some(file) => session.sh.set_var(PLANNER_CLASSPATH_FILE_VAR, file),
                // Empty means none (the shell cannot unset an inherited variable).
                None => session.sh.set_var(PLANNER_CLASSPATH_FILE_VAR, ""),
            }
            (prepared.record(), true)
        }
        Ok(Outcome::Missing(missing)) => {
            let reason = missing.summary();
            println!("{}", not_prepared_line(&reason));
            (JvmRecord::not_prepared(reason), true)
        }
        Err(err) => {
            let reason = format!("preparing the JVM classpath failed: {err:#}");
            eprintln!("error: {}", not_prepared_line(&reason));
            (JvmRecord::not_prepared(reason), false)
        }
    };
    session.metadata.jvm = Some(record);
    session.metadata.write()?;
    Ok(ok)
}

fn noun<'a>(count: usize, one: &'a str, many: &'a str) -> &'a str {
    if count == 1 { one } else { many }
}

/// `1 class`, `11 classes`.
fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", noun(count, one, many))
}

fn not_prepared_line(reason: &str) -> String {
    format!(
        "JVM classpath not prepared: {reason}; JVM-dependent tests and suites will report \
         themselves skipped"
    )
}

/// What [`prepare`] found.
#[derive(Debug)]
pub enum Outcome {
    Prepared(Prepared),
    Missing(Missing),
}

/// Where the jars are to come from.
#[derive(Debug)]
enum Source {
    Flink(FlinkCache),
    External(String),
}

/// Where the jars came from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Jars {
    /// Flink's `lib/` unpacked from the pinned wheel, and the planner unpacked from its
    /// loader jar.
    Flink {
        lib_dir: PathBuf,
        jars: Vec<PathBuf>,
        planner: PathBuf,
    },
    /// `SF_NATIVE_BENCH_CLASSPATH`, verbatim.
    External(String),
}

impl Jars {
    /// Jars, or for an external classpath its entries.
    fn count(&self) -> usize {
        match self {
            Jars::Flink { jars, .. } => jars.len(),
            Jars::External(classpath) => classpath.split(':').filter(|e| !e.is_empty()).count(),
        }
    }

    /// The classpath javac compiles against: the jars sorted, or the external one as given.
    fn classpath(&self) -> Result<String> {
        match self {
            Jars::Flink { jars, .. } => {
                let mut entries = jars
                    .iter()
                    .map(|jar| classpath_entry(jar))
                    .collect::<Result<Vec<String>>>()?;
                entries.sort();
                Ok(entries.join(":"))
            }
            Jars::External(classpath) => Ok(classpath.clone()),
        }
    }

    /// The classpath with the real planner instead of its loader: the planner, then the other
    /// jars sorted; an external classpath as given if it holds a `flink-table-planner_*` jar.
    /// `None` when there is no planner to put on it.
    fn planner_classpath(&self) -> Result<Option<String>> {
        match self {
            Jars::Flink { jars, planner, .. } => {
                let mut entries = jars
                    .iter()
                    .filter(|jar| !jar.ends_with(flink::LOADER_JAR))
                    .map(|jar| classpath_entry(jar))
                    .collect::<Result<Vec<String>>>()?;
                entries.sort();
                entries.insert(0, classpath_entry(planner)?);
                Ok(Some(entries.join(":")))
            }
            Jars::External(classpath) => {
                let has_planner = classpath.split(':').any(|entry| {
                    Path::new(entry).file_name().is_some_and(|name| {
                        name.to_string_lossy().starts_with("flink-table-planner_")
                    })
                });
                Ok(has_planner.then(|| classpath.clone()))
            }
        }
    }
}

/// A prepared classpath.
#[derive(Debug)]
pub struct Prepared {
    pub classpath_file: PathBuf,
    /// `classpath-planner.txt`, when there is a planner to put on it.
    pub planner_classpath_file: Option<PathBuf>,
    jars: Jars,
    sources_dir: PathBuf,
    sources_compiled: usize,
    classes_written: usize,
    java_version: Option<String>,
}

impl Prepared {
    fn print(&self) {
        println!("classpath: {}", self.classpath_file.display());
        match &self.planner_classpath_file {
            Some(file) => println!("planner classpath: {}", file.display()),
            None => println!(
                "planner classpath: none ({NATIVE_CLASSPATH_VAR} holds no flink-table-planner_* \
                 jar; the planner extension was not compiled)"
            ),
        }
        println!("jvm: {}", self.summary());
    }

    fn summary(&self) -> String {
        let jars = match &self.jars {
            Jars::Flink { lib_dir, jars, .. } => format!(
                "{} Flink {FLINK_VERSION} {} from {}",
                jars.len(),
                noun(jars.len(), "jar", "jars"),
                lib_dir.display()
            ),
            Jars::External(_) => format!(
                "{} from {NATIVE_CLASSPATH_VAR}",
                counted(self.jars.count(), "classpath entry", "classpath entries")
            ),
        };
        let classes = if self.sources_compiled == 0 {
            format!(
                "no Java sources under {}, nothing compiled",
                self.sources_dir.display()
            )
        } else {
            format!(
                "{} compiled into {}",
                counted(self.sources_compiled, "Java source", "Java sources"),
                counted(self.classes_written, "class", "classes")
            )
        };
        format!("{jars}; {classes}")
    }

    fn record(&self) -> JvmRecord {
        JvmRecord {
            prepared: true,
            classpath_file: Some(self.classpath_file.clone()),
            jars_from: Some(match &self.jars {
                Jars::Flink { .. } => format!("apache-flink-libraries {FLINK_VERSION} wheel"),
                Jars::External(_) => NATIVE_CLASSPATH_VAR.to_string(),
            }),
            wheel_sha256: matches!(self.jars, Jars::Flink { .. }).then(|| WHEEL_SHA256.into()),
            jar_count: Some(self.jars.count()),
            java_sources_compiled: Some(self.sources_compiled),
            java_version: self.java_version.clone(),
            not_prepared_reason: None,
        }
    }
}

/// Checks the prerequisites, gets the jars, compiles `java/src` and writes `classpath.txt`.
pub fn prepare(sh: &Shell, workspace: &Workspace) -> Result<Outcome> {
    let source = match external_classpath()? {
        Some(classpath) => Source::External(classpath),
        None => Source::Flink(FlinkCache::locate()?),
    };
    let jvm_dir = workspace.target_dir.join("jvm");
    fs::create_dir_all(&jvm_dir).with_context(|| format!("creating {}", jvm_dir.display()))?;
    let _lock = files::lock_exclusive(&jvm_dir.join(".lock"), "preparing the JVM classpath")?;
    let classpath_file = jvm_dir.join("classpath.txt");
    let planner_classpath_file = jvm_dir.join("classpath-planner.txt");

    let need_pip = matches!(&source, Source::Flink(cache) if cache.needs_download());
    if let Err(missing) = prereqs::check_jvm(need_pip) {
        // Tests and suites must not run against a classpath this machine cannot rebuild.
        files::remove(&classpath_file)?;
        files::remove(&planner_classpath_file)?;
        return Ok(Outcome::Missing(missing));
    }

    let jars = match source {
        Source::External(classpath) => Jars::External(classpath),
        Source::Flink(cache) => Jars::Flink {
            jars: cache.ensure(sh)?,
            lib_dir: cache.lib_dir(),
            planner: cache.ensure_planner(sh)?,
        },
    };
    let sources_dir = workspace.root.join("java").join("src");
    let planner_classpath = jars.planner_classpath()?;
    // The extension compiles against the real planner; everything else compiles against
    // either (the golden generators use only Flink's public API).
    let compiled = match &planner_classpath {
        Some(classpath) => compile(sh, &sources_dir, &jvm_dir, classpath, true),
        None => compile(sh, &sources_dir, &jvm_dir, &jars.classpath()?, false),
    };
    let (classes_dir, sources_compiled, classes_written) = match compiled {
        Ok(compiled) => compiled,
        Err(err) => {
            // A failed preparation must not leave the previous classpath looking current.
            files::remove(&classpath_file)?;
            files::remove(&planner_classpath_file)?;
            return Err(err);
        }
    };
    let classpath = classpath_line(&classes_dir, &jars)?;
    files::write_atomically(&classpath_file, &format!("{classpath}\n"))?;
    let planner_classpath_file = match planner_classpath {
        Some(planner) => {
            let line = format!("{}:{planner}", classpath_entry(&classes_dir)?);
            files::write_atomically(&planner_classpath_file, &format!("{line}\n"))?;
            Some(planner_classpath_file)
        }
        None => {
            files::remove(&planner_classpath_file)?;
            None
        }
    };
    Ok(Outcome::Prepared(Prepared {
        classpath_file,
        planner_classpath_file,
        jars,
        sources_dir,
        sources_compiled,
        classes_written,
        java_version: java_version(),
    }))
}

/// `SF_NATIVE_BENCH_CLASSPATH` when set to something other than blanks.
fn external_classpath() -> Result<Option<String>> {
    match env::var(NATIVE_CLASSPATH_VAR) {
        Ok(value) if !value.trim().is_empty() => Ok(Some(value.trim().to_string())),
        Ok(_) | Err(env::VarError::NotPresent) => Ok(None),
        Err(env::VarError::NotUnicode(_)) => {
            bail!("{NATIVE_CLASSPATH_VAR} is not valid UTF-8; set it to a ':'-separated classpath")
        }
    }
}

/// How long an unused classes directory is kept.
const STALE_CLASSES: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Compiles every `*.java` under `sources_dir` (without the planner extension's unless
/// `with_planner`) into `jvm_dir/classes-<hash>` (unless that exists: it is only ever created
/// whole); returns it, the number of sources and of class files.
fn compile(
    sh: &Shell,
    sources_dir: &Path,
    jvm_dir: &Path,
    classpath: &str,
    with_planner: bool,
) -> Result<(PathBuf, usize, usize)> {
    let mut sources = files::find_recursive(sources_dir, "java")?;
    if !with_planner {
        sources.retain(|source| !needs_planner(sources_dir, source));
    }
    let compiled = sources.len();
    let classes_dir = jvm_dir.join(format!(
        "classes-{:016x}",
        sources_hash(sources_dir, &sources, classpath)?
    ));
    files::remove_stale(jvm_dir, "classes", &classes_dir, STALE_CLASSES)?;
    files::remove_stale(jvm_dir, "building", &classes_dir, STALE_CLASSES)?;
    if classes_dir.is_dir() {
        let classes = files::find_recursive(&classes_dir, "class")?.len();
        return Ok((classes_dir, compiled, classes));
    }
    let building = jvm_dir.join(format!("building-{}", std::process::id()));
    files::remove(&building)?;
    fs::create_dir_all(&building).with_context(|| format!("creating {}", building.display()))?;
    if compiled > 0 {
        javac(sh, sources_dir, &sources, &building, classpath)?;
    }
    let classes = files::find_recursive(&building, "class")?.len();
    files::publish_dir(&building, &classes_dir)?;
    Ok((classes_dir, compiled, classes))
}

/// Whether `source` belongs to the planner extension, which compiles only against the real
/// planner.
fn needs_planner(sources_dir: &Path, source: &Path) -> bool {
    let relative = source.strip_prefix(sources_dir).unwrap_or(source);
    PLANNER_SOURCES.iter().any(|dir| relative.starts_with(dir))
}

/// A hash of the sources (paths and contents) and the classpath they compile against.
fn sources_hash(sources_dir: &Path, sources: &[PathBuf], classpath: &str) -> Result<u64> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    classpath.hash(&mut hasher);
    let mut sources: Vec<&PathBuf> = sources.iter().collect();
    sources.sort();
    for source in sources {
        source
            .strip_prefix(sources_dir)
            .unwrap_or(source)
            .hash(&mut hasher);
        fs::read(source)
            .with_context(|| format!("reading {}", source.display()))?
            .hash(&mut hasher);
    }
    Ok(hasher.finish())
}

/// `javac` of `sources` into `classes_dir`.
fn javac(
    sh: &Shell,
    sources_dir: &Path,
    sources: &[PathBuf],
    classes_dir: &Path,
    classpath: &str,
) -> Result<()> {
    let compiled = sources.len();
    eprintln!(
        "$ javac --release 17 -encoding UTF-8 -d {} -cp <{}> <{} under {}>",
        classes_dir.display(),
        counted(classpath.split(':').count(), "entry", "entries"),
        counted(compiled, "source", "sources"),
        sources_dir.display()
    );
    cmd!(
        sh,
        "javac --release 17 -encoding UTF-8 -d {classes_dir} -cp {classpath} {sources...}"
    )
    .quiet()
    .run()
    .with_context(|| {
        format!(
            "javac could not compile the Java sources under {} (its messages are above); they \
             are compiled with --release 17 against the Flink {FLINK_VERSION} jars",
            sources_dir.display()
        )
    })?;
    Ok(())
}

/// The classpath line: the classes directory, then the jars.
fn classpath_line(classes_dir: &Path, jars: &Jars) -> Result<String> {
    Ok(format!(
        "{}:{}",
        classpath_entry(classes_dir)?,
        jars.classpath()?
    ))
}

/// A path as a classpath entry: UTF-8 and free of the separator.
fn classpath_entry(path: &Path) -> Result<String> {
    let Some(entry) = path.to_str() else {
        bail!(
            "{} cannot go on the JVM classpath: it is not valid UTF-8; move the cache \
             (SF_CACHE_DIR) or cargo's target directory to a plain path",
            path.display()
        );
    };
    if entry.contains(':') {
        bail!(
            "{entry} cannot go on the JVM classpath: it contains ':', the classpath separator; \
             move the cache (SF_CACHE_DIR) or cargo's target directory to a path without ':'"
        );
    }
    Ok(entry.to_string())
}

/// The first line of `java -version` (printed on stderr), e.g.
/// `openjdk version "17.0.15" 2025-04-15`.
fn java_version() -> Option<String> {
    let output = Command::new("java")
        .arg("-version")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    stderr
        .lines()
        .chain(stdout.lines())
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("Picked up "))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flink_jars(names: &[&str]) -> Jars {
        Jars::Flink {
            lib_dir: PathBuf::from("/cache/flink-2.3.0/lib"),
            jars: names
                .iter()
                .map(|n| PathBuf::from("/cache/flink-2.3.0/lib").join(n))
                .collect(),
            planner: PathBuf::from("/cache/flink-2.3.0/planner/flink-table-planner_2.12-2.3.0.jar"),
        }
    }

    #[test]
    fn the_planner_classpath_swaps_the_loader_for_the_planner_first() {
        let jars = flink_jars(&[
            "log4j-api-2.25.3.jar",
            "flink-table-planner-loader-2.3.0.jar",
            "flink-dist-2.3.0.jar",
        ]);
        assert_eq!(
            jars.planner_classpath().unwrap().as_deref(),
            Some(
                "/cache/flink-2.3.0/planner/flink-table-planner_2.12-2.3.0.jar:\
                 /cache/flink-2.3.0/lib/flink-dist-2.3.0.jar:\
                 /cache/flink-2.3.0/lib/log4j-api-2.25.3.jar"
            )
        );
        // The existing classpath keeps the loader.
        assert!(
            jars.classpath()
                .unwrap()
                .contains("flink-table-planner-loader-2.3.0.jar")
        );
        let external = Jars::External("/opt/flink/lib/flink-dist-2.3.0.jar".into());
        assert_eq!(external.planner_classpath().unwrap(), None);
        let external =
            Jars::External("/opt/flink/opt/flink-table-planner_2.12-2.3.0.jar:/x.jar".into());
        assert!(external.planner_classpath().unwrap().is_some());
    }

    #[test]
    fn only_the_planner_extension_needs_the_planner() {
        let dir = Path::new("/ws/java/src");
        for (source, needs) in [
            (
                "org/apache/flink/table/planner/delegation/DefaultPlannerFactory.java",
                true,
            ),
            ("org/streamfusion/flink/StreamFusionPlanner.java", true),
            ("org/streamfusion/golden/DedupVectors.java", true),
            ("org/streamfusion/golden/JoinVectors.java", true),
            ("org/streamfusion/golden/NodeVectors.java", true),
            ("org/streamfusion/golden/OverVectors.java", true),
            ("org/streamfusion/golden/RankVectors.java", true),
            ("org/streamfusion/golden/WindowVectors.java", true),
            ("org/streamfusion/golden/CalcVectors.java", false),
            ("org/streamfusion/jni/NativeOperator.java", false),
        ] {
            assert_eq!(needs_planner(dir, &dir.join(source)), needs, "{source}");
        }
    }

    #[test]
    fn the_classpath_is_the_classes_directory_then_the_jars_sorted() {
        let jars = flink_jars(&["log4j-api-2.25.3.jar", "flink-dist-2.3.0.jar"]);
        assert_eq!(
            classpath_line(Path::new("/t/jvm/classes"), &jars).unwrap(),
            "/t/jvm/classes:/cache/flink-2.3.0/lib/flink-dist-2.3.0.jar:\
             /cache/flink-2.3.0/lib/log4j-api-2.25.3.jar"
        );
        assert_eq!(jars.count(), 2);
    }

    #[test]
    fn an_external_classpath_follows_the_classes_directory_verbatim() {
        let jars = Jars::External("/opt/flink/lib/*:/x/a.jar".into());
        assert_eq!(
            classpath_line(Path::new("/t/jvm/classes"), &jars).unwrap(),
            "/t/jvm/classes:/opt/flink/lib/*:/x/a.jar"
        );
        assert_eq!(jars.count(), 2);
    }

    #[test]
    fn a_path_containing_the_classpath_separator_is_refused() {
        let err = classpath_line(Path::new("/t/a:b/classes"), &flink_jars(&[])).unwrap_err();
        assert!(err.to_string().contains("contains ':'"), "{err}");
    }

    #[test]
    fn the_not_prepared_line_says_what_is_missing_and_that_jvm_cases_skip() {
        assert_eq!(
            not_prepared_line("a JDK 17 or newer not found"),
            "JVM classpath not prepared: a JDK 17 or newer not found; JVM-dependent tests and \
             suites will report themselves skipped"
        );
    }

    #[test]
    fn the_summary_says_when_there_was_nothing_to_compile() {
        let prepared = Prepared {
            classpath_file: PathBuf::from("/t/jvm/classpath.txt"),
            planner_classpath_file: None,
            jars: flink_jars(&["a.jar", "b.jar"]),
            sources_dir: PathBuf::from("/ws/java/src"),
            sources_compiled: 0,
            classes_written: 0,
            java_version: None,
        };
        assert_eq!(
            prepared.summary(),
            "2 Flink 2.3.0 jars from /cache/flink-2.3.0/lib; no Java sources under \
             /ws/java/src, nothing compiled"
        );
        let record = prepared.record();
        assert_eq!(record.wheel_sha256.as_deref(), Some(WHEEL_SHA256));
        assert_eq!(record.jar_count, Some(2));
    }
}
