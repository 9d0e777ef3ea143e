//! The EC2 provisioner against a real EC2 API server: `moto_server` (PyPI `moto[server]`)
//! on 127.0.0.1, started by each test. moto boots nothing, so the test plays the machines:
//! every instance moto reports pending or running gets a real `frugal agent` on a loopback
//! address of its own (127.0.0.{k+2} for VM k — never the private address moto returns),
//! started from the configuration file the instance's user data (read back from moto)
//! writes, as the user data starts it (`frugal agent --config`), and killed when its
//! instance is terminated. A small instance-metadata server gives a VM a
//! spot interruption notice, and a proxy in front of moto refuses spot launches for
//! capacity (which moto cannot do). EC2's side of each scenario is read back from moto
//! (through boto3, `tests/ec2/moto.py`); the bill is checked against the stored power
//! intervals × prices.
//!
//! `--ignored` (and the `ec2` feature): `.ci/run` runs them with `FRUGAL_MOTO_SERVER` (the
//! `moto_server` executable) and `FRUGAL_MOTO_PYTHON` (a Python with boto3) from its venv.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::{Api, assert_cost_is_on_time_times_price, free_port, get, http, wait_for};

/// Service seconds per wall second: a 60 s job runs 15 s of wall time.
const SPEEDUP: f64 = 4.0;
const CLUSTER: &str = "ec2test";
const JOB_TIMEOUT: Duration = Duration::from_secs(120);

fn moto_server() -> String {
    std::env::var("FRUGAL_MOTO_SERVER").unwrap_or_else(|_| "moto_server".into())
}

