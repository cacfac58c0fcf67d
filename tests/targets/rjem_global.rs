//! rjem_global: a Rust program whose #[global_allocator] calls jemalloc's API
//! under the _rjem_ prefix, as tikv-jemallocator does (the names come from
//! build/tests/librjem_shim.so, tests/targets/rjem_shim.c).
//!
//! Ledger, written to $TL_EXPECT like the C targets' (tests/targets/ledger.h):
//!   rjem_global::keep   3 x Vec::<u8>::with_capacity(300), kept: live 900
//!   rjem_global::churn  2 x Vec::<u8>::with_capacity(200), dropped: live 0
//! Written for Debian's rustc 1.63 as well.

use std::alloc::{GlobalAlloc, Layout};
use std::io::Write;
use std::ptr;

extern "C" {
    fn _rjem_mallocx(size: usize, flags: i32) -> *mut u8;
    fn _rjem_rallocx(ptr: *mut u8, size: usize, flags: i32) -> *mut u8;
    fn _rjem_sdallocx(ptr: *mut u8, size: usize, flags: i32);
}

/// MALLOCX_LG_ALIGN: alignments above malloc's own are asked for
fn flags(layout: &Layout) -> i32 {
    if layout.align() <= 16 {
        0
    } else {
        layout.align().trailing_zeros() as i32
    }
}

struct Rjem;

unsafe impl GlobalAlloc for Rjem {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        _rjem_mallocx(layout.size(), flags(&layout))
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        _rjem_sdallocx(p, layout.size(), flags(&layout))
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        _rjem_rallocx(p, size, flags(&layout))
    }
}

#[global_allocator]
static ALLOCATOR: Rjem = Rjem;

#[inline(never)]
fn keep(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    unsafe { ptr::write_volatile(v.as_mut_ptr(), 1u8) };
    v
}

#[inline(never)]
fn churn(n: usize) -> usize {
    let mut v: Vec<u8> = Vec::with_capacity(n);
    unsafe { ptr::write_volatile(v.as_mut_ptr(), 2u8) };
    v.capacity()
}

fn main() {
    let mut kept = 0;
    for _ in 0..3 {
        let v = keep(300);
        if v.capacity() == 300 {
            kept += 1;
        }
        std::mem::forget(v);
    }
    let churned = churn(200) + churn(200);
    let ok = kept == 3 && churned == 400;
    if let Ok(path) = std::env::var("TL_EXPECT") {
        if let Ok(mut f) = std::fs::File::create(path) {
            let _ = write!(
                f,
                "live {k} {}\nlive-count {k} {}\nallocated {k} {}\ncount {k} {}\n\
                 live {c} 0\nlive-count {c} 0\nallocated {c} 400\ncount {c} 2\n\
                 summary unknown-frees 0\n",
                300 * kept, kept, 300 * kept, kept,
                k = "~^rjem_global::keep$", c = "~^rjem_global::churn$"
            );
            if !ok {
                let _ = writeln!(f, "error capacities were not as asked");
            }
        }
    }
    std::process::exit(if ok { 0 } else { 97 });
}
