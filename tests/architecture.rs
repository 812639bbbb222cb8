//! The shape of the house, checked: an import graph of `src/` with files as nodes and every
//! `use` and qualified path (`crate::…`, `super::…`, a `mod.rs`'s own children) as an edge,
//! resolved through `pub use` re-exports to the file that defines the item.
//!
//! - No circle of more than [`MAX_CIRCLE`] files: files that need each other are few, and the
//!   rest of each folder stands on them in one direction.
//! - The layers (below) are imported downwards only, but for at most [`MAX_UPWARD`] imports,
//!   each with a comment starting `Upward import:` on its line or the line above, saying why.
//! - No source file over [`MAX_LINES`] lines.
//!
//! `cargo test --test architecture -- --nocapture` prints the circles and upward imports.
//! Test modules (`#[cfg(test)] mod …`) are left out: a unit test may import what it tests.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// The layers, lowest first: a file may import its own layer and the ones before it.
const LAYERS: &[(&str, &[&str])] = &[
    ("common", &["common/"]),
    ("syntax", &["syntax/"]),
    ("compile", &["compile/"]),
    ("vm", &["vm/"]),
    ("builtins", &["builtins/"]),
    ("asyncio", &["asyncio/"]),
    ("stdlib", &["stdlib/"]),
    ("timeline", &["timeline/"]),
    ("interp", &["interp.rs"]),
    ("repl", &["repl/"]),
    ("cli", &["cli.rs", "main.rs", "lib.rs", "web.rs"]),
];

const MAX_CIRCLE: usize = 4;
const MAX_UPWARD: usize = 2;
const MAX_LINES: usize = 1500;

/// One source file: its path under `src/`, its module path, its text without comments,
/// strings and test modules, and its original lines (to find `Upward import:` comments).
struct SourceFile {
    rel: String,
    module: Vec<String>,
    code: String,
    lines: Vec<String>,
    /// Child modules declared with `mod name;`.
    children: BTreeSet<String>,
}

/// A reference from one file to another, at a line of the first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    line: usize,
}

fn layer_of(rel: &str) -> usize {
    LAYERS
        .iter()
        .position(|(_, prefixes)| prefixes.iter().any(|p| rel.starts_with(p) || rel == *p))
        .unwrap_or_else(|| panic!("src/{rel} is in no layer: add it to LAYERS"))
}

fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// Blanks out comments, string and char literals (keeping newlines, so offsets still map to
/// lines).
fn strip_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !ident_char_before(&chars, i)
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &ch in &chars[i..j.min(chars.len())] {
                out.push(blank(ch));
            }
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..chars.len()).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for _ in i..=end {
                        out.push(' ');
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Blanks out each `#[cfg(test)]` item (a test module or function).
fn strip_test_items(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|k| k + from) {
        let Some(open) = out[at..].find(['{', ';']).map(|k| k + at) else {
            break;
        };
        let mut end = open + 1;
        if out.as_bytes()[open] == b'{' {
            let mut depth = 0;
            for (k, b) in out.bytes().enumerate().skip(open) {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = k + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        let blanked: String = out[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(at..end, &blanked);
        from = end;
    }
    out
}

fn read_sources(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(src)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let text = std::fs::read_to_string(&path).unwrap();
                let code = strip_test_items(&strip_comments_and_strings(&text));
                let children = code
                    .lines()
                    .filter_map(|line| {
                        let line = line.trim();
                        let rest = line.strip_prefix("pub ").unwrap_or(line);
                        let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
                        let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
                        Some(name.trim().to_string())
                    })
                    .collect();
                files.push(SourceFile {
                    module: module_path(&rel),
                    lines: text.lines().map(String::from).collect(),
                    rel,
                    code,
                    children,
                });
            }
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

/// The paths a `use` tree names: `a::{b, c::{d as e, self}}` → `a::b`, `a::c::d`, `a::c`.
fn expand_use_tree(tree: &str) -> Vec<Vec<String>> {
    fn split_top(list: &str) -> Vec<String> {
        let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
        for c in list.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        parts.push(current);
        parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
    }
    fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if let Some(inner) = tree.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            for part in split_top(inner) {
                expand(prefix, &part, out);
            }
            return;
        }
        if let Some(at) = tree.find("::{") {
            let mut longer = prefix.to_vec();
            longer.extend(tree[..at].split("::").map(|s| s.trim().to_string()));
            expand(&longer, &tree[at + 2..], out);
            return;
        }
        let tree = tree.split(" as ").next().unwrap().trim();
        let mut path = prefix.to_vec();
        path.extend(tree.split("::").map(|s| s.trim().to_string()));
        if path.last().is_some_and(|s| s == "self") {
            path.pop();
        }
        out.push(path);
    }
    let mut out = Vec::new();
    let flat: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = flat.replace(":: ", "::").replace(" ::", "::");
    expand(&[], &flat, &mut out);
    out
}

/// Every path (with the offset where it starts) a file's code names: its `use` trees and
/// the qualified paths in its body that start at `crate`, `super`, `self` or a child module.
fn paths_in(file: &SourceFile) -> Vec<(usize, Vec<String>)> {
    let code = &file.code;
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let word = &code[start..i];
        if word == "use" {
            let end = code[i..].find(';').map_or(code.len(), |k| k + i);
            for path in expand_use_tree(&code[i..end]) {
                out.push((start, path));
            }
            i = end;
            continue;
        }
        let rooted = matches!(word, "crate" | "super" | "self") || file.children.contains(word);
        if rooted && code[i..].starts_with("::") {
            let mut path = vec![word.to_string()];
            while code[i..].starts_with("::") {
                let seg_start = i + 2;
                let mut j = seg_start;
                while j < bytes.len() && is_ident(bytes[j]) {
                    j += 1;
                }
                if j == seg_start {
                    break;
                }
                path.push(code[seg_start..j].to_string());
                i = j;
            }
            out.push((start, path));
        }
    }
    out
}

