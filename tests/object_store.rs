//! Archives on S3-compatible object storage (`--root s3://BUCKET/PREFIX`), against moto's
//! real S3 server started by the tests: the answers equal those of the same archive on disk,
//! faults between ldwarc and the server (500s, throttling, a stall, dropped connections, a
//! body cut short) never change an answer, and bad settings are one line, exit 2, with
//! nothing created.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{free_port, generate_indexed, ldwarc, run, stdout_ok, venv_bin};
use crate::fault_proxy::{Fault, FaultProxy};

/// moto's S3 server on a loopback port, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Moto {
    fn start() -> Moto {
        let port = free_port();
        let child = Command::new(venv_bin("moto_server"))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start moto_server");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "moto_server did not listen");
            std::thread::sleep(Duration::from_millis(100));
        }
        Moto { child, port }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Runs a boto3 script with `s3` bound to a client of this server.
    fn boto(&self, script: &str) {
        let program = format!(
            "import boto3, os, sys\n\
             s3 = boto3.client('s3', endpoint_url='{}', aws_access_key_id='test', \
             aws_secret_access_key='test', region_name='us-east-1')\n{script}",
            self.endpoint()
        );
        let output = run(Command::new(venv_bin("python")).args(["-c", &program]));
        assert!(
            output.status.success(),
            "boto3: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Creates `bucket` and puts every file under `root/warc/` at `PREFIX/warc/...`.
    fn upload_archive(&self, bucket: &str, prefix: &str, root: &Path) {
        self.boto(&format!(
            "s3.create_bucket(Bucket='{bucket}')\n\
             root = {root:?}\n\
             for d, _, files in os.walk(os.path.join(root, 'warc')):\n\
             \x20   for f in files:\n\
             \x20       p = os.path.join(d, f)\n\
             \x20       s3.upload_file(p, '{bucket}', '{prefix}/' + os.path.relpath(p, root))\n",
            root = root.display().to_string()
        ));
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ldwarc` with the settings of one S3 endpoint and nothing else from the environment (no
/// profile files: HOME is the test's own folder).
fn ldwarc_s3(endpoint: &str, home: &Path) -> Command {
    let mut command = ldwarc();
    for name in [
        "AWS_PROFILE",
        "AWS_SESSION_TOKEN",
        "AWS_ENDPOINT_URL_S3",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_CONFIG_FILE",
        "AWS_DEFAULT_REGION",
        "XDG_CACHE_HOME",
        "LDWARC_ROOT",
    ] {
        command.env_remove(name);
    }
    command
        .env("HOME", home)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ENDPOINT_URL", endpoint)
        .env("LDWARC_S3_CACHE", home.join("cache"))
        .env("LDWARC_S3_TIMEOUT", "2");
    command
}

fn out(command: &mut Command, what: &str) -> String {
    stdout_ok(&run(command), what)
}

/// The one error line and exit 2 of a refused command.
fn refused(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "stderr: {stderr}");
    stderr
}

/// A generated archive on disk, its WARC files in moto at `s3://arch/ld`, and a URL whose
/// replay answers on disk.
struct Setup {
    _dir: tempfile::TempDir,
    disk: PathBuf,
    home: PathBuf,
    moto: Moto,
    cdx: String,
    url: String,
}

fn setup(seed: u64) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let (archive, cdx) = generate_indexed(&disk, seed);
    let moto = Moto::start();
    moto.upload_archive("arch", "ld", &disk);
    let url = archive
        .captures
        .iter()
        .map(|capture| capture.url.clone())
        .find(|url| {
            run(ldwarc().args(["replay", url, "--root"]).arg(&disk))
                .status
                .success()
        })
        .expect("a replayable URL in the generated archive");
    Setup {
        _dir: dir,
        disk,
        home,
        moto,
        cdx,
        url,
    }
}

#[test]
fn s3_root_answers_as_the_archive_on_disk() {
    let s = setup(33);
    let endpoint = s.moto.endpoint();
    let s3 = |args: &[&str]| {
        out(
            ldwarc_s3(&endpoint, &s.home)
                .args(args)
                .args(["--root", "s3://arch/ld"]),
            &args.join(" "),
        )
    };
    let disk = |args: &[&str]| {
        out(
            ldwarc().args(args).arg("--root").arg(&s.disk),
            &args.join(" "),
        )
    };
    s3(&["index"]);
    assert_eq!(s3(&["cdx"]), s.cdx);
    assert_eq!(s3(&["replay", &s.url]), disk(&["replay", &s.url]));
    let snapshot = disk(&["snapshot", "now"]);
    assert!(!snapshot.is_empty());
    assert_eq!(s3(&["snapshot", "now"]), snapshot);
    assert_eq!(s3(&["query", &s.url]), disk(&["query", &s.url]));
}

#[test]
fn faults_between_ldwarc_and_the_server_never_change_an_answer() {
    let s = setup(34);
    let proxy = FaultProxy::start(
        s.moto.port,
        vec![
            Fault::Status500,
            Fault::SlowDown,
            Fault::Stall(Duration::from_secs(4)),
            Fault::Drop,
            Fault::HalfBody,
        ],
        false,
    );
    let endpoint = format!("http://127.0.0.1:{}", proxy.port());
    out(
        ldwarc_s3(&endpoint, &s.home).args(["index", "--root", "s3://arch/ld"]),
        "index through the fault proxy",
    );
    assert_eq!(proxy.faults_left(), 0, "every fault was met");
    assert_eq!(
        out(
            ldwarc_s3(&endpoint, &s.home).args(["cdx", "--root", "s3://arch/ld"]),
            "cdx"
        ),
        s.cdx
    );

    // A server that throttles every read: the command gives up with one line, nothing
    // half-fetched is left in the cache.
    let home = s.home.join("other");
    std::fs::create_dir_all(&home).unwrap();
    let throttling = FaultProxy::start(s.moto.port, vec![Fault::SlowDown], true);
    let endpoint = format!("http://127.0.0.1:{}", throttling.port());
    let output = run(ldwarc_s3(&endpoint, &home).args(["cdx", "--root", "s3://arch/ld"]));
    let line = refused(&output);
    assert!(line.contains("s3://arch/ld"), "{line}");
    assert!(line.contains("SlowDown") || line.contains("503"), "{line}");
    assert!(throttling.ranged_gets() > 1, "the read was retried");
    let cached: Vec<_> = walkdir::WalkDir::new(home.join("cache"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "gz"))
        .collect();
    assert!(cached.is_empty(), "{cached:?}");
}

#[test]
fn bad_settings_are_one_line_and_create_nothing() {
    let moto = Moto::start();
    moto.boto("s3.create_bucket(Bucket='empty')");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let endpoint = moto.endpoint();
    let cache = home.join("cache");

    let output = run(ldwarc_s3(&endpoint, home)
        .env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .args(["cdx", "--root", "s3://arch/ld"]));
    let line = refused(&output);
    assert!(
        line.contains("no credentials") && line.contains("AWS_ACCESS_KEY_ID"),
        "{line}"
    );

    let output = run(ldwarc_s3(&endpoint, home).args(["index", "--root", "s3://nobucket/ld"]));
    let line = refused(&output);
    assert!(
        line.contains("s3://nobucket/ld") && line.contains("no bucket"),
        "{line}"
    );

    let output = run(ldwarc_s3(&endpoint, home).args(["cdx", "--root", "s3://empty/ld"]));
    let line = refused(&output);
    assert!(
        line.contains("not an archive (no objects under ld/warc/)"),
        "{line}"
    );

    let silent = format!("http://127.0.0.1:{}", free_port());
    let output = run(ldwarc_s3(&silent, home).args(["cdx", "--root", "s3://arch/ld"]));
    let line = refused(&output);
    assert!(line.contains("s3://arch/ld"), "{line}");

    let output = run(ldwarc_s3(&endpoint, home).args(["crawl", "--root", "s3://arch/ld"]));
    let line = refused(&output);
    assert!(line.contains("works on a local folder only"), "{line}");

    assert!(!cache.exists(), "nothing cached");
    assert!(!Path::new("s3:").exists(), "no folder named after the URL");
    let listing = run(Command::new(venv_bin("python")).args([
        "-c",
        &format!(
            "import boto3\ns3 = boto3.client('s3', endpoint_url='{endpoint}', \
             aws_access_key_id='test', aws_secret_access_key='test', region_name='us-east-1')\n\
             print(sorted(b['Name'] for b in s3.list_buckets()['Buckets']))\n\
             print(s3.list_objects_v2(Bucket='empty').get('KeyCount'))"
        ),
    ]));
    assert_eq!(
        String::from_utf8_lossy(&listing.stdout),
        "['empty']\n0\n",
        "nothing created in the store"
    );
}
