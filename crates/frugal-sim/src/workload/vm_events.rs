//! VM events a run suffers, as the service can suffer them (`frugal simulate --vm-events
//! FILE`): a CSV with the header `time_s,vm,event`, one row per event — `time_s` seconds
//! from the run's start (≥ 0), `vm` the VM's id in the cluster, `event` `lost` (its host
//! stopped answering: executors lost and placed again, bill stopped, out of service for
//! 600 s) or `refused` (the provider refused its last power-on: it never ran, costs
//! nothing). A loss history observed by the service, or a spot-interruption trace,
//! replayed through the same controller.

use std::path::Path;

use frugal_core::cluster::VmId;

use crate::engine::{VmEvent, VmEventKind};

/// Reads a VM-events file for a cluster of `vms` VMs.
///
/// # Errors
/// A message naming the file, line and field: unreadable, a header other than
/// `time_s,vm,event`, a time that is not a number ≥ 0, a VM the cluster does not have, an
/// unknown event.
pub fn read_vm_events(path: &Path, vms: usize) -> Result<Vec<VmEvent>, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    parse_vm_events(&text, vms).map_err(|m| format!("{name}: {m}"))
}

/// Parses the text of a VM-events file (errors name the line and field).
///
/// # Errors
/// As [`read_vm_events`], without the file name.
pub fn parse_vm_events(text: &str, vms: usize) -> Result<Vec<VmEvent>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    match lines.next() {
        Some((_, h)) if h.trim() == "time_s,vm,event" => {}
        Some((_, h)) => {
            return Err(format!(
                "line 1: header must be time_s,vm,event, found {h:?}"
            ));
        }
        None => return Err("empty: the header time_s,vm,event is missing".into()),
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        let at = format!("line {}", i + 1);
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 3 {
            return Err(format!("{at}: 3 fields expected, found {}", f.len()));
        }
        let at_s = match f[0].parse::<f64>() {
            Ok(t) if t >= 0.0 && t.is_finite() => t,
            _ => return Err(format!("{at}: time_s {:?} is not a number ≥ 0", f[0])),
        };
        let vm = match f[1].parse::<VmId>() {
            Ok(v) if (v as usize) < vms => v,
            _ => {
                return Err(format!(
                    "{at}: vm {:?} is not a VM of the cluster (0..{vms})",
                    f[1]
                ));
            }
        };
        let event = match f[2] {
            "lost" => VmEventKind::Lost,
            "refused" => VmEventKind::Refused,
            other => return Err(format!("{at}: event {other:?} is not lost or refused")),
        };
        out.push(VmEvent { at_s, vm, event });
    }
    Ok(out)
}

/// Writes `events` in the format [`parse_vm_events`] reads (its inverse).
pub fn write_vm_events(events: &[VmEvent]) -> String {
    let mut out = String::from("time_s,vm,event\n");
    for e in events {
        let kind = match e.event {
            VmEventKind::Lost => "lost",
            VmEventKind::Refused => "refused",
        };
        out.push_str(&format!("{},{},{kind}\n", e.at_s, e.vm));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_events_and_names_bad_fields() {
        let e = parse_vm_events("time_s,vm,event\n10,2,lost\n20.5, 0, refused\n", 3).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[1].at_s, e[1].vm, e[1].event),
            (20.5, 0, VmEventKind::Refused)
        );
        let bad = |s: &str| parse_vm_events(s, 3).unwrap_err();
        assert!(bad("t,vm,event\n").contains("header"));
        assert!(bad("time_s,vm,event\n-1,0,lost\n").contains("line 2: time_s"));
        assert!(bad("time_s,vm,event\n1,9,lost\n").contains("line 2: vm"));
        assert_eq!(parse_vm_events(&write_vm_events(&e), 3).unwrap(), e);
        assert!(bad("time_s,vm,event\n1,0,paused\n").contains("paused"));
    }
}
