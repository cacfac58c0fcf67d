//! leaky: a Rust target for tracelloc's Rust names, filters and ledgers
//! (tests/reports.sh). std only.
//!
//! Built twice by the Makefile, with the legacy symbol mangling (rustc's
//! default) and with v0:
//!
//!   rustc -C force-frame-pointers=yes -C debuginfo=2 -C opt-level=1 \
//!         -o build/tests/leaky tests/targets/leaky.rs
//!   rustc ... -C symbol-mangling-version=v0 -o build/tests/leaky_v0 tests/targets/leaky.rs
//!
//! Like the C targets (tests/targets/ledger.h) it knows its own ledger and
//! writes it to $TL_EXPECT: "live KEY BYTES", "live-count KEY N",
//! "allocated KEY BYTES", "count KEY N" per site, "summary unknown-frees 0",
//! "line KEY N" and "error MESSAGE" when a self-check failed (exit 97).
//! KEY is a short id: the function that is the site has a different name
//! under each mangling, and tests/reports.sh has the names (below the v0
//! ones; legacy names have no generic arguments, "Keeper::new" for
//! "<Keeper>::new" and "{{closure}}" for "{closure#0}"):
//!
//!   key          function (#[inline(never)])       what it allocates
//!   exact_vec    leaky::zoo::exact_vec             Vec::<u64>::with_capacity(100): 3 calls of 800 B, 1 dropped
//!   keeper       <leaky::zoo::Keeper>::new         String::from("keeper-of-the-zoo") (17 B) and
//!                                                  Vec::<u32>::with_capacity(12) (48 B), kept (mem::forget)
//!   boxed_u64    leaky::gen::leak_boxed::<u64>     Box::leak(Box::new(0u64)): 2 x 8 B
//!   boxed_arr    leaky::gen::leak_boxed::<[u16; 3]> Box::leak(Box::new([0u16; 3])): 1 x 6 B
//!   grow         leaky::zoo::grow                  a Vec<u32> pushed to 100 elements from empty,
//!                                                  then shrink_to_fit, forgotten: one malloc and
//!                                                  one realloc per capacity change (booked as the
//!                                                  capacity is seen to change, so whatever the
//!                                                  growth policy of this std)
//!   greeting     leaky::text::greeting             String::with_capacity(5), then push_str: one realloc
//!                                                  per capacity change, booked as seen (like grow)
//!   zeroed       leaky::zoo::zeroed                vec![0u32; 25]: one calloc of 100 B, kept
//!   churn        leaky::zoo::churn                 10 x Vec::<u8>::with_capacity(100 + i), the even i dropped,
//!                                                  and a Vec<Vec<u8>> of capacity 10 (240 B) kept
//!   closure      leaky::main::{closure#0}          Vec::<u16>::with_capacity(n + 7), called through &dyn Fn
//!   boxed_work   leaky::shims::boxed_work          called by a Box<dyn FnOnce> closure: Vec::<u8>::with_capacity(77)
//!   caught_work  leaky::shims::caught_work         called inside std::panic::catch_unwind: 33 B
//!   thread_work  leaky::shims::thread_work         called in a std::thread: Vec::<u64>::with_capacity(9)
//!
//! The closures of run_boxed, run_caught and run_thread are inlined into what
//! calls them (addr2line -i shows them as inlined frames): run_boxed; Box's
//! call_once [inlined]; the closure's vtable shim; the closure [inlined];
//! boxed_work.  run_caught; catch_unwind and its do_call [inlined]; the
//! closure [inlined]; caught_work.  The thread's start; its closure shim;
//! std's closures and catch_unwind [inlined]; __rust_begin_short_backtrace;
//! the closure [inlined]; thread_work.  Every stack of main also holds the
//! runtime frames std::rt::lang_start_internal (with catch_unwind harnesses
//! inlined), std::rt::lang_start's closure, __rust_begin_short_backtrace and
//! FnOnce::call_once [inlined] above leaky::main: the noise that tracelloc's
//! default filters hide (the closures themselves are the program's code,
//! and stay).
//!
//! "line KEY N": the line of the allocating call in exact_vec and in the
//! closure, and of the call of exact_vec in main.

use std::hint::black_box;
use std::sync::Mutex;

mod ledger {
    use super::Mutex;

    #[derive(Clone, Copy)]
    struct Site {
        key: &'static str,
        live: i64,
        live_count: i64,
        allocated: i64,
        count: i64,
    }

    const EMPTY: Site = Site { key: "", live: 0, live_count: 0, allocated: 0, count: 0 };
    const MAX: usize = 32;

