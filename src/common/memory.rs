//! The heap's accounting (`--max-memory`): [`Accounting`], a global allocator over the
//! system's that counts the bytes in use once a limit is set and refuses an allocation that
//! would pass it, as the system refuses one it cannot make.
//!
//! A refusal reaches Python as `MemoryError` where the VM asked for memory through
//! [`fallible`] (sequence repetition, concatenation, a list's growth and other buffers the
//! program sizes: `try_reserve` sees the refusal). An allocation anywhere else cannot fail
//! in Rust, so past the limit it is granted from a reserve (a quarter of the limit, at
//! least 16 MB) and marked: the VM's next periodic check ([`take_over_limit`], every few
//! thousand instructions) raises `MemoryError` in the running code, with its traceback, as
//! CPython raises it where the allocation failed. Only past the reserve too does the
//! allocator end the process itself (Rust would abort, exit 134, buffered output lost): it
//! writes out the program's output (the hook the VM gives [`set_last_words`]), prints
//! `MemoryError` as CPython's last line, and exits with status 1.
//! Without a limit the allocator costs one load and branch per call.
//!
//! The same slow path carries `tracemalloc` ([`Tracer`], installed with [`set_tracer`]):
//! while a tracer is installed, each allocation asks it where the program is (before the
//! block is made, so the frames it reads are still whole) and reports the block to it, and
//! each release reports the address. Nothing else pays for it: with neither a limit nor a
//! tracer, [`WATCHED`] is false and the allocator goes straight to the system's.

use std::alloc::{GlobalAlloc, Layout};

#[cfg(not(target_arch = "wasm32"))]
use mimalloc::Mimalloc as Backing;
#[cfg(target_arch = "wasm32")]
use std::alloc::System as Backing;
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicPtr, AtomicUsize, Ordering};

/// The limit in bytes (`usize::MAX`: none, nothing counted).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Bytes in use, counted since the limit was set (so it may dip below 0 a little, as what
/// was allocated before is freed).
static USED: AtomicIsize = AtomicIsize::new(0);
/// What to run before dying of a refused allocation (writes out the program's output).
static LAST_WORDS: AtomicUsize = AtomicUsize::new(0);
static DYING: AtomicBool = AtomicBool::new(false);
/// Set when an allocation that could not be refused passed the limit (granted from the
/// reserve): a `MemoryError` for the VM to raise.
static OVER: AtomicBool = AtomicBool::new(false);
/// True while a limit is set or a tracer installed: the one flag the allocator's fast
/// path reads.
static WATCHED: AtomicBool = AtomicBool::new(false);
/// The installed tracer (null: none).
static TRACER: AtomicPtr<Tracer> = AtomicPtr::new(std::ptr::null_mut());

thread_local! {
    /// Set while this thread allocates through [`fallible`]: a refusal returns null.
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
    /// Set while this thread runs the tracer (or [`untraced`]): what it allocates and
    /// frees for itself is not reported to it.
    static IN_TRACER: Cell<bool> = const { Cell::new(false) };
}

/// What follows the heap for `tracemalloc`: three functions the allocator calls, never
/// from inside one another (what they allocate is not reported).
pub struct Tracer {
    /// Where the program is, asked before a block is made: an id for `record`, or None
    /// when nothing is traced here (another thread, no code running).
    pub locate: fn(size: usize) -> Option<u32>,
    /// A block of `size` bytes at `address` was made where `locate` said.
    pub record: fn(address: usize, size: usize, site: u32),
    /// The block at `address` was freed (or moved by a reallocation).
    pub forget: fn(address: usize),
}

/// Installs `tracer` (or removes it: None). The allocator slows down only while one is
/// installed.
pub fn set_tracer(tracer: Option<&'static Tracer>) {
    let pointer = tracer.map_or(std::ptr::null_mut(), |t| std::ptr::from_ref(t).cast_mut());
    TRACER.store(pointer, Ordering::Relaxed);
    WATCHED.store(tracer.is_some() || limit().is_some(), Ordering::Relaxed);
}