/// A path as seen from `file`, made absolute (from the crate root), or None when it names
/// something outside the crate.
fn absolute(file: &SourceFile, path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut module = file.module.clone();
    let rest = match first.as_str() {
        "crate" => {
            module.clear();
            &path[1..]
        }
        "self" => &path[1..],
        "super" => {
            let mut k = 0;
            while path.get(k).is_some_and(|s| s == "super") {
                module.pop();
                k += 1;
            }
            &path[k..]
        }
        name if file.children.contains(name) => path,
        _ => return None,
    };
    module.extend(rest.iter().cloned());
    Some(module)
}

struct Graph {
    files: Vec<SourceFile>,
    by_module: HashMap<Vec<String>, usize>,
    /// `pub use` re-exports: (module, name) → the file the name comes from.
    reexports: HashMap<(Vec<String>, String), usize>,
}

impl Graph {
    fn new(files: Vec<SourceFile>) -> Graph {
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        let mut graph = Graph {
            files,
            by_module,
            reexports: HashMap::new(),
        };
        let mut reexports = HashMap::new();
        for file in &graph.files {
            for line in file.code.split(';') {
                let line = line.trim();
                let Some(tree) = line
                    .strip_prefix("pub use ")
                    .or_else(|| line.strip_prefix("pub(crate) use "))
                else {
                    continue;
                };
                for path in expand_use_tree(tree) {
                    let Some(name) = path.last().cloned() else {
                        continue;
                    };
                    if let Some(full) = absolute(file, &path)
                        && let Some(target) = graph.file_of(&full)
                    {
                        reexports.insert((file.module.clone(), name), target);
                    }
                }
            }
        }
        graph.reexports = reexports;
        graph
    }

    /// The file that defines what an absolute path names: the deepest module file on the
    /// path, or the file a `pub use` of that module re-exports the next name from.
    fn file_of(&self, path: &[String]) -> Option<usize> {
        for k in (0..=path.len()).rev() {
            if let Some(&file) = self.by_module.get(&path[..k]) {
                if let Some(name) = path.get(k)
                    && let Some(&target) = self.reexports.get(&(path[..k].to_vec(), name.clone()))
                {
                    return Some(target);
                }
                return Some(file);
            }
        }
        None
    }

    fn edges(&self) -> Vec<Edge> {
        let mut edges = BTreeSet::new();
        for (i, file) in self.files.iter().enumerate() {
            for (offset, path) in paths_in(file) {
                let Some(full) = absolute(file, &path) else {
                    continue;
                };
                if let Some(target) = self.file_of(&full)
                    && target != i
                {
                    edges.insert(Edge {
                        from: file.rel.clone(),
                        to: self.files[target].rel.clone(),
                        line: file.code[..offset].matches('\n').count() + 1,
                    });
                }
            }
        }
        edges.into_iter().collect()
    }
}

