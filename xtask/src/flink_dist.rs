//! `cargo xtask flink`: a runnable Flink 2.3.0 with StreamFusion, assembled from the two PyPI
//! wheels (Maven Central and the Apache mirrors are not reachable from the build machines).
//!
//! - `bin/`, `conf/` from `apache-flink` (PyFlink keeps them as `pyflink/bin/`,
//!   `pyflink/conf/`), conf as shipped: the user turns StreamFusion on;
//! - `lib/`, `opt/`, `plugins/` and `bin/bash-java-utils.jar` from `apache-flink-libraries`,
//!   with the planner loader replaced by the real planner (the one Flink ships in `opt/`);
//! - `lib/flink-streamfusion-2.3.0.jar`: the planner extension, the JNI classes and the native
//!   library as the resource `native/<os>-<arch>/libstreamfusion_jni.so`, which
//!   `NativeOperator` loads from the jar (no `LD_LIBRARY_PATH`). Its name sorts before
//!   `flink-table-planner_*`: `bin/config.sh` puts `lib/*.jar` on the classpath sorted by name,
//!   and the jar's `DefaultPlannerFactory` must come first to shadow the planner's;
//! - `opt/streamfusion-sql-script.jar`, which `bin/flink run` runs SQL scripts with: the
//!   wheels carry no `opt/flink-sql-gateway-2.3.0.jar`, without which `bin/sql-client.sh`
//!   fails (on a Flink installed from Apache's tarball it works as usual).
//!
//! The native library comes from `cargo build --release --workspace` with the features
//! `cargo xtask test` uses, so both share one build. The distribution is staged beside its
//! destination and renamed into place; a fingerprint of its inputs skips an unchanged one.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;
use xshell::{Shell, cmd};

use crate::jvm::files;
use crate::jvm::flink::{FLINK_VERSION, FlinkCache, LIBRARIES_WHEEL, LOADER_JAR, PYFLINK_WHEEL};
use crate::jvm::{self, Outcome};
use crate::prereqs;
use crate::suites::Session;
use crate::workspace::{Features, Workspace, cargo};

/// Where tests find the assembled distribution.
pub const HOME_VAR: &str = "SF_FLINK_HOME";

/// The StreamFusion jar in `lib/`.
pub const STREAMFUSION_JAR: &str = "flink-streamfusion-2.3.0.jar";

/// The distribution's directory name under the target directory.
const DIST_NAME: &str = "flink-2.3.0-streamfusion";

const LIBRARY_FILE: &str = "libstreamfusion_jni.so";

/// Holds the fingerprint of the inputs the distribution was assembled from.
const FINGERPRINT_FILE: &str = ".streamfusion-dist";

/// Bumped when the layout changes, so an older distribution is assembled again.
const LAYOUT_VERSION: u32 = 4;

/// What the wheels contribute, as `jar xf` names directory entries.
const FROM_PYFLINK: &[&str] = &["pyflink/bin/", "pyflink/conf/"];
const FROM_LIBRARIES: &[&str] = &[
    "pyflink/opt/",
    "pyflink/plugins/",
    "pyflink/bin/bash-java-utils.jar",
];

/// Compiled classes that go into the StreamFusion jar: the JNI boundary, the planner
/// extension, and the one shadowed Flink class (with any nested classes).
const JAR_CLASS_DIRS: &[&str] = &["org/streamfusion/jni", "org/streamfusion/flink"];
const SHADOWED_CLASS: &str = "org/apache/flink/table/planner/delegation/DefaultPlannerFactory";

/// The SQL script runner, `opt/streamfusion-sql-script.jar` (see [`script_jar`]).
pub const SCRIPT_JAR: &str = "streamfusion-sql-script.jar";
const SCRIPT_CLASS_DIR: &str = "org/streamfusion/cluster";
const SCRIPT_MAIN_CLASS: &str = "org.streamfusion.cluster.SqlScript";