/// Runs `work` without reporting what it allocates or frees to the tracer (the tracer's
/// own tables, changed from outside the allocator).
pub fn untraced<T>(work: impl FnOnce() -> T) -> T {
    let outer = IN_TRACER.with(|f| f.replace(true));
    let result = work();
    IN_TRACER.with(|f| f.set(outer));
    result
}

/// Runs `call` with the installed tracer, unless there is none or the tracer is already
/// running on this thread.
#[inline]
fn with_tracer<T>(call: impl FnOnce(&Tracer) -> T) -> Option<T> {
    let tracer = TRACER.load(Ordering::Relaxed);
    if tracer.is_null() || IN_TRACER.with(|f| f.replace(true)) {
        return None;
    }
    // SAFETY: only `set_tracer` stores here, and it stores a `&'static Tracer`.
    let result = call(unsafe { &*tracer });
    IN_TRACER.with(|f| f.set(false));
    Some(result)
}

/// Sets the limit (`--max-memory`); counting starts now, from 0 (a fuzz target sets it
/// again before each input, so that what earlier inputs left behind does not count).
pub fn set_limit(bytes: usize) {
    USED.store(0, Ordering::Relaxed);
    OVER.store(false, Ordering::Relaxed);
    LIMIT.store(bytes, Ordering::Relaxed);
    WATCHED.store(true, Ordering::Relaxed);
}

/// What may be granted past the limit to allocations that cannot be refused, until the VM
/// raises `MemoryError` and unwinds (a quarter of the limit, at least 16 MB).
fn reserve(limit: usize) -> usize {
    (limit / 4).max(16 << 20)
}

/// True once after an allocation that could not be refused passed the limit: the VM raises
/// `MemoryError` (called at its periodic limit check, so it costs nothing per instruction).
pub fn take_over_limit() -> bool {
    OVER.load(Ordering::Relaxed) && OVER.swap(false, Ordering::Relaxed)
}

/// The limit, if one is set.
pub fn limit() -> Option<usize> {
    Some(LIMIT.load(Ordering::Relaxed)).filter(|&l| l != usize::MAX)
}

/// The bytes in use counted since the limit was set: what a test of what runs leave
/// behind reads (`tests/teardown.rs`).
pub fn in_use() -> isize {
    USED.load(Ordering::Relaxed)
}

/// Gives the allocator what to run before it ends the process (called once per thread
/// that writes program output; the last one given wins).
pub fn set_last_words(hook: fn()) {
    LAST_WORDS.store(hook as usize, Ordering::Relaxed);
}

/// Runs `allocate` so that a refused allocation inside it returns null (its `try_reserve`
/// gets an error) instead of ending the process.
pub fn fallible<T>(allocate: impl FnOnce() -> T) -> T {
    let outer = FALLIBLE.with(|f| f.replace(true));
    let result = allocate();
    FALLIBLE.with(|f| f.set(outer));
    result
}

/// The global allocator: the system's, with the accounting above.
pub struct Accounting;

impl Accounting {
    /// Counts `size` more bytes in use; false (and nothing counted) past the limit.
    #[inline]
    fn take(size: usize) -> bool {
        let limit = LIMIT.load(Ordering::Relaxed);
        if limit == usize::MAX {
            return true;
        }
        let before = USED.fetch_add(size as isize, Ordering::Relaxed);
        if before.saturating_add(size as isize) > limit as isize {
            return Self::take_past_limit(before, size, limit);
        }
        true
    }

    /// `size` more bytes would pass the limit: refused inside [`fallible`]; granted from
    /// the reserve otherwise, marked for the VM to raise `MemoryError`; refused past it.
    #[cold]
    fn take_past_limit(before: isize, size: usize, limit: usize) -> bool {
        let hard = limit
            .saturating_add(reserve(limit))
            .min(isize::MAX as usize);
        if FALLIBLE.with(Cell::get) || before.saturating_add(size as isize) > hard as isize {
            USED.fetch_sub(size as isize, Ordering::Relaxed);
            return false;
        }
        OVER.store(true, Ordering::Relaxed);
        true
    }

