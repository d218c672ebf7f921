//! G9's proxy allocator: while armed, every block freed — and the old block of every
//! realloc — is scanned for sentinel bytes (a document's text, secret values) before it goes
//! back to the system. A hit is attributed to the code that freed the block, from a
//! backtrace: the SDK, a dependency (by crate), the sandbox (same process) or the harness.
//!
//! Every block starts zeroed (armed or not, from the start of the scorecard run:
//! `allocator::start_zero_filling`), so a sentinel found in a freed block was written
//! during that block's life, not left over from an earlier one. The binary's allocator
//! (`crate::allocator`) calls `scan` on every free.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::Mutex;

static ARMED: AtomicBool = AtomicBool::new(false);
/// Leaked when armed: the allocator reads it without a lock.
static SENTINELS: AtomicPtr<Sentinels> = AtomicPtr::new(std::ptr::null_mut());
static BLOCKS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static HITS: Mutex<Vec<Hit>> = Mutex::new(Vec::new());

thread_local! {
    /// Set while this thread records a hit (which allocates): its own frees are not scanned.
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

struct Sentinels {
    list: Vec<(&'static str, Vec<u8>)>,
    /// The sentinels' first bytes: one table lookup per scanned byte.
    first: [bool; 256],
}

impl Sentinels {
    fn find(&self, block: &[u8]) -> Option<&'static str> {
        block.iter().enumerate().find_map(|(i, b)| {
            if !self.first[usize::from(*b)] {
                return None;
            }
            self.list
                .iter()
                .find(|(_, s)| block[i..].starts_with(s))
                .map(|(kind, _)| *kind)
        })
    }
}

/// Who freed a block holding sentinel bytes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    /// `abws::…` code, or the drop of an `abws` type.
    Sdk,
    /// A dependency's own buffer, by crate.
    Dependency(String),
    /// The sandbox serving the test (it runs in this process).
    Sandbox,
    /// The harness: the SDK's caller.
    Caller,
}

pub struct Hit {
    pub kind: &'static str,
    pub owner: Owner,
    /// Non-zero bytes of the freed block.
    pub nonzero: usize,
    /// The frame that decided the owner, and the whole backtrace of the free.
    pub site: String,
    pub trace: String,
}

pub struct Report {
    pub blocks: u64,
    pub bytes: u64,
    pub hits: Vec<Hit>,
}

impl Report {
    pub fn count(&self, owner: &Owner, kind: &str) -> usize {
        let hits = self.hits.iter();
        hits.filter(|h| &h.owner == owner && h.kind == kind).count()
    }

    pub fn owned_by(&self, owner: &Owner) -> usize {
        self.hits.iter().filter(|h| &h.owner == owner).count()
    }

    pub fn nonzero(&self, owner: &Owner) -> usize {
        let hits = self.hits.iter().filter(|h| &h.owner == owner);
        hits.map(|h| h.nonzero).sum()
    }

    /// Dependency hits by crate.
    pub fn dependencies(&self) -> BTreeMap<&str, usize> {
        let mut by = BTreeMap::new();
        for h in &self.hits {
            if let Owner::Dependency(c) = &h.owner {
                *by.entry(c.as_str()).or_default() += 1;
            }
        }
        by
    }
}

/// Runs `f` with the scan armed for `sentinels` (kind, bytes).
pub fn armed<R>(sentinels: Vec<(&'static str, Vec<u8>)>, f: impl FnOnce() -> R) -> (R, Report) {
    let mut first = [false; 256];
    for (_, s) in &sentinels {
        first[usize::from(s[0])] = true;
    }
    let list = Box::new(Sentinels {
        list: sentinels,
        first,
    });
    SENTINELS.store(Box::leak(list), Ordering::Release);
    BLOCKS.store(0, Ordering::Relaxed);
    BYTES.store(0, Ordering::Relaxed);
    hits().clear();
    crate::allocator::start_zero_filling();
    ARMED.store(true, Ordering::SeqCst);
    let r = f();
    ARMED.store(false, Ordering::SeqCst);
    let report = Report {
        blocks: BLOCKS.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
        hits: std::mem::take(&mut *hits()),
    };
    (r, report)
}

fn hits() -> std::sync::MutexGuard<'static, Vec<Hit>> {
    HITS.lock().unwrap_or_else(|p| p.into_inner())
}

