//! The web dashboard at `/ui`: four static files embedded in the binary (no CDN, no
//! network). The page loads without a token and asks for it; every data call it makes
//! (`GET /dashboard`) carries the API token in its `Authorization` header, kept in the
//! tab's session storage — no cookie, so no CSRF surface. Its content security policy
//! allows only its own scripts, styles and calls.

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

const INDEX: &str = include_str!("../../ui/index.html");
const APP: &str = include_str!("../../ui/app.js");
const STYLE: &str = include_str!("../../ui/style.css");
const ICON: &str = include_str!("../../ui/favicon.svg");

const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    connect-src 'self'; img-src 'self'; form-action 'none'; base-uri 'none'; \
    frame-ancestors 'none'";

fn file(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        body,
    )
        .into_response()
}

/// `/ui` and its assets (no token: they hold no data).
pub(crate) fn ui_router() -> Router {
    Router::new()
        .route(
            "/ui",
            get(|| async { file("text/html; charset=utf-8", INDEX) }),
        )
        .route(
            "/ui/",
            get(|| async { file("text/html; charset=utf-8", INDEX) }),
        )
        .route(
            "/ui/app.js",
            get(|| async { file("text/javascript; charset=utf-8", APP) }),
        )
        .route(
            "/ui/style.css",
            get(|| async { file("text/css; charset=utf-8", STYLE) }),
        )
        .route(
            "/ui/favicon.svg",
            get(|| async { file("image/svg+xml", ICON) }),
        )
}