    /// A new block of `size` bytes from `allocate`, counted; refused past the limit or
    /// when the system has none.
    #[inline]
    fn counted(size: usize, allocate: impl FnOnce() -> *mut u8) -> *mut u8 {
        if !Self::take(size) {
            return Self::refuse(size);
        }
        let p = allocate();
        if p.is_null() {
            Self::give_back(size);
            return Self::refuse(size);
        }
        p
    }

    #[inline]
    fn give_back(size: usize) {
        if LIMIT.load(Ordering::Relaxed) != usize::MAX {
            USED.fetch_sub(size as isize, Ordering::Relaxed);
        }
    }

    /// An allocation of `size` bytes cannot be made: null for a caller inside [`fallible`],
    /// else the end of the process.
    #[cold]
    fn refuse(size: usize) -> *mut u8 {
        if FALLIBLE.with(Cell::get) {
            return std::ptr::null_mut();
        }
        die(size)
    }
}

/// Ends the process after an allocation nothing can recover from: the program's output so
/// far, a line saying what failed, and CPython's last line. Allocates nothing.
fn die(size: usize) -> ! {
    if !DYING.swap(true, Ordering::Relaxed) {
        let hook = LAST_WORDS.load(Ordering::Relaxed);
        if hook != 0 {
            // SAFETY: only `set_last_words` stores here, and it stores a `fn()`.
            let hook: fn() = unsafe { std::mem::transmute::<usize, fn()>(hook) };
            hook();
        }
    }
    let mut text = [0u8; 160];
    let mut cursor = std::io::Cursor::new(&mut text[..]);
    let _ = match limit() {
        Some(limit) => writeln!(
            cursor,
            "apy: allocating {size} bytes would pass --max-memory ({limit} bytes)"
        ),
        None => writeln!(cursor, "apy: allocating {size} bytes failed"),
    };
    let _ = writeln!(cursor, "MemoryError");
    let len = cursor.position() as usize;
    // SAFETY: writes bytes of a local buffer to stderr, then ends the process without
    // running anything that could allocate.
    #[cfg(not(target_arch = "wasm32"))]
    unsafe {
        libc::write(2, text.as_ptr().cast(), len);
        // Under a fuzzer an abort, which it reports with the input that got here (a
        // quiet `_exit` would end the campaign without either).
        if cfg!(fuzzing) {
            std::process::abort()
        }
        libc::_exit(1)
    }
    // A page has no process to end: the run traps, and the page says it ran out of memory.
    #[cfg(target_arch = "wasm32")]
    {
        let _ = len;
        std::process::abort()
    }
}

impl Accounting {
    /// An allocation while a limit is set or a tracer installed: located before it is
    /// made, counted, and reported.
    #[cold]
    #[inline(never)]
    fn alloc_watched(layout: Layout, zeroed: bool) -> *mut u8 {
        let site = with_tracer(|t| (t.locate)(layout.size())).flatten();
        let p = Self::counted(layout.size(), || {
            // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
            unsafe {
                if zeroed {
                    Backing.alloc_zeroed(layout)
                } else {
                    Backing.alloc(layout)
                }
            }
        });
        if let Some(site) = site {
            with_tracer(|t| (t.record)(p as usize, layout.size(), site));
        }
        p
    }

    /// What the system gave for `size` bytes, or the refusal when it gave nothing.
    #[inline(always)]
    fn granted(p: *mut u8, size: usize) -> *mut u8 {
        if p.is_null() {
            return Self::refuse(size);
        }
        p
    }

    #[cold]
    #[inline(never)]
    fn dealloc_watched(ptr: *mut u8, size: usize) {
        Self::give_back(size);
        with_tracer(|t| (t.forget)(ptr as usize));
    }

    #[cold]
    #[inline(never)]
    fn realloc_watched(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let site = with_tracer(|t| (t.locate)(new_size)).flatten();
        let old = layout.size();
        if new_size > old && !Self::take(new_size - old) {
            return Self::refuse(new_size);
        }
        // SAFETY: `ptr` was allocated by `Backing` with `layout`; the caller checked `new_size`.
        let p = unsafe { Backing.realloc(ptr, layout, new_size) };
        if p.is_null() {
            if new_size > old {
                Self::give_back(new_size - old);
            }
            return Self::refuse(new_size);
        }
        if new_size < old {
            Self::give_back(old - new_size);
        }
        with_tracer(|t| {
            (t.forget)(ptr as usize);
            if let Some(site) = site {
                (t.record)(p as usize, new_size, site);
            }
        });
        p
    }
}

