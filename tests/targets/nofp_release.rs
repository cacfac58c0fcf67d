//! nofp_release: a Rust release build (`rustc -O`: no frame pointers, the
//! default) for tracelloc's unwind tables: a chain of three functions kept
//! out of line, allocating through std's global allocator (System: malloc).
//!
//! Ledger, written to $TL_EXPECT like the C targets' (tests/targets/ledger.h):
//!   nofp_release::leaf
//!          3 x Vec::<u8>::with_capacity(300) through outer -> middle -> leaf,
//!          kept (mem::forget): live 900 B, 3 allocations
//! Written for Debian's rustc 1.63 as well: no std::hint::black_box.

use std::io::Write;
use std::ptr;

/// the site, as a regular expression over one folded frame (see ledger.h)
const SITE: &str = "~^nofp_release::leaf$";

#[inline(never)]
fn leaf(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    // a volatile write the optimizer cannot drop: the allocation stays
    unsafe { ptr::write_volatile(v.as_mut_ptr(), 7u8) };
    v
}

#[inline(never)]
fn middle(n: usize) -> Vec<u8> {
    let mut pad = [0u8; 40];
    unsafe { ptr::write_volatile(&mut pad[0], n as u8) };
    let extra = unsafe { ptr::read_volatile(&pad[0]) } as usize - (n as u8) as usize;
    let v = leaf(n + extra);
    unsafe { ptr::write_volatile(&mut pad[39], 1) };
    v
}

#[inline(never)]
fn outer(n: usize) -> Vec<u8> {
    let v = middle(n);
    unsafe { ptr::read_volatile(&v.capacity()) };
    v
}

fn main() {
    let mut kept = 0;
    for _ in 0..3 {
        let v = outer(300);
        if v.capacity() == 300 {
            kept += 1;
        }
        std::mem::forget(v);
    }
    let status = if kept == 3 { 0 } else { 97 };
    if let Ok(path) = std::env::var("TL_EXPECT") {
        if let Ok(mut f) = std::fs::File::create(path) {
            let _ = write!(
                f,
                "live {k} {}\nlive-count {k} {}\nallocated {k} {}\ncount {k} {}\nsummary unknown-frees 0\n",
                300 * kept, kept, 300 * kept, kept, k = SITE
            );
            if status != 0 {
                let _ = writeln!(f, "error capacity was not 300");
            }
        }
    }
    std::process::exit(status);
}
