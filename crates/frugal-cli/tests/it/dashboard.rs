//! The web dashboard in a real browser: headless Chromium driven over the DevTools
//! protocol (ignored: needs Debian's `chromium`, installed by `.ci/run`).
//!
//! `FRUGAL_UPDATE_BOOK=1` also writes the screenshot the operator's guide shows.

use crate::common;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use common::{TOKEN, free_port, get, http, spawn_serve, tmp, wait_for, words};

/// A headless Chromium and one page of it, over the DevTools protocol.
struct Browser {
    child: Child,
    page: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    /// Console errors, warnings and uncaught exceptions seen so far.
    console: Vec<String>,
}

impl Browser {
    /// Starts Chromium on `url` with a fresh profile in `dir`.
    fn open(url: &str, dir: &Path) -> Browser {
        let mut child = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--remote-debugging-port=0",
                "--window-size=1280,1700",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(url)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("chromium runs (apt-get install chromium)");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let port = loop {
            let line = lines
                .next()
                .expect("chromium prints its DevTools address")
                .unwrap();
            if let Some(rest) = line.strip_prefix("DevTools listening on ws://127.0.0.1:") {
                break rest.split('/').next().unwrap().parse::<u16>().unwrap();
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        let page_ws = wait_for(Duration::from_secs(20), "the page target", || {
            let list: Value = serde_json::from_str(&raw_get(port, "/json/list")?).ok()?;
            list.as_array()?
                .iter()
                .find(|t| t["type"] == "page")
                .and_then(|t| t["webSocketDebuggerUrl"].as_str().map(String::from))
        });
        let (page, _) = tungstenite::connect(page_ws).expect("the page's DevTools socket");
        if let MaybeTlsStream::Plain(s) = page.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        }
        let mut b = Browser {
            child,
            page,
            next: 0,
            console: Vec::new(),
        };
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            b.call(domain, json!({}));
        }
        b
    }

