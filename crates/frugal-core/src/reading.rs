//! Which description of a published method frugal follows where a paper's text and the
//! code or data its authors published differ materially.

/// The paper's text or the authors' published code. The model chapter lists every
/// difference found and its measured effect; where the effect is material both readings
/// are implemented and each experiment names the one it uses. Implemented for paper 000's
/// round robin, FIFO-C, First Fit, GIO, AsQ and MILP, paper 004's BFD, Morpheus and ILP
/// ([`crate::policy`], [`crate::PolicyKind::has_authors_reading`]) and paper 000's §6.1
/// workload generator (frugal-sim).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reading {
    /// The paper's text.
    #[default]
    PaperText,
    /// The authors' published code (repository and file named where it is used).
    AuthorsCode,
}

crate::choice! {
    impl Choice for Reading {
        PaperText = "paper-text": "The paper's text",
        AuthorsCode = "authors-code": "The authors' published code (RM-Simulator for paper 000, SLA-Scheduler for 004)",
    }
}
