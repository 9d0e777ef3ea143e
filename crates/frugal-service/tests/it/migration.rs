//! A database written by the previous schema is brought to this build's at start-up and
//! served on. `data/schema3.db` was written by `frugal serve` at schema 3 (before the VM
//! event table and the instant a job was first passed to the policy): ten jobs —
//! completed, running, queued, cancelled, and dropped by admission — and the VMs' power
//! history, the service stopped with SIGTERM while jobs ran.

use crate::common;

use std::time::Duration;

use frugal_core::PolicyKind;

use common::{call, config, service_with, wait_state};

/// One integer a query returns.
async fn query_i64(url: &str, sql: &str) -> i64 {
    use sqlx::{Connection, Row};
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    let row = sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    row.try_get::<i64, _>(0).unwrap()
}

#[tokio::test]
async fn a_schema_3_database_is_migrated_and_its_jobs_served_on() {
    let dir = std::env::temp_dir().join(format!("frugal-svc-migration-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("state.db");
    std::fs::copy(
        common::repo().join("crates/frugal-service/tests/data/schema3.db"),
        &db,
    )
    .unwrap();
    let url = format!("sqlite:{}", db.display());
    let newest = "SELECT MAX(version) FROM _sqlx_migrations";
    assert_eq!(query_i64(&url, newest).await, 3, "the fixture is schema 3");
    let stored_power = query_i64(&url, "SELECT COUNT(*) FROM vm_power").await;
    assert!(stored_power > 0);

    let svc = service_with(config(&url, 60_000.0), PolicyKind::FirstFit).await;
    assert_eq!(query_i64(&url, newest).await, 5);
    // 0005 renamed the column 0004 added: every job has it, under its new name only.
    let offered = "SELECT COUNT(*) FROM pragma_table_info('jobs') WHERE name = 'offered_at'";
    let queued = "SELECT COUNT(*) FROM pragma_table_info('jobs') WHERE name = 'queued_at'";
    assert_eq!(
        (
            query_i64(&url, offered).await,
            query_i64(&url, queued).await
        ),
        (1, 0)
    );
    assert_eq!(query_i64(&url, "SELECT COUNT(*) FROM vm_events").await, 0);
    assert!(query_i64(&url, "SELECT COUNT(*) FROM vm_power").await >= stored_power);

    // The ended jobs keep their stored states and reasons…
    for (id, state) in [
        ("done-a", "completed"),
        ("done-b", "completed"),
        ("cancel-f", "cancelled"),
        ("queued-e", "dropped"),
        ("huge-g", "dropped"),
    ] {
        let (_, j) = call(&svc, "GET", &format!("/jobs/{id}"), None).await;
        assert_eq!(j["state"], state, "{j}");
    }
    // …and the ones that were running or queued when it stopped run to completion.
    for id in [
        "running-c",
        "running-d",
        "queued-h24",
        "queued-h16",
        "queued-h12",
    ] {
        wait_state(&svc, id, "completed", Duration::from_secs(60)).await;
    }
    let (_, all) = call(&svc, "GET", "/jobs?limit=100", None).await;
    let listed = all["jobs"].as_array().map_or(0, Vec::len);
    assert_eq!(listed, 10, "{all}");
    svc.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}