    /// Sends one command and waits for its answer, keeping the console events that
    /// arrive meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let msg = json!({"id": id, "method": method, "params": params});
        self.page.send(Message::text(msg.to_string())).unwrap();
        loop {
            let Message::Text(text) = self.page.read().unwrap() else {
                continue;
            };
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["id"] == id {
                assert!(v["error"].is_null(), "{method}: {v}");
                return v["result"].clone();
            }
            self.note(&v);
        }
    }

    fn note(&mut self, event: &Value) {
        let p = &event["params"];
        match event["method"].as_str() {
            Some("Runtime.consoleAPICalled")
                if p["type"] == "error" || p["type"] == "warning" || p["type"] == "assert" =>
            {
                self.console
                    .push(format!("console.{}: {}", p["type"], p["args"]));
            }
            Some("Runtime.exceptionThrown") => {
                self.console
                    .push(format!("exception: {}", p["exceptionDetails"]));
            }
            Some("Log.entryAdded") if p["entry"]["level"] == "error" => {
                self.console.push(format!("log: {}", p["entry"]));
            }
            _ => {}
        }
    }

    /// The value of a JavaScript expression in the page.
    fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(r["exceptionDetails"].is_null(), "{expression}: {r}");
        r["result"]["value"].clone()
    }

    /// Waits up to `timeout` for `expression` to be true in the page.
    fn wait(&mut self, timeout: Duration, expression: &str) {
        let t0 = Instant::now();
        while self.eval(expression) != json!(true) {
            assert!(
                t0.elapsed() < timeout,
                "timed out waiting for `{expression}` (console: {:?})",
                self.console
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A PNG of the whole page.
    fn screenshot(&mut self) -> Vec<u8> {
        let r = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true}),
        );
        base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET over plain HTTP without a token (Chromium's DevTools listing, which keeps the
/// connection open: the body is read by its length).
fn raw_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").ok()?;
    let mut r = BufReader::new(s);
    let mut length = 0;
    loop {
        let mut line = String::new();
        r.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body).ok()?;
    String::from_utf8(body).ok()
}

fn submit(port: u16, id: &str, executors: u32, duration_s: f64, deadline_s: f64) {
    let body = json!({
        "id": id, "executors": executors, "executor_cores": 2, "executor_memory_gib": 2,
        "estimated_duration_s": duration_s, "deadline_s": deadline_s,
        "application_path": "wordcount.py",
    });
    let (status, answer) = http(port, "POST", "/jobs", &body.to_string()).unwrap();
    assert_eq!(status, 202, "{answer}");
}

#[test]
#[ignore = "needs Debian's chromium; run by .ci/run"]
fn the_dashboard_shows_the_queue_and_the_timeline_live_in_chromium() {
    let dir = tmp("dashboard");
    let port = free_port();
    let db = dir.join("frugal.db");
    let db_arg = db.to_str().unwrap();
    let mut serve = spawn_serve(
        port,
        &words(&format!(
            "--db {db_arg} --policy first-fit --speedup 120 --budget-per-hour 30 --retention 36000"
        )),
        &dir.join("serve.log"),
        Duration::from_secs(30),
    );
    // A small workload: six jobs of 60–300 s (0.5–2.5 s of wall time), one with a
    // deadline it misses.
    for (k, (executors, duration)) in [(1, 60.0), (2, 120.0), (3, 300.0), (1, 180.0), (2, 240.0)]
        .into_iter()
        .enumerate()
    {
        submit(port, &format!("job{k}"), executors, duration, 3600.0);
    }
    submit(port, "late", 1, 600.0, 30.0);
    let counts = wait_for(Duration::from_secs(60), "the workload to end", || {
        let c = get(port, "/dashboard")["counts"].clone();
        (c["completed"] == 6).then_some(c)
    });
    assert_eq!(counts["deadline_met"], 5, "{counts}");
    assert_eq!(counts["deadline_missed"], 1, "{counts}");

    let mut b = Browser::open(&format!("http://127.0.0.1:{port}/ui"), &dir);
    // Without a token: the login, and nothing of the data.
    b.wait(
        Duration::from_secs(10),
        "document.readyState === 'complete' && document.getElementById('login') !== null \
         && !document.getElementById('login').hidden",
    );
    assert_eq!(
        b.eval("document.getElementById('board').hidden"),
        json!(true)
    );
    // A wrong token is refused and the login says so.
    b.eval(
        "document.getElementById('token').value = 'wrong';\
         document.getElementById('login-form').requestSubmit(); true",
    );
    b.wait(
        Duration::from_secs(10),
        "document.getElementById('login-error').textContent.includes('refused')",
    );
    let login = b.screenshot();
    // The refused call is the one error expected: Chromium logs the 401.
    assert!(
        b.console.iter().all(|c| c.contains("401")),
        "console: {:?}",
        b.console
    );
    b.console.clear();
    b.eval(&format!(
        "document.getElementById('token').value = '{TOKEN}';\
         document.getElementById('login-form').requestSubmit(); true"
    ));
    b.wait(
        Duration::from_secs(10),
        "document.getElementById('count-completed').textContent === '6'",
    );
    assert_eq!(
        b.eval("sessionStorage.getItem('frugal-token')"),
        json!(TOKEN)
    );
    assert_eq!(b.eval("document.cookie"), json!(""));
    // The right counts, and one timeline bar per stored power-on interval.
    let d = get(port, "/dashboard");
    let intervals: usize = d["vms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["on"].as_array().unwrap().len())
        .sum();
    assert!(intervals >= 2, "{d}");
    assert_eq!(
        b.eval("document.querySelectorAll('#timeline rect').length"),
        json!(intervals)
    );
    // The tiles show the API's counts of every accepted job (/jobs lists six).
    let listed = get(port, "/jobs")["jobs"].as_array().unwrap().len();
    assert_eq!(d["counts"]["completed"], json!(listed), "{d}");
    for k in ["completed", "queued", "running", "dropped", "unschedulable"] {
        b.wait(
            Duration::from_secs(10),
            &format!(
                "document.getElementById('count-{k}').textContent === '{}'",
                d["counts"][k]
            ),
        );
    }
    b.wait(
        Duration::from_secs(10),
        "document.getElementById('deadlines-detail').textContent.startsWith('5 of 6 decided')",
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#ended tbody tr').length"),
        json!(6)
    );
    assert_eq!(
        b.eval("document.querySelectorAll('#decisions tbody tr').length"),
        json!(6)
    );
    assert_eq!(
        b.eval("document.querySelector('#ended tr[data-job=late] td:nth-child(4)').textContent"),
        json!("missed")
    );
    assert_eq!(
        b.eval("document.getElementById('budget').textContent"),
        json!("of a $30.0000/h budget")
    );
    // A submission through the API appears without a reload.
    b.eval("window.notReloaded = true");
    submit(port, "fresh", 2, 7200.0, 36000.0);
    b.wait(
        Duration::from_secs(5),
        "document.querySelector('#running tr[data-job=fresh], #queued tr[data-job=fresh]') !== null",
    );
    assert_eq!(b.eval("window.notReloaded"), json!(true));
    let board = b.screenshot();
    assert!(b.console.is_empty(), "console: {:?}", b.console);
    // The detector catches an error when there is one.
    b.eval("console.error('boom'); true");
    b.eval("true");
    assert!(
        b.console.iter().any(|c| c.contains("boom")),
        "{:?}",
        b.console
    );
    for (png, name) in [(&login, "login.png"), (&board, "dashboard.png")] {
        assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{name}");
        std::fs::write(dir.join(name), png).unwrap();
    }
    if std::env::var_os("FRUGAL_UPDATE_BOOK").is_some() {
        let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/book/src/service");
        std::fs::write(book.join("dashboard.png"), &board).unwrap();
    }

    // Restarted with no retention, the ended jobs live only in the database: the tiles
    // still count every accepted job, as /jobs lists them, with the same deadline figures.
    let _ = serve.kill();
    let _ = serve.wait();
    let mut serve = spawn_serve(
        port,
        &words(&format!(
            "--db {db_arg} --policy first-fit --speedup 120 --retention 0"
        )),
        &dir.join("serve-again.log"),
        Duration::from_secs(30),
    );
    let d = wait_for(
        Duration::from_secs(30),
        "the ended jobs to leave memory",
        || {
            let d = get(port, "/dashboard");
            d["ended"]
                .as_array()
                .is_some_and(Vec::is_empty)
                .then_some(d)
        },
    );
    let jobs = get(port, "/jobs")["jobs"].as_array().unwrap().clone();
    let in_state = |s: &str| jobs.iter().filter(|j| j["state"] == s).count();
    assert_eq!(jobs.len(), 7, "{jobs:?}");
    assert_eq!(
        d["counts"]["completed"],
        json!(in_state("completed")),
        "{d}"
    );
    assert_eq!(d["counts"]["completed"], json!(6), "{d}");
    assert_eq!(d["counts"]["deadline_met"], json!(5), "{d}");
    assert_eq!(d["counts"]["deadline_missed"], json!(1), "{d}");
    b.console.clear();
    for k in ["completed", "queued", "running"] {
        b.wait(
            Duration::from_secs(10),
            &format!(
                "document.getElementById('count-{k}').textContent === '{}'",
                json!(in_state(k))
            ),
        );
    }
    b.wait(
        Duration::from_secs(10),
        "document.querySelectorAll('#ended tbody tr').length === 0 \
         && document.getElementById('deadlines-detail').textContent.startsWith('5 of 6 decided')",
    );
    let _ = serve.kill();
    let _ = serve.wait();
}
