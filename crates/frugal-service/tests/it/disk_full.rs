//! The database on a full disk (a small tmpfs; needs root, as CI is): submissions are
//! refused with 503 and `Retry-After` — never acknowledged without being stored —,
//! readiness fails, and accepting resumes by itself once space returns; after a restart
//! every acknowledged job is there.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::json;

use common::{call, call_raw, config, service_with};
use frugal_core::PolicyKind;

/// A tmpfs mounted for the test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .ok()?
            .success();
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }

    fn resize(&self, size: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status()
            .unwrap()
            .success();
        assert!(ok, "remount {}", self.0.display());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn big_job(id: &str) -> serde_json::Value {
    // 4 KiB of arguments: the disk fills after a few hundred jobs.
    json!({"id": id, "executors": 1, "executor_cores": 1, "executor_memory_gib": 1,
           "estimated_duration_s": 3600, "application_path": "wordcount.py",
           "arguments": ["x".repeat(4000)]})
}

#[tokio::test]
async fn a_full_disk_refuses_submissions_until_space_returns() {
    let dir = std::env::temp_dir().join(format!("frugal-full-{}", std::process::id()));
    let Some(fs) = Tmpfs::mount(&dir, "4m") else {
        frugal_core::testing::skip("root (the test mounts a 4-MiB tmpfs to fill)");
        return;
    };
    let url = format!("sqlite:{}", dir.join("state.db").display());
    let svc = service_with(config(&url, 1.0), PolicyKind::FirstFit).await;
    let mut acknowledged = Vec::new();
    let mut refused = 0;
    for i in 0..2000 {
        let id = format!("f{i}");
        let (s, headers, body) = call_raw(
            &svc,
            "POST",
            "/jobs",
            Some("application/json"),
            Some(common::TOKEN),
            &big_job(&id).to_string(),
        )
        .await;
        match s {
            StatusCode::ACCEPTED | StatusCode::OK => acknowledged.push(id),
            StatusCode::SERVICE_UNAVAILABLE => {
                assert_eq!(headers["retry-after"], "1", "{body}");
                refused += 1;
                if refused >= 20 {
                    break;
                }
            }
            other => panic!("{other}: {body}"),
        }
    }
    assert!(
        refused >= 20,
        "the disk never filled ({} accepted)",
        acknowledged.len()
    );
    assert!(acknowledged.len() > 20, "{} accepted", acknowledged.len());
    let (s, _, ready) = call_raw(&svc, "GET", "/readyz", None, None, "").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{ready}");

    fs.resize("64m");
    let t0 = Instant::now();
    loop {
        let id = format!("after{}", t0.elapsed().as_millis());
        let (s, _) = call(&svc, "POST", "/jobs", Some(big_job(&id))).await;
        if s == StatusCode::ACCEPTED {
            acknowledged.push(id);
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "still refusing after 5 s: {s}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let recovered = t0.elapsed();
    let (s, _, ready) = call_raw(&svc, "GET", "/readyz", None, None, "").await;
    assert_eq!(s, StatusCode::OK, "{ready}");
    svc.halt();
    drop(svc);

    let svc = service_with(config(&url, 1.0), PolicyKind::FirstFit).await;
    for id in &acknowledged {
        let (s, j) = call(&svc, "GET", &format!("/jobs/{id}"), None).await;
        assert_eq!(s, StatusCode::OK, "acknowledged {id} is missing: {j}");
    }
    eprintln!(
        "{} acknowledged, {refused} refused, accepting again {recovered:?} after space returned",
        acknowledged.len()
    );
    svc.halt();
}
