//! The book's command examples cannot rot: every ```sh block marked `<!-- test -->` in
//! `docs/book/src` is run, line by line (`\` continues a line), in a scratch folder of its
//! own that holds the files of the chapter's `examples/` folder, each `frugal …` line by
//! the binary under test; each must exit 0. (Marked ```python blocks are run by the
//! Python package's tests, `crates/frugal-py/tests/test_book.py`.)

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn book() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/book/src")
}

/// The marked shell blocks of every chapter: (chapter, commands).
fn marked_blocks() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut stack = vec![book()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "md") {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (k, line) in lines.iter().enumerate() {
                if line.trim() != "<!-- test -->" {
                    continue;
                }
                let fence = lines.get(k + 1).map(|l| l.trim());
                assert!(
                    matches!(fence, Some("```sh" | "```python")),
                    "{}: a `<!-- test -->` marks a ```sh or ```python block",
                    p.display()
                );
                if fence == Some("```python") {
                    continue;
                }
                let mut commands = Vec::new();
                let mut current = String::new();
                for l in &lines[k + 2..] {
                    if l.trim() == "```" {
                        break;
                    }
                    let l = l.trim();
                    match l.strip_suffix('\\') {
                        Some(part) => current.push_str(part),
                        None => {
                            current.push_str(l);
                            if !current.trim().is_empty() {
                                commands.push(std::mem::take(&mut current));
                            }
                        }
                    }
                }
                let chapter = p.strip_prefix(book()).unwrap().display().to_string();
                out.push((chapter, commands));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_books_marked_examples_run() {
    let blocks = marked_blocks();
    assert!(blocks.len() >= 3, "{blocks:?}");
    for (k, (chapter, commands)) in blocks.iter().enumerate() {
        let dir = common::tmp(&format!("book-{k}"));
        let examples = book().join(chapter).with_file_name("examples");
        if let Ok(files) = std::fs::read_dir(&examples) {
            for e in files {
                let p = e.unwrap().path();
                std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
            }
        }
        for c in commands {
            let words: Vec<&str> = c.split_whitespace().collect();
            assert_eq!(
                words[0], "frugal",
                "{chapter}: {c}: tested examples run frugal"
            );
            let out = Command::new(env!("CARGO_BIN_EXE_frugal"))
                .args(&words[1..])
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{chapter}: `{c}` failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