#[derive(Debug, Args)]
pub struct FlinkArgs {
    /// Where to put the distribution [default: <target>/flink-2.3.0-streamfusion].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Put this libstreamfusion_jni.so into the jar instead of building the workspace.
    #[arg(long, value_name = "PATH")]
    pub library: Option<PathBuf>,
}

pub fn run(args: &FlinkArgs) -> Result<ExitCode> {
    let workspace = Workspace::load()?;
    let sh = workspace.shell()?;
    let library = match &args.library {
        Some(path) => std::path::absolute(path)
            .with_context(|| format!("making {} absolute", path.display()))?,
        None => build_library(&sh, &workspace, &workspace.test_features()?)?.1,
    };
    let out = match &args.out {
        Some(out) => std::path::absolute(out)
            .with_context(|| format!("making {} absolute", out.display()))?,
        None => default_dist(&workspace),
    };
    let dist = assemble(&sh, &workspace, &library, &out)?;
    print_usage(&dist);
    Ok(ExitCode::SUCCESS)
}

/// For `cargo xtask test`, after the JVM classpath: builds the library, assembles the
/// distribution and exports its path as `SF_FLINK_HOME`. Missing prerequisites are one line
/// and not a failure; returns false when building or assembling failed (already printed).
pub fn prepare_for_session(session: &mut Session, features: &Features) -> Result<bool> {
    // Empty means none (the shell cannot unset an inherited variable).
    session.sh.set_var(HOME_VAR, "");
    if let Some(reason) = not_assembled_reason(session)? {
        println!(
            "Flink distribution not assembled: {reason}; tests needing a Flink cluster will \
             report themselves skipped"
        );
        return Ok(true);
    }
    let built = build_library(&session.sh, &session.workspace, features).and_then(|(line, lib)| {
        session.metadata.cargo_commands.push(line);
        session.metadata.write()?;
        let dist = default_dist(&session.workspace);
        assemble(&session.sh, &session.workspace, &lib, &dist)
    });
    match built {
        Ok(dist) => {
            println!("flink: {}", dist.display());
            session.sh.set_var(HOME_VAR, &dist);
            Ok(true)
        }
        Err(err) => {
            eprintln!("error: assembling the Flink distribution failed: {err:#}");
            Ok(false)
        }
    }
}

/// Why the session cannot assemble the distribution, if it cannot.
fn not_assembled_reason(session: &Session) -> Result<Option<String>> {
    let Some(record) = session.metadata.jvm.as_ref().filter(|r| r.prepared) else {
        return Ok(Some("the JVM classpath was not prepared".into()));
    };
    if std::env::var_os(jvm::NATIVE_CLASSPATH_VAR).is_some_and(|v| !v.is_empty()) {
        return Ok(Some(format!(
            "the JVM classpath comes from {} ({}), not from the cached Flink wheels",
            jvm::NATIVE_CLASSPATH_VAR,
            record.jars_from.as_deref().unwrap_or("external")
        )));
    }
    let cache = FlinkCache::locate()?;
    let need_pip = !cache.wheel_path(&PYFLINK_WHEEL).is_file()
        || !cache.wheel_path(&LIBRARIES_WHEEL).is_file();
    Ok(prereqs::check_jvm(need_pip).err().map(|m| m.summary()))
}

/// `<target>/flink-2.3.0-streamfusion`.
fn default_dist(workspace: &Workspace) -> PathBuf {
    workspace.target_dir.join(DIST_NAME)
}

/// `cargo build --release --workspace --features <features>`: the same artifacts
/// `cargo xtask test` builds, so the two share one build. Returns the command line and the
/// library.
pub(crate) fn build_library(
    sh: &Shell,
    workspace: &Workspace,
    features: &Features,
) -> Result<(String, PathBuf)> {
    let cargo = cargo();
    let feature_args: Vec<String> = features
        .cargo_arg()
        .map(|f| vec!["--features".to_string(), f])
        .unwrap_or_default();
    let command = cmd!(sh, "{cargo} build --release --workspace {feature_args...}");
    let line = command.to_string();
    eprintln!("$ {line}");
    command
        .quiet()
        .run()
        .with_context(|| format!("`{line}` failed (its messages are above)"))?;
    let library = workspace.target_dir.join("release").join(LIBRARY_FILE);
    if !library.is_file() {
        bail!("`{line}` succeeded but left no {}", library.display());
    }
    Ok((line, library))
}