/// True while `armed` runs.
pub fn is_armed() -> bool {
    ARMED.load(Ordering::Relaxed)
}

/// Scans a block about to be freed. No allocation unless it holds a sentinel.
///
/// # Safety
/// `ptr` must point to `size` allocated bytes.
pub unsafe fn scan(ptr: *const u8, size: usize) {
    if !ARMED.load(Ordering::Relaxed) || size == 0 || BUSY.try_with(Cell::get) != Ok(false) {
        return;
    }
    let sentinels = SENTINELS.load(Ordering::Acquire);
    if sentinels.is_null() {
        return;
    }
    // SAFETY: the caller's contract (every byte is initialised: blocks start zeroed); the
    // sentinels are leaked, never freed.
    let (block, sentinels) = unsafe { (std::slice::from_raw_parts(ptr, size), &*sentinels) };
    BLOCKS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(size as u64, Ordering::Relaxed);
    if let Some(kind) = sentinels.find(block) {
        BUSY.with(|b| b.set(true));
        let nonzero = block.iter().filter(|b| **b != 0).count();
        let trace = std::backtrace::Backtrace::force_capture().to_string();
        let (owner, site) = attribute(&trace);
        hits().push(Hit {
            kind,
            owner,
            nonzero,
            site,
            trace,
        });
        BUSY.with(|b| b.set(false));
    }
}

/// The owner of a freed block, from the frames of the free: the innermost one outside the
/// standard library, this module and the allocator, and the crates of plain values (`bytes`, `http`) and of
/// helpers that write into the caller's buffer (`form_urlencoded`): their user decides.
fn attribute(trace: &str) -> (Owner, String) {
    let frames: Vec<&str> = trace
        .lines()
        .filter_map(|l| {
            let (n, sym) = l.trim_start().split_once(": ")?;
            n.parse::<u32>().ok().map(|_| sym.trim())
        })
        .collect();
    // This test binary's crate: the harness, but for the allocator and this module.
    let own = module_path!().split("::").next().unwrap_or_default();
    if let Some(f) = frames.iter().find(|f| f.contains("abws_sandbox::")) {
        return (Owner::Sandbox, f.to_string());
    }
    for f in frames {
        // A drop belongs to the dropped type's crate.
        let owner = match crate_of(f.strip_prefix("core::ptr::drop_in_place<").unwrap_or(f)) {
            None | Some("std" | "core" | "alloc" | "__rustc" | "backtrace") => continue,
            Some("bytes" | "http" | "form_urlencoded") => continue,
            Some("pin_project_lite") => continue, // a drop guard: the type dropped decides
            Some(c) if c == own && (f.contains("freed_memory::") || f.contains("allocator::")) => {
                continue
            }
            Some("abws") => Owner::Sdk,
            Some(c) if c == own => Owner::Caller,
            Some(other) => Owner::Dependency(other.to_string()),
        };
        return (owner, f.to_string());
    }
    (Owner::Dependency("unknown".into()), String::new())
}

/// `hyper` of `<hyper::proto::h1::io::Buffered<T,B> as …>::poll_flush`.
fn crate_of(sym: &str) -> Option<&str> {
    let s = sym.trim_start_matches(['<', '&']);
    let s = s.strip_prefix("mut ").unwrap_or(s);
    let s = s.strip_prefix("dyn ").unwrap_or(s);
    let (k, _) = s.split_once("::")?;
    k.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
        .then_some(k)
}
