//! The bill check shared by the service's tests and the CLI's process tests (which
//! include this file by path): accrued cost = Σ stored on-time × price.

use std::time::Duration;

use serde_json::Value;

use frugal_service::clock::Clock;
use frugal_service::{Durability, Store, StoreLimits};

/// The store of `url` as a service with `speedup` reads it.
pub async fn store(url: &str, speedup: f64) -> Store {
    Store::open(
        url,
        Durability::Process,
        Clock::new(speedup),
        StoreLimits::default(),
    )
    .await
    .unwrap()
}

/// Every VM in `vms` (entries of a `/vms` answer) has accrued exactly its stored on-time
/// times its price; returns each one's on-time, service seconds, in `vms` order. `vms` are
/// off, but the store's writer commits asynchronously (group commit), so the last
/// power-off may still be on its way: wait up to 10 s for every interval to be closed.
pub async fn assert_cost_is_on_time_times_price(
    url: &str,
    speedup: f64,
    vms: &[Value],
) -> Vec<f64> {
    let store = store(url, speedup).await;
    let ids: Vec<u32> = vms
        .iter()
        .map(|v| v["id"].as_u64().unwrap() as u32)
        .collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let intervals = loop {
        let intervals = store.vm_intervals().await.unwrap();
        let closed = intervals
            .iter()
            .all(|i| i.2.is_some() || !ids.contains(&i.0));
        if closed || std::time::Instant::now() > deadline {
            break intervals;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(!intervals.is_empty());
    let mut on_times = Vec::new();
    for v in vms {
        let id = v["id"].as_u64().unwrap() as u32;
        let on: f64 = intervals
            .iter()
            .filter(|i| i.0 == id)
            .map(|i| i.2.expect("closed") - i.1)
            .sum();
        let cost = on * v["price_per_second"].as_f64().unwrap();
        let accrued = v["accrued_cost_usd"].as_f64().unwrap();
        assert!(
            (cost - accrued).abs() < 1e-6 * cost.max(1.0),
            "{v}: {cost} vs {accrued}"
        );
        on_times.push(on);
    }
    on_times
}