    struct Book {
        sites: [Site; MAX],
        n: usize,
        lines: [(&'static str, u32); MAX],
        nlines: usize,
        errors: [&'static str; MAX],
        nerrors: usize,
    }

    // no allocation here: a site may book from inside its own frame
    static BOOK: Mutex<Book> = Mutex::new(Book {
        sites: [EMPTY; MAX],
        n: 0,
        lines: [("", 0); MAX],
        nlines: 0,
        errors: [""; MAX],
        nerrors: 0,
    });

    fn with_site(key: &'static str, f: impl FnOnce(&mut Site)) {
        let mut b = BOOK.lock().unwrap();
        let i = match b.sites[..b.n].iter().position(|s| s.key == key) {
            Some(i) => i,
            None => {
                assert!(b.n < MAX, "ledger: too many sites");
                let i = b.n;
                b.sites[i].key = key;
                b.n += 1;
                i
            }
        };
        f(&mut b.sites[i]);
    }

    /// one successful allocation call of `bytes` at `key`
    pub fn alloc(key: &'static str, bytes: usize) {
        with_site(key, |s| {
            s.count += 1;
            s.allocated += bytes as i64;
            s.live += bytes as i64;
            s.live_count += 1;
        });
    }

    /// a block of `bytes` allocated at `key` was released
    pub fn free(key: &'static str, bytes: usize) {
        with_site(key, |s| {
            s.live -= bytes as i64;
            s.live_count -= 1;
        });
    }

    /// realloc of a block of `old` bytes to `new` bytes at `key`
    pub fn realloc(key: &'static str, old: usize, new: usize) {
        free(key, old);
        alloc(key, new);
    }

    pub fn line(key: &'static str, line: u32) {
        let mut b = BOOK.lock().unwrap();
        if b.lines[..b.nlines].iter().any(|(k, _)| *k == key) {
            return;
        }
        let i = b.nlines;
        b.lines[i] = (key, line);
        b.nlines += 1;
    }

    pub fn check(ok: bool, what: &'static str) {
        if !ok {
            eprintln!("target self-check failed: {}", what);
            let mut b = BOOK.lock().unwrap();
            let i = b.nerrors;
            b.errors[i] = what;
            b.nerrors += 1;
        }
    }

    /// writes the ledger to $TL_EXPECT (if set); the exit status to use
    pub fn write() -> i32 {
        let b = BOOK.lock().unwrap();
        let status = if b.nerrors > 0 { 97 } else { 0 };
        let path = match std::env::var_os("TL_EXPECT") {
            Some(p) if !p.is_empty() => p,
            _ => return status,
        };
        let mut out = String::new();
        for s in &b.sites[..b.n] {
            out.push_str(&format!("live {} {}\n", s.key, s.live));
            out.push_str(&format!("live-count {} {}\n", s.key, s.live_count));
            out.push_str(&format!("allocated {} {}\n", s.key, s.allocated));
            out.push_str(&format!("count {} {}\n", s.key, s.count));
        }
        out.push_str("summary unknown-frees 0\n");
        for (k, l) in &b.lines[..b.nlines] {
            out.push_str(&format!("line {} {}\n", k, l));
        }
        for e in &b.errors[..b.nerrors] {
            out.push_str(&format!("error {}\n", e));
        }
        match std::fs::write(&path, out) {
            Ok(()) => status,
            Err(e) => {
                eprintln!("{:?}: {}", path, e);
                98
            }
        }
    }
}

mod zoo {
    use super::ledger;

    #[inline(never)]
    pub fn exact_vec(n: usize) -> Vec<u64> {
        let v = Vec::with_capacity(n); ledger::line("exact_vec", line!());
        v
    }

    pub struct Keeper {
        pub name: String,
        pub slots: Vec<u32>,
    }

    impl Keeper {
        #[inline(never)]
        pub fn new(name: &str, n: usize) -> Keeper {
            Keeper { name: String::from(name), slots: Vec::with_capacity(n) }
        }
    }

    /// pushes n values from empty, then shrinks to fit; books one call per
    /// capacity change (the first one a malloc, then reallocs)
    #[inline(never)]
    pub fn grow(n: usize) -> Vec<u32> {
        let mut v: Vec<u32> = Vec::new();
        let mut cap = v.capacity();
        for i in 0..n {
            v.push(i as u32);
            if v.capacity() != cap {
                if cap == 0 {
                    ledger::alloc("grow", v.capacity() * 4);
                } else {
                    ledger::realloc("grow", cap * 4, v.capacity() * 4);
                }
                cap = v.capacity();
            }
        }
        v.shrink_to_fit();
        if v.capacity() != cap {
            ledger::realloc("grow", cap * 4, v.capacity() * 4);
        }
        v
    }

    /// vec![0; n]: one calloc (alloc_zeroed)
    #[inline(never)]
    pub fn zeroed(n: usize) -> Vec<u32> {
        vec![0u32; n]
    }

    /// n vectors, the even ones dropped here (and the vector that holds
    /// the others)
    #[inline(never)]
    pub fn churn(n: usize) -> Vec<Vec<u8>> {
        let mut kept = Vec::new();
        kept.reserve_exact(n);
        ledger::check(kept.capacity() == n, "churn: reserve_exact");
        ledger::alloc("churn", n * std::mem::size_of::<Vec<u8>>());
        for i in 0..n {
            let v: Vec<u8> = Vec::with_capacity(100 + i);
            if i % 2 == 0 {
                drop(super::black_box(v));
            } else {
                kept.push(v);
            }
        }
        kept
    }
}

mod gen {
    #[inline(never)]
    pub fn leak_boxed<T: Default>() -> &'static mut T {
        Box::leak(Box::new(T::default()))
    }
}

mod text {
    use super::ledger;

