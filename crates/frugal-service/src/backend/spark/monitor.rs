//! One thread per running job: polls the driver's exit status and REST API, and reports
//! what it sees (the liveness of its workers is the hosts' registry's business).

use std::collections::BTreeMap;
use std::fs;
use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

use frugal_core::cluster::VmId;

use super::Shared;
use crate::backend::BackendEvent;
use crate::process::{alive, read_pid};

/// An HTTP client with short timeouts (the endpoints are on the control node).
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(3)))
        .build()
        .into()
}

fn get_json(agent: &ureq::Agent, url: &str) -> Option<Value> {
    agent.get(url).call().ok()?.body_mut().read_json().ok()
}

/// True if a master answers on `address`, UI port `ui_port`, with status ALIVE.
pub fn master_alive(agent: &ureq::Agent, address: Ipv4Addr, ui_port: u16) -> bool {
    get_json(agent, &format!("http://{address}:{ui_port}/json/"))
        .is_some_and(|v| v["status"] == "ALIVE")
}

/// Watches job `idx` (`id`) until it ends or `stop` is set.
pub(super) fn run(shared: &Shared, idx: usize, id: &str, stop: &AtomicBool) {
    let dir = shared.job_dir(id);
    let agent = agent();
    let ui: Option<u16> = fs::read_to_string(dir.join("ui_port"))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    let mut app: Option<String> = None;
    let mut reported: Option<Vec<(VmId, u32)>> = None;
    let poll = Duration::from_secs_f64(shared.cfg.poll_s);
    loop {
        std::thread::sleep(poll);
        if stop.load(Ordering::SeqCst) {
            return;
        }
        if let Some(code) = exit_code(&dir) {
            let removed = shared.ended(idx, id);
            if removed && code == 0 {
                let _ = shared.events.send(BackendEvent::Finished { idx });
            } else if removed {
                let _ = shared.events.send(BackendEvent::Failed {
                    idx,
                    reason: format!(
                        "spark-submit exited with status {code}{}",
                        last_error(&dir.join("driver.log"))
                            .map(|l| format!(": {l}"))
                            .unwrap_or_default()
                    ),
                });
            }
            return;
        }
        if !read_pid(&dir.join("driver.pid")).is_some_and(alive) && exit_code(&dir).is_none() {
            shared.fail(
                idx,
                id,
                "the driver process ended without an exit status (killed)".into(),
            );
            return;
        }
        if let Some(now) = ui.and_then(|ui| executors(shared, &agent, ui, &mut app))
            && reported.as_ref() != Some(&now)
        {
            reported = Some(now.clone());
            let _ = shared.events.send(BackendEvent::Observed {
                idx,
                executors_per_vm: now,
            });
        }
    }
}

/// spark-submit's exit status, once the wrapper has recorded it.
fn exit_code(dir: &Path) -> Option<i32> {
    fs::read_to_string(dir.join("exit_code"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The last line of the driver's log that reports an error, for failure reasons.
fn last_error(log: &Path) -> Option<String> {
    let text = fs::read_to_string(log).ok()?;
    text.lines()
        .rev()
        .find(|l| l.contains("Error") || l.contains("Exception"))
        .map(|l| l.chars().take(300).collect())
}

/// Active executors per VM from the driver's REST API (the app id is looked up once).
fn executors(
    shared: &Shared,
    agent: &ureq::Agent,
    ui: u16,
    app: &mut Option<String>,
) -> Option<Vec<(VmId, u32)>> {
    let base = format!("http://{}:{ui}/api/v1/applications", shared.control);
    if app.is_none() {
        *app = get_json(agent, &base)?[0]["id"].as_str().map(String::from);
    }
    let list = get_json(agent, &format!("{base}/{}/allexecutors", app.as_deref()?))?;
    let mut per_vm = BTreeMap::new();
    for e in list.as_array()? {
        if e["id"] == "driver" || e["isActive"] != true {
            continue;
        }
        let host = e["hostPort"].as_str()?.rsplit_once(':')?.0;
        if let Some(vm) = host
            .parse::<Ipv4Addr>()
            .ok()
            .and_then(|ip| shared.fleet.vm_at(ip))
        {
            *per_vm.entry(vm).or_insert(0u32) += 1;
        }
    }
    Some(per_vm.into_iter().collect())
}