// SAFETY: every method forwards to `Backing` with the same layout; the accounting only
// decides whether to forward.
unsafe impl GlobalAlloc for Accounting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !WATCHED.load(Ordering::Relaxed) {
            // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
            return Self::granted(unsafe { Backing.alloc(layout) }, layout.size());
        }
        Self::alloc_watched(layout, false)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !WATCHED.load(Ordering::Relaxed) {
            // SAFETY: as in `alloc`.
            return Self::granted(unsafe { Backing.alloc_zeroed(layout) }, layout.size());
        }
        Self::alloc_watched(layout, true)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if WATCHED.load(Ordering::Relaxed) {
            Self::dealloc_watched(ptr, layout.size());
        }
        // SAFETY: `ptr` was allocated by `Backing` with `layout`.
        unsafe { Backing.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !WATCHED.load(Ordering::Relaxed) {
            // SAFETY: `ptr` was allocated by `Backing` with `layout`, as the caller promises.
            return Self::granted(unsafe { Backing.realloc(ptr, layout, new_size) }, new_size);
        }
        Self::realloc_watched(ptr, layout, new_size)
    }
}

/// Reads a `--max-memory` size: bytes, or a number with `K`, `M`, `G` or `T` (powers of
/// 1024; `256M`, `1.5G`), optionally followed by `B` or `iB`.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let number = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (digits, scale) = match number.chars().last() {
        Some('k') => (&number[..number.len() - 1], 1u64 << 10),
        Some('m') => (&number[..number.len() - 1], 1 << 20),
        Some('g') => (&number[..number.len() - 1], 1 << 30),
        Some('t') => (&number[..number.len() - 1], 1 << 40),
        _ => (number, 1),
    };
    match digits.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 && n * (scale as f64) < usize::MAX as f64 => {
            Ok((n * scale as f64) as usize)
        }
        _ => Err(format!(
            "expected a size such as 100000, 256M or 1G, got '{text}'"
        )),
    }
}

/// The allocator underneath the accounting, natively (in a browser it is Rust's own,
/// `System`): mimalloc. A VM allocates and frees small objects by the million (frames,
/// tasks, futures, boxed objects), which glibc's malloc serves through its slower bins;
/// CPython serves them from its own small-object allocator (pymalloc).
#[cfg(not(target_arch = "wasm32"))]
mod mimalloc {
    use libmimalloc_sys::{
        mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
        mi_zalloc_aligned,
    };
    use std::alloc::{GlobalAlloc, Layout};
    use std::ffi::c_void;
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub struct Mimalloc;

    /// Blocks of this size or more are first checked with [`system_can_give`].
    const HUGE: usize = 1 << 30;

    /// Whether the system could give a block of `size` bytes, as Linux's default
    /// overcommit policy judges a request (`vm.overcommit_memory` 0: not more than RAM and
    /// swap together). glibc's malloc asked the kernel and got that refusal, which CPython
    /// turns into MemoryError (`os.read(fd, 10**12)`, `list(range(10**12))`); mimalloc maps
    /// big blocks `MAP_NORESERVE`, which the kernel grants at any size, and a program that
    /// then filled one was killed for it. Under the other policies the kernel decides, as
    /// before: always yes, or strict accounting.
    #[cold]
    #[inline(never)]
    fn system_can_give(size: usize) -> bool {
        static LARGEST: AtomicUsize = AtomicUsize::new(0);
        let mut largest = LARGEST.load(Ordering::Relaxed);
        if largest == 0 {
            largest = largest_under_heuristic_overcommit().unwrap_or(usize::MAX);
            LARGEST.store(largest, Ordering::Relaxed);
        }
        size <= largest
    }