    /// books its calls as it sees the capacity change
    #[inline(never)]
    pub fn greeting(who: &str) -> String {
        let mut s = String::with_capacity(5);
        ledger::alloc("greeting", 5);
        let mut cap = s.capacity();
        for part in ["hello", ", ", who] {
            s.push_str(part);
            if s.capacity() != cap {
                ledger::realloc("greeting", cap, s.capacity());
                cap = s.capacity();
            }
        }
        s
    }
}

mod shims {
    use super::black_box;

    #[inline(never)]
    pub fn boxed_work(n: usize) -> Vec<u8> {
        Vec::with_capacity(n)
    }

    #[inline(never)]
    pub fn caught_work(n: usize) -> Vec<u8> {
        Vec::with_capacity(n)
    }

    #[inline(never)]
    pub fn thread_work(n: usize) -> Vec<u64> {
        Vec::with_capacity(n)
    }

    /// calls boxed_work through a Box<dyn FnOnce> (its vtable shim, into
    /// which the closure is inlined)
    #[inline(never)]
    pub fn run_boxed(n: usize) -> Vec<u8> {
        // black_box after the call: the call is not a tail call, so the
        // shim keeps its frame
        let f: Box<dyn FnOnce() -> Vec<u8>> = black_box(Box::new(move || {
            let v = boxed_work(n);
            black_box(&v);
            v
        }));
        f()
    }

    /// calls caught_work inside catch_unwind
    #[inline(never)]
    pub fn run_caught(n: usize) -> Vec<u8> {
        std::panic::catch_unwind(|| caught_work(n)).unwrap_or_default()
    }

    /// calls thread_work in a thread of its own
    #[inline(never)]
    pub fn run_thread(n: usize) -> Vec<u64> {
        std::thread::spawn(move || thread_work(n)).join().unwrap_or_default()
    }
}

fn main() {
    // exact_vec: 3 x 800 B, the second one dropped
    let mut kept_vecs = Vec::new();
    for i in 0..3 {
        let v = zoo::exact_vec(100); ledger::line("main_exact_vec", line!());
        ledger::check(v.capacity() == 100, "exact_vec capacity");
        ledger::alloc("exact_vec", 800);
        if i == 1 {
            drop(black_box(v));
            ledger::free("exact_vec", 800);
        } else {
            kept_vecs.push(v);
        }
    }
    std::mem::forget(kept_vecs);

    let k = zoo::Keeper::new("keeper-of-the-zoo", 12);
    ledger::check(k.name.capacity() == 17 && k.slots.capacity() == 12, "Keeper capacities");
    ledger::alloc("keeper", 17);
    ledger::alloc("keeper", 12 * 4);
    std::mem::forget(k);

    for _ in 0..2 {
        let b: &mut u64 = gen::leak_boxed();
        *b = black_box(1);
        ledger::alloc("boxed_u64", 8);
    }
    let a: &mut [u16; 3] = gen::leak_boxed();
    a[0] = black_box(1);
    ledger::alloc("boxed_arr", 6);

    let g = zoo::grow(100);
    ledger::check(g.len() == 100 && g.capacity() == 100, "grow: 100 elements, shrunk to fit");
    std::mem::forget(g);

    let s = text::greeting("world");
    ledger::check(s == "hello, world", "greeting text");
    std::mem::forget(s);

    let z = zoo::zeroed(25);
    ledger::check(z.capacity() == 25, "zeroed capacity");
    ledger::alloc("zeroed", 100);
    std::mem::forget(z);

    let c = zoo::churn(10);
    for i in 0..10 {
        ledger::alloc("churn", 100 + i);
        if i % 2 == 0 {
            ledger::free("churn", 100 + i);
        }
    }
    std::mem::forget(c);

    // the one closure of main, called through &dyn Fn so it stays a function
    let extra = black_box(7usize);
    let make = move |n: usize| -> Vec<u16> {
        let v = Vec::with_capacity(n + extra); ledger::line("closure", line!());
        v
    };
    let f: &dyn Fn(usize) -> Vec<u16> = black_box(&make);
    let cv = f(41);
    ledger::check(cv.capacity() == 48, "closure capacity");
    ledger::alloc("closure", 48 * 2);
    std::mem::forget(cv);

    let bw = shims::run_boxed(77);
    ledger::check(bw.capacity() == 77, "boxed_work capacity");
    ledger::alloc("boxed_work", 77);
    std::mem::forget(bw);

    let cw = shims::run_caught(33);
    ledger::check(cw.capacity() == 33, "caught_work capacity");
    ledger::alloc("caught_work", 33);
    std::mem::forget(cw);

    let tw = shims::run_thread(9);
    ledger::check(tw.capacity() == 9, "thread_work capacity");
    ledger::alloc("thread_work", 9 * 8);
    std::mem::forget(tw);

    std::process::exit(ledger::write());
}