/// Assembles the distribution at `out` (unless it is up to date) and returns `out`.
pub fn assemble(sh: &Shell, workspace: &Workspace, library: &Path, out: &Path) -> Result<PathBuf> {
    if !library.is_file() {
        bail!("the native library {} does not exist", library.display());
    }
    let classes = match jvm::prepare(sh, workspace)? {
        Outcome::Prepared(prepared) => match &prepared.planner_classpath_file {
            Some(file) => classes_dir(file)?,
            None => bail!(
                "the planner extension was not compiled ({} holds no flink-table-planner_* \
                 jar); unset it to assemble from the cached Flink wheels",
                jvm::NATIVE_CLASSPATH_VAR
            ),
        },
        Outcome::Missing(missing) => bail!("{missing}"),
    };
    let cache = FlinkCache::locate()?;
    let lib_jars = cache.ensure(sh)?;
    let planner = cache.ensure_planner(sh)?;
    let libraries_wheel = cache.fetch(sh, &LIBRARIES_WHEEL)?;
    let pyflink_wheel = cache.fetch(sh, &PYFLINK_WHEEL)?;

    let fingerprint = fingerprint(&classes, library)?;
    let fingerprint_file = out.join(FINGERPRINT_FILE);
    if fs::read_to_string(&fingerprint_file).is_ok_and(|f| f.trim() == fingerprint) {
        eprintln!("xtask: {} is up to date", out.display());
        return Ok(out.to_path_buf());
    }

    let parent = out
        .parent()
        .with_context(|| format!("{} has no parent directory", out.display()))?;
    fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = out
        .file_name()
        .with_context(|| format!("{} has no file name", out.display()))?
        .to_string_lossy()
        .into_owned();
    let _lock = files::lock_exclusive(
        &parent.join(format!(".{name}.lock")),
        "assembling the Flink distribution",
    )?;
    let staging = parent.join(format!(".{name}.staging-{}", std::process::id()));
    files::remove(&staging)?;
    fs::create_dir_all(&staging).with_context(|| format!("creating {}", staging.display()))?;
    eprintln!(
        "xtask: assembling {} in {}",
        out.display(),
        staging.display()
    );
    {
        let _cwd = sh.push_dir(&staging);
        for (wheel, entries) in [
            (&pyflink_wheel, FROM_PYFLINK),
            (&libraries_wheel, FROM_LIBRARIES),
        ] {
            cmd!(sh, "jar xf {wheel} {entries...}")
                .quiet()
                .run()
                .with_context(|| format!("`jar xf` could not unpack {}", wheel.display()))?;
        }
    }
    let dist = staging.join("pyflink");
    for dir in ["bin", "conf", "opt"] {
        if !dist.join(dir).is_dir() {
            bail!("the wheels held no pyflink/{dir}/; are they Flink {FLINK_VERSION}'s?");
        }
    }
    make_scripts_executable(&dist.join("bin"))?;
    // Flink's scripts write their logs there but do not create it; the tarball ships it empty.
    fs::create_dir_all(dist.join("log")).context("creating log/")?;

    let lib = dist.join("lib");
    fs::create_dir_all(&lib).with_context(|| format!("creating {}", lib.display()))?;
    for jar in lib_jars.iter().filter(|jar| !jar.ends_with(LOADER_JAR)) {
        link_or_copy(jar, &lib.join(jar.file_name().expect("a jar has a name")))?;
    }
    link_or_copy(
        &planner,
        &lib.join(planner.file_name().expect("a jar has a name")),
    )?;
    streamfusion_jar(
        sh,
        &classes,
        library,
        &staging.join("jar"),
        &lib.join(STREAMFUSION_JAR),
    )?;
    script_jar(
        sh,
        &classes,
        &staging.join("jar"),
        &dist.join("opt").join(SCRIPT_JAR),
    )?;
    fs::write(dist.join(FINGERPRINT_FILE), format!("{fingerprint}\n"))
        .with_context(|| format!("writing the fingerprint into {}", dist.display()))?;

    // Replace the old distribution: aside, the new one in, the old one away.
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    if fs::symlink_metadata(out).is_ok() {
        fs::rename(out, &old).with_context(|| format!("moving the old {} aside", out.display()))?;
    }
    fs::rename(&dist, out)
        .with_context(|| format!("renaming {} to {}", dist.display(), out.display()))?;
    files::remove(&old)?;
    files::remove(&staging)?;
    Ok(out.to_path_buf())
}

