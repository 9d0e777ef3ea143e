//! Bearer-token authentication.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::error;
use crate::Service;

/// True if `presented` is the service's token. Both are hashed first and the digests
/// compared in constant time, so neither the content nor the length of the token leaks
/// through timing.
pub(crate) fn token_matches(expected: &str, presented: &str) -> bool {
    let (a, b) = (
        Sha256::digest(expected.as_bytes()),
        Sha256::digest(presented.as_bytes()),
    );
    a.ct_eq(&b).into()
}

/// The token of an `Authorization` value of the Bearer scheme: the scheme is matched
/// case-insensitively (RFC 9110 §11.1: `bearer`, `BEARER` and `Bearer` are one scheme),
/// followed by one or more spaces and the token.
pub(super) fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim_start_matches(' '))
}

/// Lets the request through if it carries `Authorization: Bearer <token>`; 401 with
/// `WWW-Authenticate: Bearer` otherwise.
pub(crate) async fn require_token(
    State(svc): State<Arc<Service>>,
    req: Request,
    next: Next,
) -> Response {
    let presented = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token);
    match presented {
        Some(t) if token_matches(&svc.token, t.trim()) => next.run(req).await,
        _ => {
            if req.uri().path() == "/jobs" && req.method() == axum::http::Method::POST {
                svc.metrics.submission("unauthorized");
            }
            let mut r = error(
                StatusCode::UNAUTHORIZED,
                None,
                "missing or wrong bearer token (Authorization: Bearer <token>)",
            );
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"frugal\""),
            );
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_is_matched_whatever_its_case() {
        for v in ["Bearer s3cret", "bearer s3cret", "BEARER  s3cret"] {
            assert_eq!(bearer_token(v), Some("s3cret"), "{v}");
        }
        assert_eq!(bearer_token("Basic s3cret"), None);
        assert_eq!(bearer_token("Bearers3cret"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }

    #[test]
    fn only_the_exact_token_matches() {
        assert!(token_matches("s3cret", "s3cret"));
        assert!(!token_matches("s3cret", "s3cre"));
        assert!(!token_matches("s3cret", "s3cret "));
        assert!(!token_matches("s3cret", ""));
    }
}