fn moto_python() -> String {
    std::env::var("FRUGAL_MOTO_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// A moto server on a free loopback port, killed on drop.
struct Moto {
    port: u16,
    child: Child,
}

impl Moto {
    fn start(dir: &Path) -> Moto {
        let port = free_port();
        let log = std::fs::File::create(dir.join("moto.log")).unwrap();
        let child = Command::new(moto_server())
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("moto_server runs (FRUGAL_MOTO_SERVER, or moto_server on PATH)");
        wait_for(Duration::from_secs(30), "moto to answer", || {
            TcpStream::connect(("127.0.0.1", port)).ok()
        });
        Moto { port, child }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every instance moto knows, with its state, type, market and tags.
    fn instances(&self) -> Vec<Value> {
        let out = Command::new(moto_python())
            .arg(repo().join("crates/frugal-cli/tests/ec2/moto.py"))
            .args([&self.url(), "instances"])
            .output()
            .expect("python with boto3 runs (FRUGAL_MOTO_PYTHON)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// A cluster instance of VM `vm` launched behind the service's back.
    fn launch_stray(&self, vm: u32) {
        let out = Command::new(moto_python())
            .arg(repo().join("crates/frugal-cli/tests/ec2/moto.py"))
            .args([&self.url(), "launch", CLUSTER, &vm.to_string()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The cluster's instances of VM `vm`.
    fn of_vm(&self, vm: u32) -> Vec<Value> {
        self.instances()
            .into_iter()
            .filter(|i| {
                i["tags"]["frugal.io/cluster"] == CLUSTER
                    && i["tags"]["frugal.io/vm"].as_str() == Some(vm.to_string().as_str())
            })
            .collect()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An instance-metadata server for every VM (`/vm<k>/latest/...`): an IMDSv2 token, and a
/// spot interruption notice for the VMs given one.
struct Metadata {
    port: u16,
    notices: Arc<Mutex<BTreeMap<u32, String>>>,
}

impl Metadata {
    fn start() -> Metadata {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let notices: Arc<Mutex<BTreeMap<u32, String>>> = Arc::default();
        let shared = Arc::clone(&notices);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let notices = Arc::clone(&shared);
                std::thread::spawn(move || serve_metadata(stream, &notices));
            }
        });
        Metadata { port, notices }
    }

    fn interrupt(&self, vm: u32) {
        self.notices.lock().unwrap().insert(
            vm,
            r#"{"action": "terminate", "time": "2026-11-25T12:00:00Z"}"#.into(),
        );
    }
}

fn serve_metadata(mut stream: TcpStream, notices: &Mutex<BTreeMap<u32, String>>) {
    let Some((head, _)) = read_request(&mut stream) else {
        return;
    };
    let line = head.lines().next().unwrap_or_default().to_string();
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let vm: Option<u32> = path
        .strip_prefix("/vm")
        .and_then(|p| p.split('/').next())
        .and_then(|v| v.parse().ok());
    let (status, body) = match (method, vm, path.split_once("/latest/")) {
        ("PUT", Some(_), Some((_, "api/token"))) => ("200 OK", "test-imds-token".to_string()),
        ("GET", Some(vm), Some((_, "meta-data/spot/instance-action")))
            if head
                .to_ascii_lowercase()
                .contains("x-aws-ec2-metadata-token: test-imds-token") =>
        {
            match notices.lock().unwrap().get(&vm) {
                Some(n) => ("200 OK", n.clone()),
                None => ("404 Not Found", String::new()),
            }
        }
        _ => ("401 Unauthorized", String::new()),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// One HTTP/1.1 request: its head and body (by Content-Length).
fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let end = line == "\r\n";
        head.push_str(&line);
        if end {
            break;
        }
    }
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((head, body))
}

/// A proxy in front of moto that answers spot `RunInstances` with EC2's capacity refusal
/// while `refuse_spot` is set, and forwards everything else.
struct Proxy {
    port: u16,
    refused: Arc<Mutex<usize>>,
}

impl Proxy {
    fn start(moto: u16, refuse_spot: Arc<AtomicBool>) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let refused: Arc<Mutex<usize>> = Arc::default();
        let counter = Arc::clone(&refused);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (refuse, counter) = (Arc::clone(&refuse_spot), Arc::clone(&counter));
                std::thread::spawn(move || proxy(stream, moto, &refuse, &counter));
            }
        });
        Proxy { port, refused }
    }
}

fn proxy(mut client: TcpStream, moto: u16, refuse: &AtomicBool, counter: &Mutex<usize>) {
    let Some((head, body)) = read_request(&mut client) else {
        return;
    };
    let text = String::from_utf8_lossy(&body);
    if refuse.load(Ordering::SeqCst)
        && text.contains("Action=RunInstances")
        && text.contains("InstanceMarketOptions.MarketType=spot")
    {
        *counter.lock().unwrap() += 1;
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error>\
                   <Code>InsufficientInstanceCapacity</Code><Message>There is no Spot capacity \
                   available that matches your request.</Message></Error></Errors>\
                   <RequestID>frugal-test</RequestID></Response>";
        let _ = write!(
            client,
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{xml}",
            xml.len()
        );
        return;
    }
    let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", moto)) else {
        return;
    };
    // Forward with `Connection: close`, so the whole answer is what moto sends before
    // closing.
    let head: String = head
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\r\n"))
        .collect();
    let _ = upstream.write_all(format!("{head}Connection: close\r\n\r\n").as_bytes());
    let _ = upstream.write_all(&body);
    let mut answer = Vec::new();
    let _ = upstream.read_to_end(&mut answer);
    let _ = client.write_all(&answer);
}

/// Plays EC2's machines: a loopback `frugal agent` for every pending or running instance
/// of the cluster, stopped when the instance goes.
struct Machines {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Machines {
    fn start(moto: String, service: u16, dir: PathBuf, metadata: u16) -> Machines {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut agents: BTreeMap<u32, Child> = BTreeMap::new();
            while !flag.load(Ordering::SeqCst) {
                let out = Command::new(moto_python())
                    .arg(repo().join("crates/frugal-cli/tests/ec2/moto.py"))
                    .args([&moto, "instances"])
                    .output();
                let Ok(out) = out else { continue };
                let live: BTreeMap<u32, String> = String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .filter(|i| {
                        i["tags"]["frugal.io/cluster"] == CLUSTER
                            && (i["state"] == "pending" || i["state"] == "running")
                    })
                    .filter_map(|i| {
                        let vm = i["tags"]["frugal.io/vm"].as_str()?.parse().ok()?;
                        Some((vm, i["id"].as_str()?.to_string()))
                    })
                    .collect();
                for (vm, id) in &live {
                    if !agents.contains_key(vm) {
                        agents.insert(*vm, agent(&moto, id, service, *vm, &dir, metadata));
                    }
                }
                let gone: Vec<u32> = agents
                    .keys()
                    .filter(|v| !live.contains_key(v))
                    .copied()
                    .collect();
                for vm in gone {
                    let mut a = agents.remove(&vm).unwrap();
                    let _ = a.kill();
                    let _ = a.wait();
                    for pid in frugal_service::agent::worker::running(&format!("{CLUSTER}-vm{vm}"))
                        .into_values()
                    {
                        let _ = Command::new("kill")
                            .args(["-KILL", &pid.to_string()])
                            .status();
                    }
                }
                std::thread::sleep(Duration::from_millis(300));
            }
            for (vm, mut a) in agents {
                let _ = a.kill();
                let _ = a.wait();
                for pid in frugal_service::agent::worker::running(&format!("{CLUSTER}-vm{vm}"))
                    .into_values()
                {
                    let _ = Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .status();
                }
            }
        });
        Machines {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Machines {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The agent instance `id` (VM `vm`) would run: the configuration file its user data
/// writes, with the address the instance would read from its metadata, started as the user
/// data starts it (`frugal agent --config`). Only what differs on loopback is given as flags
/// over the file: the token and work directory (the instance's are under /var/lib/frugal),
/// the metadata service's URL, and the emulated host's size.
fn agent(moto: &str, id: &str, service: u16, vm: u32, dir: &Path, metadata: u16) -> Child {
    let work = dir.join(format!("hosts/vm{vm}"));
    std::fs::create_dir_all(&work).unwrap();
    let out = Command::new(moto_python())
        .arg(repo().join("crates/frugal-cli/tests/ec2/moto.py"))
        .args([moto, "user-data", id])
        .output()
        .expect("moto.py runs");
    let user_data = String::from_utf8(out.stdout).unwrap();
    let (_, rest) = user_data
        .split_once("<<'FRUGAL_AGENT_TOML'\n")
        .unwrap_or_else(|| panic!("{id}'s user data writes no agent.toml:\n{user_data}"));
    let (file, _) = rest.split_once("FRUGAL_AGENT_TOML").unwrap();
    let file = file.replace(
        frugal_service::provision::ec2::ADDRESS,
        &format!("127.0.0.{}", vm + 2),
    );
    // What the service wrote for this instance: its own URL, the VM's host id and address.
    let spec: frugal_service::agent::AgentSpec =
        toml::from_str(&file).unwrap_or_else(|e| panic!("{id}'s agent.toml: {e}\n{file}"));
    assert_eq!(
        spec.service.as_deref(),
        Some(format!("http://127.0.0.1:{service}").as_str())
    );
    assert_eq!(
        spec.host_id.as_deref(),
        Some(format!("{CLUSTER}-vm{vm}").as_str())
    );
    assert_eq!(spec.vm, [format!("{vm}=127.0.0.{}", vm + 2)]);
    assert_eq!(
        spec.runtime,
        Some(frugal_service::agent::AgentRuntime::Emulated)
    );
    let config = work.join("agent.toml");
    std::fs::write(&config, file).unwrap();
    let log = std::fs::File::create(work.join("agent.log")).unwrap();
    Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(["agent", "--config"])
        .arg(&config)
        .arg("--token-file")
        .arg(dir.join("agent.token"))
        .arg("--work-dir")
        .arg(&work)
        .args(["--cores", "16", "--memory-gib", "64"])
        .args([
            "--interruption-notices",
            &format!("http://127.0.0.1:{metadata}/vm{vm}"),
        ])
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("frugal agent starts")
}

/// A service on the emulated backend whose VMs are EC2 instances, with its moto, its
/// machines and its metadata server.
struct Cloud {
    api: Api,
    child: Option<Child>,
    moto: Moto,
    proxy: Proxy,
    metadata: Metadata,
    _machines: Machines,
    cluster: PathBuf,
}

impl std::ops::Deref for Cloud {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Cloud {
    fn start(name: &str, spot: bool, refuse_spot: Arc<AtomicBool>) -> Cloud {
        let dir = std::env::temp_dir().join(format!("frugal-ec2-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("agent.token"), "ec2-test-agent-token\n").unwrap();
        let cluster = dir.join("cluster.toml");
        let toml = if spot {
            "with-spot.toml"
        } else {
            "on-demand.toml"
        };
        std::fs::copy(
            repo().join("crates/frugal-cli/tests/ec2").join(toml),
            &cluster,
        )
        .unwrap();
        let moto = Moto::start(&dir);
        let proxy = Proxy::start(moto.port, refuse_spot);
        let port = free_port();
        let metadata = Metadata::start();
        let machines = Machines::start(moto.url(), port, dir.clone(), metadata.port);
        let mut c = Cloud {
            api: Api {
                port,
                dir,
                timeout: JOB_TIMEOUT,
            },
            child: None,
            moto,
            proxy,
            metadata,
            _machines: machines,
            cluster,
        };
        c.serve();
        c
    }

    fn serve(&mut self) {
        let log = self.dir.join("serve.log");
        self.child = Some(serve(self.port, &self.args(), &log, &aws_env()));
    }

    fn args(&self) -> Vec<String> {
        let p = |x: &Path| x.to_str().unwrap().to_string();
        [
            ("--provisioner", "ec2".to_string()),
            ("--ec2-cluster-id", CLUSTER.to_string()),
            ("--ec2-region", "us-east-1".to_string()),
            (
                "--ec2-endpoint",
                format!("http://127.0.0.1:{}", self.proxy.port),
            ),
            ("--ec2-image-id", "ami-03cf127a".to_string()),
            (
                "--ec2-service-url",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("--ec2-tag", "team=frugal-tests".to_string()),
            ("--agent-token-file", p(&self.dir.join("agent.token"))),
            ("--hosts-dir", p(&self.dir.join("hosts"))),
            ("--host-timeout", "3".to_string()),
            ("--boot-timeout", "20".to_string()),
            ("--cluster", p(&self.cluster)),
            ("--policy", "optimal".to_string()),
            ("--db", p(&self.dir.join("state.db"))),
            ("--speedup", SPEEDUP.to_string()),
        ]
        .into_iter()
        .flat_map(|(f, v)| [f.to_string(), v])
        .collect()
    }

    fn kill_service(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Submits a job of `executors` one-core, 1 GiB executors running `seconds` service
    /// seconds.
    fn submit(&self, id: &str, executors: u32, seconds: u32) {
        let job = json!({
            "id": id, "kind": "cpu_bound", "executors": executors, "executor_cores": 1,
            "executor_memory_gib": 1, "estimated_duration_s": seconds,
            "application_path": "wordcount.py",
        });
        let (status, body) = http(self.port, "POST", "/jobs", &job.to_string()).unwrap();
        assert_eq!(status, 202, "{body}");
    }

    /// Waits until no instance of the cluster is pending or running.
    fn wait_all_gone(&self) {
        wait_for(JOB_TIMEOUT, "every instance to be terminated", || {
            self.moto
                .instances()
                .iter()
                .filter(|i| i["tags"]["frugal.io/cluster"] == CLUSTER)
                .all(|i| i["state"] == "terminated" || i["state"] == "shutting-down")
                .then_some(())
        });
    }

    fn check_bill(&self) {
        let vms = wait_for(JOB_TIMEOUT, "every VM off (or lost)", || {
            let v = get(self.port, "/vms");
            v["vms"]
                .as_array()
                .unwrap()
                .iter()
                .all(|x| x["state"] == "off" || x["state"] == "lost")
                .then_some(v)
        });
        assert_cost_is_on_time_times_price(&self.dir.join("state.db"), SPEEDUP, &vms);
    }
}

impl Drop for Cloud {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            common::stop(&mut child, Duration::from_secs(30));
        }
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Test credentials for moto (any are accepted), and nothing from the machine's own AWS
/// configuration.
fn aws_env() -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ACCESS_KEY_ID", "testing".into()),
        ("AWS_SECRET_ACCESS_KEY", "testing".into()),
        ("AWS_CONFIG_FILE", "/nonexistent".into()),
        ("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent".into()),
        ("AWS_EC2_METADATA_DISABLED", "true".into()),
    ]
}

/// `frugal serve --bind 127.0.0.1:<port> <args>` with exactly `env` for AWS, answering.
fn serve(port: u16, args: &[String], log: &Path, env: &[(&str, String)]) -> Child {
    let child = serve_command(port, args, log, env)
        .spawn()
        .expect("frugal serve starts");
    let t0 = Instant::now();
    while http(port, "GET", "/readyz", "").is_none_or(|(s, _)| s != 200) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the service did not come up: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    child
}

fn serve_command(port: u16, args: &[String], log: &Path, env: &[(&str, String)]) -> Command {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_frugal"));
    cmd.args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(args)
        .env("FRUGAL_API_TOKEN", common::TOKEN)
        .stdout(Stdio::null())
        .stderr(out);
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("AWS_")) {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// The live (pending or running) instances of VM `vm`.
fn live(instances: &[Value]) -> Vec<&Value> {
    instances
        .iter()
        .filter(|i| i["state"] == "pending" || i["state"] == "running")
        .collect()
}

#[test]
#[ignore = "needs moto_server and boto3 (.ci/run installs them)"]
fn a_job_on_two_vms_launches_exactly_their_instances_and_terminates_them() {
    let c = Cloud::start("two", false, Arc::default());
    c.submit("j1", 5, 60);
    // The cheapest cover of 5 cores: the m5.large (VM 0) and one m5.xlarge (VM 1).
    let j = wait_for(JOB_TIMEOUT, "the job to run where placed", || {
        let j = c.job("j1");
        assert_ne!(j["state"], "failed", "{j}\n{}", c.log());
        let observed = j["observed_placement"].as_array()?;
        (observed.len() == 2).then_some(j)
    });
    let vms: Vec<u64> = j["placement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["vm"].as_u64().unwrap())
        .collect();
    assert_eq!(vms, [0, 1], "{j}");
    for (vm, ty) in [(0, "m5.large"), (1, "m5.xlarge")] {
        let mine = c.moto.of_vm(vm);
        assert_eq!(
            mine.len(),
            1,
            "exactly one RunInstances for VM {vm}: {mine:?}"
        );
        assert_eq!(mine[0]["type"], ty);
        assert_eq!(mine[0]["spot"], false);
        assert_eq!(mine[0]["tags"]["team"], "frugal-tests");
        let token = mine[0]["client_token"].as_str().unwrap();
        assert!(
            token.starts_with(&format!("frugal-{CLUSTER}-vm{vm}-")),
            "{token}"
        );
    }
    assert!(c.moto.of_vm(2).is_empty(), "VM 2 was never launched");
    let j = c.wait_ended("j1");
    assert_eq!(j["state"], "completed", "{j}\n{}", c.log());
    c.wait_all_gone();
    c.check_bill();
}

#[test]
#[ignore = "needs moto_server and boto3 (.ci/run installs them)"]
fn a_service_killed_mid_launch_leaves_no_instance_it_does_not_know() {
    let mut c = Cloud::start("killed", false, Arc::default());
    c.submit("j1", 5, 60);
    wait_for(JOB_TIMEOUT, "the first RunInstances", || {
        (!live(&c.moto.instances()).is_empty()).then_some(())
    });
    c.kill_service();
    // A launch whose commit was lost: an instance of VM 2, which the service has off.
    c.moto.launch_stray(2);
    assert_eq!(live(&c.moto.of_vm(2)).len(), 1);
    c.serve();
    wait_for(JOB_TIMEOUT, "the unknown instance to be terminated", || {
        live(&c.moto.of_vm(2)).is_empty().then_some(())
    });
    // Every live instance belongs to a VM the service has on, and no VM has two.
    let states = c.vm_states();
    for vm in 0..3u32 {
        let n = live(&c.moto.of_vm(vm)).len();
        assert!(n <= 1, "VM {vm} has {n} live instances");
        if n == 1 {
            assert_eq!(states[vm as usize], "on", "VM {vm}: {states:?}");
        }
    }
    let j = c.wait_ended("j1");
    assert_eq!(j["state"], "completed", "{j}\n{}", c.log());
    c.wait_all_gone();
    c.check_bill();
}

#[test]
#[ignore = "needs moto_server and boto3 (.ci/run installs them)"]
fn a_spot_interruption_notice_moves_the_executors_before_the_instance_goes() {
    let c = Cloud::start("notice", true, Arc::default());
    c.submit("j1", 3, 240);
    c.wait_observed("j1", &json!([{"vm": 3, "executors": 3}]));
    let spot = c.moto.of_vm(3);
    assert_eq!(spot.len(), 1);
    assert_eq!(spot[0]["spot"], true, "{spot:?}");
    let t0 = Instant::now();
    c.metadata.interrupt(3);
    let j = wait_for(JOB_TIMEOUT, "the executors to move off the spot VM", || {
        let j = c.job("j1");
        let observed = j["observed_placement"].as_array()?;
        (!observed.is_empty() && observed.iter().all(|p| p["vm"] != 3)).then_some(j)
    });
    let moved = t0.elapsed();
    assert!(
        moved < Duration::from_secs(60),
        "moved after {moved:?}, within the notice's 2 minutes"
    );
    let reason = j["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("spot interruption notice"), "{reason}");
    wait_for(JOB_TIMEOUT, "the spot instance to be terminated", || {
        live(&c.moto.of_vm(3)).is_empty().then_some(())
    });
    let j = c.wait_ended("j1");
    assert_eq!(j["state"], "completed", "{j}\n{}", c.log());
    c.wait_all_gone();
    c.check_bill();
    eprintln!("executors moved {moved:?} after the notice");
}

#[test]
#[ignore = "needs moto_server and boto3 (.ci/run installs them)"]
fn a_refused_spot_launch_falls_back_to_on_demand_and_costs_nothing() {
    let refuse = Arc::new(AtomicBool::new(true));
    let c = Cloud::start("refused", true, Arc::clone(&refuse));
    c.submit("j1", 3, 60);
    let j = wait_for(JOB_TIMEOUT, "the job to run on demand", || {
        let j = c.job("j1");
        assert_ne!(j["state"], "failed", "{j}\n{}", c.log());
        let observed = j["observed_placement"].as_array()?;
        (observed.len() == 1 && observed[0]["vm"] != 3).then_some(j)
    });
    let reason = j["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("spot launch refused") && reason.contains("InsufficientInstanceCapacity"),
        "{reason}"
    );
    assert!(c.moto.of_vm(3).is_empty(), "no spot instance exists");
    assert!(
        *c.proxy.refused.lock().unwrap() >= 1,
        "EC2 refused the spot launch"
    );
    let on_demand = j["observed_placement"][0]["vm"].as_u64().unwrap() as u32;
    assert_eq!(c.moto.of_vm(on_demand)[0]["spot"], false);
    let metrics = http(c.port, "GET", "/metrics", "").unwrap().1;
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("frugal_spot_fallbacks_total ") && !l.ends_with(" 0")),
        "{metrics}"
    );
    let j = c.wait_ended("j1");
    assert_eq!(j["state"], "completed", "{j}\n{}", c.log());
    c.wait_all_gone();
    c.check_bill();
    let vms = get(c.port, "/vms");
    assert_eq!(
        vms["vms"][3]["accrued_cost_usd"], 0.0,
        "the refused spot VM costs nothing: {vms}"
    );
}

#[test]
#[ignore = "needs moto_server and boto3 (.ci/run installs them)"]
fn bad_credentials_or_region_stop_the_service_at_start_with_the_reason() {
    let dir = common::tmp("ec2-bad");
    std::fs::copy(
        repo().join("crates/frugal-cli/tests/ec2/on-demand.toml"),
        dir.join("cluster.toml"),
    )
    .unwrap();
    let moto = Moto::start(&dir);
    let port = free_port();
    let args: Vec<String> = [
        "--provisioner",
        "ec2",
        "--ec2-endpoint",
        &moto.url(),
        "--ec2-image-id",
        "ami-03cf127a",
        "--ec2-service-url",
        &format!("http://127.0.0.1:{port}"),
        "--cluster",
        dir.join("cluster.toml").to_str().unwrap(),
        "--db",
        dir.join("state.db").to_str().unwrap(),
        "--agent-token-file",
        dir.join("agent.token").to_str().unwrap(),
        "--hosts-dir",
        dir.join("hosts").to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let log = dir.join("serve.log");
    let run = |extra: &[&str], env: &[(&str, String)]| {
        let mut all = args.clone();
        all.extend(extra.iter().map(|s| s.to_string()));
        let status = serve_command(port, &all, &log, env)
            .env("HOME", &dir)
            .status()
            .unwrap();
        (
            status.code(),
            std::fs::read_to_string(&log).unwrap_or_default(),
        )
    };
    let no_credentials = [
        ("AWS_CONFIG_FILE", "/nonexistent".to_string()),
        ("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent".into()),
        ("AWS_EC2_METADATA_DISABLED", "true".into()),
    ];
    let (code, log_text) = run(&["--ec2-region", "us-east-1"], &no_credentials);
    assert_ne!(code, Some(0));
    assert!(log_text.contains("credentials"), "{log_text}");
    let mut with_keys = aws_env();
    with_keys.retain(|(k, _)| *k != "AWS_REGION");
    let (code, log_text) = run(&[], &with_keys);
    assert_ne!(code, Some(0));
    assert!(log_text.contains("no AWS region"), "{log_text}");
    assert!(moto.instances().is_empty(), "nothing was launched");
}

#[test]
#[ignore = "needs moto_server and boto3 (.ci/run installs them)"]
fn a_cluster_file_comes_from_the_catalogue_and_the_price_file() {
    let dir = common::tmp("ec2-cluster");
    let moto = Moto::start(&dir);
    let prices = dir.join("prices.csv");
    std::fs::write(
        &prices,
        "instance_type,price_per_hour\nm5.large,0.096\nm5.xlarge,0.192\n",
    )
    .unwrap();
    let out = dir.join("cluster.toml");
    let status = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args([
            "cluster",
            "ec2",
            "--types",
            "m5.large,m5.xlarge",
            "--count",
            "2",
            "--spot",
        ])
        .args(["--region", "us-east-1", "--endpoint", &moto.url()])
        .arg("--prices")
        .arg(&prices)
        .arg("--out")
        .arg(&out)
        .envs(aws_env())
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    let cfg = frugal_core::ClusterConfig::from_toml(&text, "cluster.toml").unwrap();
    let types: Vec<(&str, u32, f64)> = cfg
        .instance_type
        .iter()
        .map(|t| (t.name.as_str(), t.cores, t.memory_gib))
        .collect();
    assert_eq!(types, [("m5.large", 2, 8.0), ("m5.xlarge", 4, 16.0)]);
    let groups: Vec<(&str, &str, Option<f64>, u32)> = cfg
        .vms
        .iter()
        .map(|g| {
            (
                g.instance_type.as_str(),
                g.capacity.as_str(),
                g.price_per_hour,
                g.count,
            )
        })
        .collect();
    // moto's spot price history is a placeholder of $0.00001 in every zone.
    assert_eq!(
        groups,
        [
            ("m5.large", "on-demand", Some(0.096), 2),
            ("m5.large", "spot", Some(0.00001), 2),
            ("m5.xlarge", "on-demand", Some(0.192), 2),
            ("m5.xlarge", "spot", Some(0.00001), 2),
        ]
    );
    let missing = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(["cluster", "ec2", "--types", "c5.large", "--count", "1"])
        .arg("--prices")
        .arg(&prices)
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--types c5.large"));
}