/// Strongly connected components of more than one file (Tarjan's algorithm).
fn circles(edges: &[Edge]) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.from).or_default().insert(&e.to);
        next.entry(&e.to).or_default();
    }
    struct State<'a> {
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(v: &'a str, next: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in &next[v] {
            if !s.index.contains_key(w) {
                visit(w, next, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &v in next.keys() {
        if !state.index.contains_key(v) {
            visit(v, &next, &mut state);
        }
    }
    state.found.sort_by_key(|c| std::cmp::Reverse(c.len()));
    state.found
}

fn graph() -> (Graph, Vec<Edge>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = Graph::new(read_sources(&src));
    let edges = graph.edges();
    (graph, edges)
}

#[test]
fn no_circle_of_more_than_four_files() {
    let (_, edges) = graph();
    let circles = circles(&edges);
    for circle in &circles {
        println!("circle of {}: {}", circle.len(), circle.join(" "));
        let inside: BTreeSet<(&str, &str)> = edges
            .iter()
            .filter(|e| circle.contains(&e.from) && circle.contains(&e.to))
            .map(|e| (e.from.as_str(), e.to.as_str()))
            .collect();
        for (from, to) in inside {
            println!("    {from} -> {to}");
        }
    }
    let too_big: Vec<_> = circles.iter().filter(|c| c.len() > MAX_CIRCLE).collect();
    assert!(
        too_big.is_empty(),
        "files that import each other in a circle of more than {MAX_CIRCLE}: {too_big:#?}"
    );
}

#[test]
fn layers_are_imported_downwards() {
    let (graph, edges) = graph();
    let upward: Vec<&Edge> = edges
        .iter()
        .filter(|e| layer_of(&e.to) > layer_of(&e.from))
        .collect();
    let mut uncommented = Vec::new();
    for e in &upward {
        println!(
            "upward import: src/{}:{} ({}) -> src/{} ({})",
            e.from,
            e.line,
            LAYERS[layer_of(&e.from)].0,
            e.to,
            LAYERS[layer_of(&e.to)].0
        );
        let file = graph.files.iter().find(|f| f.rel == e.from).unwrap();
        let here = file.lines.get(e.line - 1).map_or("", String::as_str);
        let above = file
            .lines
            .get(e.line.wrapping_sub(2))
            .map_or("", String::as_str);
        if !here.contains("Upward import:") && !above.contains("Upward import:") {
            uncommented.push(format!("src/{}:{} -> src/{}", e.from, e.line, e.to));
        }
    }
    assert!(
        upward.len() <= MAX_UPWARD,
        "{} imports from a lower layer to a higher one (at most {MAX_UPWARD})",
        upward.len()
    );
    assert!(
        uncommented.is_empty(),
        "upward imports without an `Upward import:` comment saying why: {uncommented:#?}"
    );
}

#[test]
fn no_source_file_over_the_line_limit() {
    let (graph, _) = graph();
    let long: Vec<String> = graph
        .files
        .iter()
        .filter(|f| f.lines.len() > MAX_LINES)
        .map(|f| format!("src/{}: {} lines", f.rel, f.lines.len()))
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:#?}");
}

/// What a program and apy write leaves through `common/console.rs`, which a page in a
/// browser redirects (`src/web.rs`): only the command line's own side (the CLI, the REPL,
/// the terminal's diagnostics) writes to the process's stderr itself.
#[test]
fn stderr_is_written_through_the_console() {
    let (graph, _) = graph();
    let own_side = [
        "common/console.rs",
        "cli.rs",
        "main.rs",
        "repl/",
        "syntax/diagnostics.rs",
    ];
    let direct: Vec<String> = graph
        .files
        .iter()
        .filter(|f| !own_side.iter().any(|p| f.rel.starts_with(p)) && !f.rel.ends_with("tests.rs"))
        .flat_map(|f| {
            f.code
                .lines()
                .enumerate()
                .filter(|(_, line)| {
                    ["eprint!(", "eprintln!(", "io::stderr()", "io::stdout()"]
                        .iter()
                        .any(|w| line.contains(w))
                })
                .map(move |(i, line)| format!("src/{}:{}: {}", f.rel, i + 1, line.trim()))
        })
        .collect();
    assert!(
        direct.is_empty(),
        "write through crate::common::console instead (a page gets nothing else): {direct:#?}"
    );
}

/// The graph reader itself: use trees, re-exports and test modules.
#[test]
fn reads_use_trees() {
    let paths = expand_use_tree("super::{a, b::{c as d, self}, e::*}");
    let shown: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        shown,
        ["super::a", "super::b::c", "super::b", "super::e::*"]
    );
    let code = strip_test_items("fn f() {}\n#[cfg(test)]\nmod tests {\n use crate::x;\n}\n");
    assert!(!code.contains("crate::x"));
    let code = strip_comments_and_strings("let s = \"crate::a\"; // crate::b\nlet c = '\"';");
    assert!(!code.contains("crate::"));
    assert!(code.contains("let c"));
}
