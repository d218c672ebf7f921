//! The test binary's one global allocator. It forwards every call to the system allocator
//! and adds, each only while its own flag is on:
//!
//! - counting (`streaming_memory`): the bytes in use and their peak, from the moment
//!   counting was switched on (`start_counting`);
//! - zero-filling and scanning (`reliability::freed_memory`, G9): from
//!   `start_zero_filling` every block starts zeroed, and while a scan is armed every block
//!   freed — and the old block of every realloc — is scanned before it goes back.
//!
//! Both flags are process-wide: the tests that switch them on run in a child process of
//! their own (`alone`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

use crate::reliability::freed_memory;

struct Allocator;

#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ZERO_FILLING: AtomicBool = AtomicBool::new(false);
/// Bytes allocated minus bytes freed since counting started (negative when blocks from
/// before were freed), and the highest value it reached since the last `reset_peak`.
static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

/// Counts every allocation and free of the process from now on.
pub fn start_counting() {
    COUNTING.store(true, Ordering::SeqCst);
}

/// The bytes in use now (relative to when counting started); the peak restarts from here.
pub fn reset_peak() -> isize {
    let now = CURRENT.load(Ordering::Relaxed);
    PEAK.store(now, Ordering::Relaxed);
    now
}

/// The highest use since the last `reset_peak`.
pub fn peak() -> isize {
    PEAK.load(Ordering::Relaxed)
}

/// Every block allocated from now on starts zeroed, so a freed block holds only what was
/// written during its own life.
pub fn start_zero_filling() {
    ZERO_FILLING.store(true, Ordering::SeqCst);
}

fn grew(n: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let now = CURRENT.fetch_add(n as isize, Ordering::Relaxed) + n as isize;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn shrank(n: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        CURRENT.fetch_sub(n as isize, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to the system allocator; a block is only read (scanned)
// before it is freed, and only written (zeroed) within its own bounds.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract.
        let p = unsafe {
            if ZERO_FILLING.load(Ordering::Relaxed) {
                System.alloc_zeroed(layout)
            } else {
                System.alloc(layout)
            }
        };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the block is live until System.dealloc.
        unsafe {
            freed_memory::scan(ptr, layout.size());
            System.dealloc(ptr, layout)
        };
        shrank(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the GlobalAlloc::realloc contract: new_size > 0, same alignment.
        unsafe {
            if freed_memory::is_armed() {
                // Armed, every realloc moves: whether the system would have grown the block
                // in place is luck, and the old block must be scanned before it is released.
                let new = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
                if !new.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
                return new;
            }
            let new = System.realloc(ptr, layout, new_size);
            if !new.is_null() {
                if new_size > layout.size() && ZERO_FILLING.load(Ordering::Relaxed) {
                    new.add(layout.size())
                        .write_bytes(0, new_size - layout.size());
                }
                // Counted as the new block arriving before the old one leaves (a copy).
                grew(new_size);
                shrank(layout.size());
            }
            new
        }
    }
}
