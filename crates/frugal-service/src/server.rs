//! The HTTP listener: hyper's HTTP/1 server with a header read timeout (slowloris), a
//! cap on open connections and `TCP_NODELAY`, serving an axum router until told to stop.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Notify, Semaphore};

use crate::Limits;

/// How long open requests may finish after a stop.
const DRAIN: Duration = Duration::from_secs(5);

/// Serves `app` on `listener` until `stop` is notified, then lets open requests finish
/// (up to [`DRAIN`]).
///
/// Each connection holds one of `limits.max_connections` permits; while none is free the
/// listener does not accept, so new clients wait in the kernel's backlog instead of
/// exhausting file descriptors. A connection that does not send a request's headers
/// within `limits.header_read_timeout` is closed. Accept errors (e.g. no file descriptor
/// left) are logged and retried after a short pause, never fatal.
///
/// # Errors
/// None in practice; the signature leaves room for listener failures.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &Limits,
    stop: Arc<Notify>,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let stopped = stop.notified();
    tokio::pin!(stopped);
    loop {
        let permit = tokio::select! {
            p = Arc::clone(&permits).acquire_owned() => p.expect("the semaphore is never closed"),
            _ = &mut stopped => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stopped => break,
        };
        let _ = stream.set_nodelay(true);
        let conn =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    let _ = tokio::time::timeout(DRAIN, graceful.shutdown()).await;
    Ok(())
}