/// The classes directory: the first entry of a classpath file `cargo xtask jvm` wrote.
fn classes_dir(classpath_file: &Path) -> Result<PathBuf> {
    let line = fs::read_to_string(classpath_file)
        .with_context(|| format!("reading {}", classpath_file.display()))?;
    let first = line.trim().split(':').next().unwrap_or_default();
    let dir = PathBuf::from(first);
    if !dir.is_dir() {
        bail!(
            "{} does not start with a classes directory (`{first}`)",
            classpath_file.display()
        );
    }
    Ok(dir)
}

/// A hash of everything the distribution is made of: the pinned wheels, the compiled
/// classes (their directory is named by a hash of the sources), the library's bytes.
fn fingerprint(classes: &Path, library: &Path) -> Result<String> {
    let mut hasher = DefaultHasher::new();
    LAYOUT_VERSION.hash(&mut hasher);
    LIBRARIES_WHEEL.sha256.hash(&mut hasher);
    PYFLINK_WHEEL.sha256.hash(&mut hasher);
    classes.hash(&mut hasher);
    fs::read(library)
        .with_context(|| format!("reading {}", library.display()))?
        .hash(&mut hasher);
    Ok(format!("{:016x}", hasher.finish()))
}

/// `jar xf` does not keep file modes.
fn make_scripts_executable(bin: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in fs::read_dir(bin).with_context(|| format!("listing {}", bin.display()))? {
        let path = entry
            .with_context(|| format!("listing {}", bin.display()))?
            .path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.ends_with(".sh") || name == "flink" {
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755))
                .with_context(|| format!("making {} executable", path.display()))?;
        }
    }
    Ok(())
}

/// A hard link to the cached jar (the cache and the target directory usually share a file
/// system), else a copy.
fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    if fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    fs::copy(from, to)
        .map(|_| ())
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))
}