    /// RAM and swap together, when the overcommit policy is the heuristic one; read without
    /// allocating (this runs inside the allocator).
    #[cfg(target_os = "linux")]
    fn largest_under_heuristic_overcommit() -> Option<usize> {
        let mut policy = [0u8; 4];
        // SAFETY: a NUL-terminated path; `read` fills at most the live buffer's length;
        // the descriptor opened is closed.
        let read = unsafe {
            let fd = libc::open(
                c"/proc/sys/vm/overcommit_memory".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return None;
            }
            let read = libc::read(fd, policy.as_mut_ptr().cast(), policy.len());
            libc::close(fd);
            read
        };
        if read < 1 || policy[0] != b'0' {
            return None;
        }
        // SAFETY: `sysinfo` only fills in the zeroed struct it is given.
        let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
        if unsafe { libc::sysinfo(&mut info) } != 0 {
            return None;
        }
        // `c_ulong` is 32 bits on 32-bit Linux: widened there, the same type here.
        #[allow(clippy::useless_conversion)]
        let total = u64::from(info.totalram)
            .saturating_add(u64::from(info.totalswap))
            .saturating_mul(u64::from(info.mem_unit.max(1)));
        Some(usize::try_from(total).unwrap_or(usize::MAX))
    }

    #[cfg(not(target_os = "linux"))]
    fn largest_under_heuristic_overcommit() -> Option<usize> {
        None
    }

    /// Whether a block of `size` bytes is one the system would refuse ([`system_can_give`]).
    #[inline(always)]
    fn refused(size: usize) -> bool {
        size >= HUGE && !system_can_give(size)
    }

    /// Whether mimalloc's plain `malloc` already aligns a block of this layout (every block
    /// of 16 bytes or more is 16-aligned), so the aligned entry points, a few instructions
    /// longer on every call, are only for the rare over-aligned types; `System` decides
    /// the same way.
    #[inline(always)]
    fn plain(align: usize, size: usize) -> bool {
        align <= 16 && align <= size
    }

    /// A new block for `layout` from `plain_fn(size)` or `aligned_fn(size, align)`, as
    /// [`plain`] decides; null for one the system would refuse ([`refused`]).
    ///
    /// # Safety
    /// The two functions are one of mimalloc's allocating pairs.
    #[inline(always)]
    unsafe fn new_block(
        layout: Layout,
        plain_fn: unsafe extern "C" fn(usize) -> *mut c_void,
        aligned_fn: unsafe extern "C" fn(usize, usize) -> *mut c_void,
    ) -> *mut u8 {
        if refused(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: plain C calls with the caller's size, as the caller promises.
        unsafe {
            if plain(layout.align(), layout.size()) {
                plain_fn(layout.size()).cast()
            } else {
                aligned_fn(layout.size(), layout.align()).cast()
            }
        }
    }

    // SAFETY: mimalloc's functions take and give blocks as malloc's do; a block is freed
    // with `mi_free` whatever the alignment it was asked with.
    unsafe impl GlobalAlloc for Mimalloc {
        #[inline(always)]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: mimalloc's own malloc pair, with the caller's (non-zero) size.
            unsafe { new_block(layout, mi_malloc, mi_malloc_aligned) }
        }

        #[inline(always)]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: as in `alloc`, the zeroing pair.
            unsafe { new_block(layout, mi_zalloc, mi_zalloc_aligned) }
        }

        #[inline(always)]
        unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
            // SAFETY: `ptr` came from this allocator, as the caller promises.
            unsafe { mi_free(ptr.cast::<c_void>()) }
        }

        #[inline(always)]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if refused(new_size) {
                return std::ptr::null_mut();
            }
            // SAFETY: `ptr` came from this allocator with `layout`, as the caller promises.
            unsafe {
                if plain(layout.align(), new_size) {
                    mi_realloc(ptr.cast::<c_void>(), new_size).cast()
                } else {
                    mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_bytes_or_with_a_suffix() {
        assert_eq!(parse_size("100000"), Ok(100_000));
        assert_eq!(parse_size("256M"), Ok(256 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1.5k"), Ok(1536));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("1e300").is_err());
    }
}
