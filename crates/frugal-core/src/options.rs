//! Helpers for the options every face of frugal parses (flags, experiment files, Python
//! keywords): checked number ranges whose errors name the range, and the error kind that
//! says "the options or inputs cannot be used as given" (the CLI's exit status 2).

/// What the user asked for cannot be done as asked (options, input files), as opposed to a
/// failure while doing it; front-ends find it in an error's chain (`downcast_ref`).
#[derive(Debug)]
pub struct Usage(pub anyhow::Error);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for Usage {}

impl From<anyhow::Error> for Usage {
    fn from(e: anyhow::Error) -> Self {
        Usage(e)
    }
}

/// A parser of a number in `[min, max]`, whose error names the range (for clap's
/// `value_parser`).
pub fn number_in(
    min: f64,
    max: f64,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |s: &str| match s.trim().parse::<f64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} is outside [{min}, {max}]")),
        Err(_) => Err(format!("not a number: {s:?}")),
    }
}