/// The resource `NativeOperator` loads the library from on this platform.
fn library_resource() -> String {
    format!(
        "native/{}-{}/{LIBRARY_FILE}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// Builds the StreamFusion jar from the compiled classes and the native library, through
/// the scratch directory `content`.
fn streamfusion_jar(
    sh: &Shell,
    classes: &Path,
    library: &Path,
    content: &Path,
    jar: &Path,
) -> Result<()> {
    let wanted = |relative: &Path| {
        let name = relative.to_string_lossy();
        JAR_CLASS_DIRS.iter().any(|dir| relative.starts_with(dir))
            || name == format!("{SHADOWED_CLASS}.class")
            || name.starts_with(&format!("{SHADOWED_CLASS}$"))
    };
    let copied = copy_classes(classes, content, wanted)?;
    if !content.join(format!("{SHADOWED_CLASS}.class")).is_file() {
        bail!(
            "{} holds no {SHADOWED_CLASS}.class; was the planner extension compiled?",
            classes.display()
        );
    }
    let resource = content.join(library_resource());
    fs::create_dir_all(resource.parent().expect("the resource has a directory"))
        .with_context(|| format!("creating the directory of {}", resource.display()))?;
    fs::copy(library, &resource)
        .with_context(|| format!("copying {} to {}", library.display(), resource.display()))?;
    create_jar(sh, content, jar, None)?;
    eprintln!(
        "xtask: {} holds {copied} classes and {}",
        jar.display(),
        library_resource()
    );
    Ok(())
}

/// `opt/streamfusion-sql-script.jar`: `bin/flink run` it with a SQL script, where
/// `bin/sql-client.sh` cannot run (the wheels carry no `opt/flink-sql-gateway-*.jar`).
fn script_jar(sh: &Shell, classes: &Path, content: &Path, jar: &Path) -> Result<()> {
    let copied = copy_classes(classes, content, |relative| {
        relative.starts_with(SCRIPT_CLASS_DIR)
    })?;
    if copied == 0 {
        bail!("{} holds no {SCRIPT_CLASS_DIR} classes", classes.display());
    }
    create_jar(sh, content, jar, Some(SCRIPT_MAIN_CLASS))
}

/// Copies the class files under `classes` that `wanted` accepts (by relative path) into a
/// fresh `content`; returns how many.
fn copy_classes(classes: &Path, content: &Path, wanted: impl Fn(&Path) -> bool) -> Result<usize> {
    files::remove(content)?;
    let mut copied = 0;
    for class in files::find_recursive(classes, "class")? {
        let relative = class
            .strip_prefix(classes)
            .expect("found under the classes");
        if wanted(relative) {
            let to = content.join(relative);
            fs::create_dir_all(to.parent().expect("a class has a directory"))
                .with_context(|| format!("creating the directory of {}", to.display()))?;
            fs::copy(&class, &to)
                .with_context(|| format!("copying {} to {}", class.display(), to.display()))?;
            copied += 1;
        }
    }
    Ok(copied)
}

/// `jar --create` of `content` (then removed), with `main_class` in the manifest if given.
fn create_jar(sh: &Shell, content: &Path, jar: &Path, main_class: Option<&str>) -> Result<()> {
    let main: Vec<String> = main_class
        .map(|class| vec!["--main-class".to_string(), class.to_string()])
        .unwrap_or_default();
    cmd!(sh, "jar --create --file {jar} {main...} -C {content} .")
        .quiet()
        .run()
        .with_context(|| format!("`jar --create` could not write {}", jar.display()))?;
    files::remove(content)
}

fn print_usage(dist: &Path) {
    let planner = format!("flink-table-planner_2.12-{FLINK_VERSION}.jar");
    println!("flink: {}", dist.display());
    println!(
        "StreamFusion is in its lib/ (with the real planner) but off: set \
         `streamfusion.enabled: true` in conf/config.yaml, or per SQL session \
         `SET 'streamfusion.enabled' = 'true';`. Then {0}/bin/start-cluster.sh, \
         {0}/bin/flink run {0}/opt/streamfusion-sql-script.jar script.sql (the wheels carry no \
         SQL gateway, which bin/sql-client.sh needs), {0}/bin/stop-cluster.sh.\n\
         To use it with an existing Flink {FLINK_VERSION} installation instead:\n\
         1. copy {0}/lib/{STREAMFUSION_JAR} into its lib/;\n\
         2. move its lib/{LOADER_JAR} out of lib/ and its opt/{planner} into lib/;\n\
         3. set `streamfusion.enabled: true` in its conf/config.yaml.",
        dist.display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamfusion_jar_sorts_before_the_planner() {
        // bin/config.sh orders lib/*.jar by name; the shadowing class must come first.
        assert!(STREAMFUSION_JAR < "flink-table-planner_2.12-2.3.0.jar");
    }

    #[test]
    fn the_library_resource_names_the_platform() {
        assert!(library_resource().starts_with("native/"));
        assert!(library_resource().ends_with("/libstreamfusion_jni.so"));
    }
}
